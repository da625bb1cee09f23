// Auto-healing's repair (src/clusters/repair.ts) through startRepair: begun by the service only on a settled
// cluster with nothing else running, with the servers to replace and the stale nodes as its params and a
// warning event; otherwise why not, and nothing written.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRepair, type RepairRequest } from '../../src/clusters/repair.js';
import { testApp, type TestApp } from '../support/app.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

const request: RepairRequest = { servers: ['srv-1'], names: ['c-node-1'], staleNodes: ['c-node-0'], message: 'node c-node-1 is not ready for 10 minutes' };
const ops = (uuid: string) => t.app.services.db.query(`SELECT kind, params FROM operation WHERE cluster_id = $1`, [uuid]) as Promise<{ kind: string; params: Record<string, unknown> }[]>;

test('a settled cluster: queued (undefined), its params and a warning event at the given time', async () => {
  const fx = await nodegroupCluster(t);
  const now = new Date('2026-06-01T12:00:00.000Z');
  assert.equal(await startRepair(t.app.services, fx.cluster.uuid, request, now), undefined);
  assert.deepEqual(await ops(fx.cluster.uuid), [{ kind: 'repair', params: { servers: ['srv-1'], names: ['c-node-1'], stale_nodes: ['c-node-0'] } }]);
  const [ev] = await t.app.services.db.query(`SELECT reason, message, severity, at FROM cluster_event WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.deepEqual([ev.reason, ev.message, ev.severity, ev.at.toISOString()], ['AutoHealing', request.message, 'warning', now.toISOString()]);
  assert.equal(await startRepair(t.app.services, fx.cluster.uuid, request), 'the cluster is UPDATE_IN_PROGRESS', 'not twice');
});

test('not settled (a failed update waits for its owner), or gone: why not, nothing written', async () => {
  const failed = await nodegroupCluster(t, { status: 'UPDATE_FAILED' });
  assert.equal(await startRepair(t.app.services, failed.cluster.uuid, request), 'the cluster is UPDATE_FAILED');
  assert.deepEqual(await ops(failed.cluster.uuid), []);
  assert.equal(await startRepair(t.app.services, '00000000-0000-4000-8000-000000000000', request), 'the cluster is gone');
});
