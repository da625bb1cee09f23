// A cluster's delete (src/clusters/delete.ts) through startDelete: the caller's policy (bays by their own
// rule), then in any state the delete begins: every node group DELETE_IN_PROGRESS, the operation and its
// event written; a second delete while one runs is the same delete; a cluster gone meanwhile is no error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDelete } from '../../src/clusters/delete.js';
import { ApiError } from '../../src/domain/errors.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

const ops = (uuid: string) => t.app.services.db.query(`SELECT kind, state FROM operation WHERE cluster_id = $1`, [uuid]) as Promise<{ kind: string; state: string }[]>;
const groups = (uuid: string) => t.app.services.db.query(`SELECT status FROM nodegroup WHERE cluster_id = $1`, [uuid]) as Promise<{ status: string }[]>;

test('begins in any state: the groups deleting, one operation, its event; a second delete joins it', async () => {
  const fx = await nodegroupCluster(t, { status: 'CREATE_IN_PROGRESS' });
  const demo = await callerOf(t, 'demo');
  await startDelete(t.app.services, demo, fx.cluster, 'cluster');
  const [op, ...more] = await ops(fx.cluster.uuid);
  assert.deepEqual([op?.kind, more.length], ['delete', 0]);
  assert.ok(['pending', 'queued'].includes(op!.state), `${op!.state}: written, the relay may already have queued it`);
  assert.ok((await groups(fx.cluster.uuid)).every((g) => g.status === 'DELETE_IN_PROGRESS'));
  const [row] = await t.app.services.db.query(`SELECT status FROM cluster WHERE uuid = $1`, [fx.cluster.uuid]);
  assert.equal(row.status, 'DELETE_IN_PROGRESS');
  const [ev] = await t.app.services.db.query(`SELECT reason FROM cluster_event WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.equal(ev.reason, 'DeleteAccepted');
  await startDelete(t.app.services, demo, fx.cluster, 'cluster');
  assert.equal((await ops(fx.cluster.uuid)).length, 1, 'the same delete');
});

test('the policy first: a reader may not delete, by the cluster’s or the bay’s rule; nothing is written', async () => {
  const fx = await nodegroupCluster(t);
  const reader = await callerOf(t, 'demo-reader');
  await assert.rejects(startDelete(t.app.services, reader, fx.cluster, 'cluster'), (e: unknown) => e instanceof ApiError && e.message === "Policy doesn't allow cluster:delete to be performed.");
  await assert.rejects(startDelete(t.app.services, reader, fx.cluster, 'bay'), (e: unknown) => e instanceof ApiError && e.message === "Policy doesn't allow bay:delete to be performed.");
  assert.deepEqual(await ops(fx.cluster.uuid), []);
});

test('a cluster gone meanwhile: nothing to do, no error', async () => {
  const fx = await nodegroupCluster(t);
  await t.app.services.db.query(`DELETE FROM cluster WHERE uuid = $1`, [fx.cluster.uuid]);
  await startDelete(t.app.services, await callerOf(t, 'demo'), fx.cluster, 'cluster');
  assert.deepEqual(await ops(fx.cluster.uuid), []);
});
