// One REST collection in Neutron's and Octavia's style (src/openstack/collection.ts), against the simulated
// Neutron: create, get, find (undefined on 404, other failures thrown), list with filters through every
// page, update, delete (false when already gone); the version prefix of a catalog URL; deleted().
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Collection, deleted, versionPrefix } from '../../src/openstack/collection.js';
import { OpenStackError, type CallRecord, type Session } from '../../src/openstack/http.js';
import { NO_RETRY } from '../../src/openstack/retry.js';
import { failure } from '../support/openstack.js';
import { startCloud, type Cloud } from './cloud.js';

interface Net {
  id: string;
  name: string;
  admin_state_up: boolean;
}

let cloud: Cloud;
let session: Session;
const calls: CallRecord[] = [];
before(async () => {
  cloud = await startCloud();
  session = await cloud.session('demo', 'network', { calls });
});
after(() => cloud.close());

const networks = (s: Session = session) => new Collection<Net, { name: string }, { name?: string | string[]; limit?: number }, { admin_state_up: boolean }>(s, { path: '/v2.0/networks', singular: 'network', plural: 'networks', name: 'networks' });

test('create, get, update, list by filter through pages, delete twice; every call named by its operation', async () => {
  const nets = networks();
  calls.length = 0;
  const a = await nets.create({ name: 'coll-a' });
  await nets.create({ name: 'coll-b' });
  assert.equal((await nets.get(a.id)).name, 'coll-a');
  assert.equal((await nets.update(a.id, { admin_state_up: false })).admin_state_up, false);
  assert.deepEqual(calls.map((c) => `${c.method} ${c.operation}`), ['POST networks.create', 'POST networks.create', 'GET networks.get', 'PUT networks.update']);
  calls.length = 0;
  const both = await nets.list({ name: ['coll-a', 'coll-b'], limit: 1 });
  assert.deepEqual(both.map((n) => n.name).sort(), ['coll-a', 'coll-b']);
  assert.ok(calls.length >= 2 && calls.every((c) => c.operation === 'networks.list'), 'pages followed');
  assert.equal(await nets.delete(a.id), true);
  assert.equal(await nets.delete(a.id), false);
});

test('find: the item, undefined when gone, and any other failure thrown', async () => {
  const nets = networks();
  const n = await nets.create({ name: 'coll-find' });
  assert.equal((await nets.find(n.id))?.id, n.id);
  await nets.delete(n.id);
  assert.equal(await nets.find(n.id), undefined);
  const once = networks(await cloud.session('demo', 'network', { retry: NO_RETRY }));
  const remove = cloud.sims.neutron.state.faults.inject({ status: 503, times: 1 });
  try {
    const e = await failure(() => once.find(n.id));
    assert.equal(e.status, 503);
  } finally {
    remove();
  }
});

test('versionPrefix: nothing when the catalog URL already ends in the version, else the version', () => {
  assert.equal(versionPrefix('http://n:9696', 'v2.0'), '/v2.0');
  assert.equal(versionPrefix('http://n:9696/v2.0', 'v2.0'), '');
  assert.equal(versionPrefix('http://n:9696/v2.0/', 'v2.0'), '');
  assert.equal(versionPrefix('http://n:9696/v2x0', 'v2.0'), '/v2.0', 'the dot is literal');
});

test('deleted(): true when it went, false for a 404, any other failure thrown', async () => {
  assert.equal(await deleted(async () => undefined), true);
  assert.equal(await deleted(async () => { throw new OpenStackError('network', 404, undefined, undefined, 'not_found', 'gone'); }), false);
  await assert.rejects(deleted(async () => { throw new OpenStackError('network', 409, undefined, undefined, 'conflict', 'in use'); }), /in use/);
});
