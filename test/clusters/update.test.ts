// A cluster PATCH (src/clusters/update.ts) through startUpdate: the policy before the patch is evaluated;
// only node_count (a resize of the default worker group, as an update) and, for clusters, the health fields
// may change; the health fields are written at once, without an operation; Magnum's errors for the rest.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startUpdate } from '../../src/clusters/update.js';
import { ApiError } from '../../src/domain/errors.js';
import type { PatchOp } from '../../src/domain/json-patch.js';
import { passwordToken, testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp({ config: (c) => (c.limits.maxNodeCount = 10) });
});
after(() => t.close());

const V = (minor: number) => ({ major: 1, minor });
const is = (status: number, message: string | RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));
const ops = (uuid: string) => t.app.services.db.query(`SELECT kind, params FROM operation WHERE cluster_id = $1`, [uuid]) as Promise<{ kind: string; params: Record<string, unknown> }[]>;
const replace = (path: string, value: unknown): PatchOp[] => [{ op: 'replace', path, value }];

test('node_count: an update of the default worker group, billed and begun, the rollback asked recorded', async () => {
  const fx = await nodegroupCluster(t);
  const after = await startUpdate(t.app.services, await callerOf(t, 'demo'), fx.cluster, replace('/node_count', '3'), V(14), 'cluster', true);
  assert.equal(after.status, 'UPDATE_IN_PROGRESS');
  assert.deepEqual(await ops(fx.cluster.uuid), [{ kind: 'update', params: { nodegroup: fx.worker.uuid, node_count: 3, previous_node_count: 1, nodes_to_remove: [], rollback: true } }]);
});

test('health fields alone: written at once in any state, no operation; the Python dict of the client read', async () => {
  const fx = await nodegroupCluster(t, { status: 'CREATE_IN_PROGRESS' });
  const patch: PatchOp[] = [...replace('/health_status', 'UNHEALTHY'), ...replace('/health_status_reason', "{'api': 'down', 'n': 1}")];
  const after = await startUpdate(t.app.services, await callerOf(t, 'demo'), fx.cluster, patch, V(14), 'cluster', false);
  assert.deepEqual([after.health_status, after.health_status_reason, after.status], ['UNHEALTHY', { api: 'down', n: '1' }, 'CREATE_IN_PROGRESS']);
  assert.deepEqual(await ops(fx.cluster.uuid), []);
  const [row] = await t.app.services.db.query(`SELECT health_status, health_status_reason FROM cluster WHERE uuid = $1`, [fx.cluster.uuid]);
  assert.deepEqual([row.health_status, row.health_status_reason], ['UNHEALTHY', { api: 'down', n: '1' }]);
  await assert.rejects(startUpdate(t.app.services, await callerOf(t, 'demo'), fx.cluster, replace('/health_status', 'SICK'), V(14), 'cluster', false), is(400, /^Invalid input for field\/attribute health_status\. Value: 'SICK'\. Value should be one of: HEALTHY, UNHEALTHY, UNKNOWN$/));
});

test('a patch that changes nothing answers the cluster as it is; other fields are named in Magnum’s 400', async () => {
  const fx = await nodegroupCluster(t);
  const demo = await callerOf(t, 'demo');
  assert.equal(await startUpdate(t.app.services, demo, fx.cluster, replace('/node_count', 1), V(14), 'cluster', false), fx.cluster);
  await assert.rejects(startUpdate(t.app.services, demo, fx.cluster, [...replace('/name', 'x'), ...replace('/flavor_id', 'y')], V(14), 'cluster', false), is(400, 'cannot change cluster property(ies) name, flavor_id.'));
  await assert.rejects(startUpdate(t.app.services, demo, fx.cluster, replace('/stack_id', 'x'), V(14), 'cluster', false), is(400, "'/stack_id' is an internal attribute and can not be updated"));
  await assert.rejects(startUpdate(t.app.services, demo, fx.cluster, replace('/health_status', 'HEALTHY'), V(14), 'bay', false), is(400, /can't replace a non-existent object 'health_status'/), 'a bay has no health fields');
  assert.deepEqual(await ops(fx.cluster.uuid), []);
});

test('node_count’s checks: a number of nodes, the maximum, 0 only from 1.10 and never for bays', async () => {
  const fx = await nodegroupCluster(t);
  const demo = await callerOf(t, 'demo');
  const update = (value: unknown, minor = 14, flavor: 'cluster' | 'bay' = 'cluster') => startUpdate(t.app.services, demo, fx.cluster, replace('/node_count', value), V(minor), flavor, false);
  await assert.rejects(update('many'), is(400, "Invalid input for field/attribute node_count. Value: 'many'. Value should be greater or equal to 0"));
  await assert.rejects(update(-1), is(400, /Value should be greater or equal to 0$/));
  await assert.rejects(update(11), is(400, /Value should be lower or equal to 10$/));
  await assert.rejects(update(0, 9), is(400, 'Resizing a nodegroup to zero is not supported in the provided microversion.'));
  await assert.rejects(update(0, 10, 'bay'), is(400, 'Resizing a nodegroup to zero is not supported in the provided microversion.'));
  assert.deepEqual(await ops(fx.cluster.uuid), []);
});

test('the policy before the patch: a reader is refused whatever it asks; a colleague may resize but not report health', async () => {
  const fx = await nodegroupCluster(t);
  const reader = await callerOf(t, 'demo-reader');
  await assert.rejects(startUpdate(t.app.services, reader, fx.cluster, [{ op: 'add', path: '/__proto__/x', value: 1 }], V(14), 'cluster', false), is(403, "Policy doesn't allow cluster:update to be performed."));
  await assert.rejects(startUpdate(t.app.services, reader, fx.cluster, replace('/node_count', 2), V(14), 'bay', false), is(403, "Policy doesn't allow bay:update to be performed."));
  const state = t.keystone.state;
  const colleague = state.createUser('colleague', 'colleague-secret', state.projectId('demo'));
  state.assignRole(colleague, state.projectId('demo'), 'member');
  const token = await passwordToken(t.keystone, 'colleague', 'colleague-secret', 'demo');
  const who = { ctx: await t.app.services.validator.validate(token), token };
  await assert.rejects(startUpdate(t.app.services, who, fx.cluster, replace('/health_status', 'HEALTHY'), V(14), 'cluster', false), is(403, "Policy doesn't allow cluster:update_health_status to be performed."));
  assert.equal((await startUpdate(t.app.services, who, fx.cluster, replace('/node_count', 2), V(14), 'cluster', false)).status, 'UPDATE_IN_PROGRESS');
});
