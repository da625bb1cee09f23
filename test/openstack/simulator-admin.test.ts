// The simulator's admin API client (src/openstack/simulator-admin.ts): a GET of a path answered with its
// JSON body for the admin; anyone else is refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatorAdminClient } from '../../src/openstack/simulator-admin.js';
import { failure } from '../support/openstack.js';
import { startCloud, type Cloud } from './cloud.js';

let cloud: Cloud;
before(async () => {
  cloud = await startCloud();
});
after(() => cloud.close());

test('the admin reads the audit; a member is refused', async () => {
  const admin = new SimulatorAdminClient(await cloud.session('admin', 'cloudsim-admin'));
  const audit = (await admin.get('/audit')) as Record<string, unknown>;
  assert.equal(typeof audit, 'object');
  const calls = (await admin.get('/calls')) as { calls: Record<string, number> };
  assert.equal(typeof calls.calls, 'object');
  const demo = new SimulatorAdminClient(await cloud.session('demo', 'cloudsim-admin'));
  assert.equal((await failure(() => demo.get('/audit'))).status, 403);
});
