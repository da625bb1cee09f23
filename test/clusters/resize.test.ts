// A resize (src/clusters/resize.ts) against the simulated cloud: planResize checks in Magnum's order (the
// deployment's maximum, 0 below 1.10, the policy, the group: default worker or named, never a master,
// within min and max) and bills what the new size adds; startResize refuses a shortage, else begins it with
// the group's new count; startServiceResize is the autoscaler's, only where the service may act.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { planResize, startResize, startServiceResize } from '../../src/clusters/resize.js';
import { ApiError } from '../../src/domain/errors.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { insertNodegroup, nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp({ cloud: true, config: (c) => (c.limits.maxNodeCount = 20) });
});
after(() => t.close());

const V = (minor: number) => ({ major: 1, minor });
const is = (status: number, message: string | RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));
const needed = (lines: { quota: string; needed: number }[], q: string) => lines.find((l) => l.quota === q)!.needed;

test('the default worker grows: the bill is the nodes added; begun with the new count, the previous one and what to remove', async () => {
  const fx = await nodegroupCluster(t);
  const demo = await callerOf(t, 'demo');
  const plan = await planResize(t.app.services, demo, fx.cluster, { node_count: 3, nodes_to_remove: ['n-1'] }, V(14));
  assert.equal(plan.ng.uuid, fx.worker.uuid);
  assert.deepEqual([needed(plan.bill.lines, 'instances'), needed(plan.bill.lines, 'cores'), needed(plan.bill.lines, 'floatingip')], [2, 2, 2]);
  const after = await startResize(t.app.services, fx.cluster, plan);
  assert.equal(after.status, 'UPDATE_IN_PROGRESS');
  const [op] = await t.app.services.db.query(`SELECT kind, params FROM operation WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.deepEqual([op.kind, op.params], ['resize', { nodegroup: fx.worker.uuid, node_count: 3, previous_node_count: 1, nodes_to_remove: ['n-1'] }]);
  const [ng] = await t.app.services.db.query(`SELECT node_count, status FROM nodegroup WHERE uuid = $1`, [fx.worker.uuid]);
  assert.deepEqual([ng.node_count, ng.status], [3, 'UPDATE_IN_PROGRESS']);
});

test('a shrink bills nothing and asks the cloud nothing; a PATCH’s resize is an update with its extras', async () => {
  const fx = await nodegroupCluster(t);
  await t.app.services.db.query(`UPDATE nodegroup SET node_count = 3 WHERE uuid = $1`, [fx.worker.uuid]);
  const plan = await planResize(t.app.services, await callerOf(t, 'demo'), fx.cluster, { node_count: 1 }, V(14));
  assert.ok(plan.bill.lines.every((l) => l.needed === 0 && l.limit === null));
  await startResize(t.app.services, fx.cluster, plan, 'update', { rollback: true });
  const [op] = await t.app.services.db.query(`SELECT kind, params FROM operation WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.deepEqual([op.kind, op.params.rollback, op.params.previous_node_count], ['update', true, 3]);
});

test('the checks in order: the maximum, 0 below 1.10, the policy, the group, its range', async () => {
  const fx = await nodegroupCluster(t);
  const demo = await callerOf(t, 'demo');
  const plan = (body: { node_count: number; nodegroup?: string }, minor = 14, who = demo) => planResize(t.app.services, who, fx.cluster, body, V(minor));
  await assert.rejects(plan({ node_count: 21 }), is(400, "Invalid input for field/attribute node_count. Value: '21'. Value should be lower or equal to 20"));
  await assert.rejects(plan({ node_count: 0 }, 9), is(400, 'Resizing a nodegroup to zero is not supported in the provided microversion.'));
  await assert.rejects(plan({ node_count: 2 }, 14, await callerOf(t, 'demo-reader')), is(403, "Policy doesn't allow cluster:resize to be performed."));
  await assert.rejects(plan({ node_count: 2, nodegroup: 'default-master' }), is(400, 'Resizing a master nodegroup is not supported.'));
  await assert.rejects(plan({ node_count: 2, nodegroup: 'ghost' }), is(404, 'Nodegroup ghost could not be found.'));
  const bounded = await insertNodegroup(t, fx, { name: 'bounded', node_count: 2, min_node_count: 1, max_node_count: 3 });
  await assert.rejects(plan({ node_count: 4, nodegroup: bounded.name }), is(400, 'Resizing bounded outside the allowed range: min_node_count = 1, max_node_count = 3'));
  await assert.rejects(plan({ node_count: 0, nodegroup: bounded.uuid }), is(400, /outside the allowed range: min_node_count = 1, max_node_count = 3$/));
  assert.equal((await plan({ node_count: 0 }, 10)).count, 0, 'zero from 1.10');
});

test('a growth the quotas cannot hold: the 403 naming the quota; nothing written', async () => {
  const fx = await nodegroupCluster(t);
  const project = t.keystone.state.projectId('demo');
  t.cloud!.nova.setQuota(project, { cores: 1 });
  try {
    const plan = await planResize(t.app.services, await callerOf(t, 'demo'), fx.cluster, { node_count: 5 }, V(14));
    await assert.rejects(startResize(t.app.services, fx.cluster, plan), is(403, /cores: needed 4, in use \d+, (held by accepted operations \d+, )?limit 1/));
  } finally {
    t.cloud!.nova.quotas.delete(project);
  }
  assert.deepEqual(await t.app.services.db.query(`SELECT id FROM operation WHERE cluster_id = $1`, [fx.cluster.uuid]), []);
});

test('the autoscaler’s resize: queued on a settled cluster with a warning event; else why not', async () => {
  const fx = await nodegroupCluster(t);
  const why = { reason: 'ScaleUp', message: '3 pods pending' };
  assert.equal(await startServiceResize(t.app.services, fx.cluster.uuid, fx.worker, 2, [], why), undefined);
  const [ev] = await t.app.services.db.query(`SELECT reason, severity FROM cluster_event WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.deepEqual([ev.reason, ev.severity], ['ScaleUp', 'warning']);
  assert.equal(await startServiceResize(t.app.services, fx.cluster.uuid, fx.worker, 3, [], why), 'the cluster is UPDATE_IN_PROGRESS');
  const failed = await nodegroupCluster(t, { status: 'UPDATE_FAILED' });
  assert.equal(await startServiceResize(t.app.services, failed.cluster.uuid, failed.worker, 2, [], why), 'the cluster is UPDATE_FAILED');
});
