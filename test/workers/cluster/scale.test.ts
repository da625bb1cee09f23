// Node changes after the create (workers/cluster/scale.ts), on a cluster made in memory against the simulated
// cloud and its simulated Kubernetes: a resize up boots the new node with the operation's join token (registered
// in the cluster, removed once the nodes are Ready); a resize down drains the named node, deletes its Node, its
// server, then its port; what a resize retires (named nodes, else the newest beyond node_count; on the way back,
// those it booted); a node group's delete taking its servers and its server group; the operations' shapes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { NodeGroupRow } from '../../../src/db/entities/nodegroup.js';
import type { OperationKind } from '../../../src/domain/operations.js';
import type { Server } from '../../../src/openstack/nova-servers.js';
import { StepFailure, Wait } from '../../../src/steps/errors.js';
import { kubeFor } from '../../../src/steps/kube.js';
import type { Step } from '../../../src/steps/step.js';
import { RETIRING, observedServers, plannedNodes, type ObservedServer } from '../../../workers/cluster/ports.js';
import {
  dropJoinToken, ensureJoinToken, NODE_STEPS, nodegroupCreateOperation, nodegroupDeleteOperation, nodegroupUpdateOperation, removeServer, resizeOperation, updateOperation,
} from '../../../workers/cluster/scale.js';
import { bootstrapToken, MAX_SERVER_REPLACEMENTS } from '../../../workers/cluster/servers.js';
import { audited, create, recordedOf, startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

/** The cluster's operation becomes `kind` with `params`: a run of it, each of `steps` to its end. */
async function operate(r: StepRun, kind: string, params: Record<string, unknown>, steps: readonly Step[]): Promise<void> {
  r.begin(kind as OperationKind, params);
  for (const step of steps) {
    r.fresh();
    await r.run(step, { timeoutMs: 120_000 });
  }
  r.fresh();
}

const workerGroup = (r: StepRun): NodeGroupRow => r.db.nodegroups.find((g) => g.role === 'worker' && g.is_default)!;
const names = async (r: StepRun, group: string) => (await observedServers(r.ctx)).filter((s) => s.nodegroup === group).map((s) => s.name).sort();

test('a resize up boots the new node with the operation\'s join token, which goes once the nodes are Ready; down removes the named node, its Node, server and port', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1, template: { floating_ip_enabled: true } });
  await create(r);
  const g = workerGroup(r);
  const before = await names(r, g.uuid);
  g.node_count = 2;
  await operate(r, 'resize', { nodegroup: g.uuid }, NODE_STEPS.filter((s) => s.name !== 'nodes_ready'));
  const kube = await kubeFor(r.ctx);
  const [id] = bootstrapToken(r.ctx).split('.');
  const secret = await kube.get('v1', 'Secret', 'kube-system', `bootstrap-token-${id}`);
  assert.equal(secret?.type, 'bootstrap.kubernetes.io/token', 'the join token is in the cluster while nodes join');
  await r.run(NODE_STEPS.find((s) => s.name === 'nodes_ready')!, { timeoutMs: 120_000 });
  r.fresh();
  assert.equal(await (await kubeFor(r.ctx)).get('v1', 'Secret', 'kube-system', `bootstrap-token-${id}`), undefined, 'removed once Ready');
  const grown = await names(r, g.uuid);
  assert.equal(grown.length, 2);
  const added = grown.find((n) => !before.includes(n))!;
  assert.ok((await (await kubeFor(r.ctx)).listNodes()).some((n) => n.metadata.name === added), 'the new node joined');
  assert.equal(r.db.clusters.get(r.uuid)!.conditions.workers?.status, 'True');

  // Down by one, naming the first node: drained, its Node, server, floating IP and port gone; the new one stays.
  const [gone] = before;
  const port = (await recordedOf(r, 'port')).find(([name]) => name === gone)![1];
  g.node_count = 1;
  await operate(r, 'resize', { nodegroup: g.uuid, nodes_to_remove: [gone] }, NODE_STEPS);
  assert.deepEqual(await names(r, g.uuid), [added]);
  assert.ok(!(await (await kubeFor(r.ctx)).listNodes()).some((n) => n.metadata.name === gone), 'its Node deleted');
  assert.ok(!audited(r, 'port').includes(port), 'its port deleted once the server was gone');
  assert.ok(!(await recordedOf(r, 'floatingip')).some(([name]) => name === gone), 'its floating IP with it');
  assert.deepEqual(cloud.sims.boots(r.project).repeated, []);
  r.end();
});

test('what a resize retires: the named nodes (by name or id), else the newest beyond node_count; rolling back, those it booted; a node group delete, all of its group', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 3 });
  const g = workerGroup(r);
  const s = (name: string, created: string, nodegroup = g.uuid): ObservedServer => ({
    server: { id: `id-${name}`, name, created, status: 'ACTIVE' } as unknown as Server, name, nodegroup, role: 'worker', version: 'v1.35.1', caGeneration: 1, index: 0,
  });
  const servers = [s('a', '2026-01-01T00:00:00Z'), s('b', '2026-01-02T00:00:00Z'), s('c', '2026-01-03T00:00:00Z'), s('other', '2026-01-04T00:00:00Z', 'other-group')];
  const retired = async (kind: string, params: Record<string, unknown>, count: number) => {
    g.node_count = count;
    r.begin(kind as OperationKind, params);
    r.memos.set('servers', Promise.resolve(servers));
    const pick = await RETIRING.get(kind)!(r.ctx);
    return servers.filter(pick).map((x) => x.name);
  };
  assert.deepEqual(await retired('resize', { nodegroup: g.uuid }, 2), ['c'], 'the newest beyond the count');
  assert.deepEqual(await retired('resize', { nodegroup: g.uuid, nodes_to_remove: ['A'] }, 2), ['a'], 'a named one (any case)');
  assert.deepEqual(await retired('update', { nodegroup: g.uuid, nodes_to_remove: ['id-b'] }, 1), ['b', 'c'], 'by id, and the newest for the rest');
  assert.deepEqual(await retired('resize', { nodegroup: g.uuid }, 3), []);
  assert.deepEqual(await retired('resize', { nodegroup: g.uuid, rolling_back: { reason: 'X', message: 'y', booted: ['b'] }, nodes_to_remove: ['a'] }, 3), ['b'], 'rolling back: what it booted');
  assert.deepEqual(await retired('nodegroup_delete', { nodegroup: g.uuid }, 3), ['a', 'b', 'c']);
});

test('a node group\'s delete takes its servers and its server group; the others stay', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1, groups: [{ name: 'extra', count: 1 }] });
  await create(r);
  const extra = r.db.nodegroups.find((g) => g.name === 'extra')!;
  const groups = r.usage().server_groups;
  await operate(r, 'nodegroup_delete', { nodegroup: extra.uuid }, nodegroupDeleteOperation.steps);
  assert.deepEqual(await names(r, extra.uuid), []);
  assert.equal((await observedServers(r.ctx)).length, 2);
  assert.equal(r.usage().server_groups, groups - 1);
  assert.ok(!(await recordedOf(r, 'server_group')).some(([name]) => name!.endsWith('-extra')));
  r.end();
});

test('removeServer deletes the server and waits; the join token can be dropped twice', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r);
  const worker = (await observedServers(r.ctx)).find((s) => s.role === 'worker')!;
  await assert.rejects(removeServer(r.ctx, worker), (e) => e instanceof Wait && e.why === `server ${worker.name} being deleted`);
  await assert.rejects(removeServer(r.ctx, worker), Wait, 'again: a 404 or 409 is no error');
  const kube = await kubeFor(r.ctx);
  await ensureJoinToken(r.ctx, kube);
  await dropJoinToken(r.ctx, kube);
  await dropJoinToken(r.ctx, kube);
  r.end();
});

test('the operations: resize and update turn back on a failure, a node group create does not; a node group update changes nothing in the cloud', () => {
  assert.deepEqual(NODE_STEPS.map((s) => s.name), ['server_groups', 'scale_down', 'ports', 'join_token', 'scale_up', 'nodes_ready']);
  assert.equal(NODE_STEPS.find((s) => s.name === 'ports')!.after!.length, 0, 'ports do not wait for the network a resize has');
  for (const op of [resizeOperation, updateOperation]) assert.equal(typeof op.rollback, 'function', op.kind);
  assert.equal(nodegroupCreateOperation.rollback, undefined);
  assert.deepEqual(nodegroupUpdateOperation.steps, []);
  assert.deepEqual(nodegroupDeleteOperation.steps.map((s) => s.name), ['scale_down', 'server_group']);
});

// ---- a resize's new server in ERROR: seen at the next look, booted again as the create's, then a failure ----

/** Each of `list` to its end, in the operation begun (its names are planned from its id). */
async function steps(r: StepRun, list: readonly Step[]): Promise<void> {
  for (const step of list) {
    r.fresh();
    await r.run(step, { timeoutMs: 120_000 });
  }
  r.fresh();
}

test('a resize whose new server goes to ERROR boots it again (its condition naming it and Nova\'s fault); one that keeps going fails after the bounded replacements', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r);
  const g = workerGroup(r);
  g.node_count = 2;
  r.begin('resize', { nodegroup: g.uuid });
  const [added] = await plannedNodes(r.ctx);
  const once = cloud.sims.nova.state.failBuilds({ name: added!.name, times: 1 });
  try {
    await steps(r, NODE_STEPS);
  } finally {
    once();
  }
  const replacing = r.recorded.conditions.find((c) => c.type === 'workers' && c.reason === 'ReplacingServer');
  assert.match(replacing?.message ?? '', new RegExp(`^Server ${added!.name} \\(\\S+\\) is in ERROR: No valid host was found.* Booting it again \\(1 of ${MAX_SERVER_REPLACEMENTS}\\)\\.$`));
  assert.deepEqual((await observedServers(r.ctx)).filter((s) => s.name === added!.name).map((s) => s.server.status), ['ACTIVE']);
  assert.equal(r.db.clusters.get(r.uuid)!.conditions.workers?.status, 'True');

  g.node_count = 3;
  r.begin('resize', { nodegroup: g.uuid });
  const [third] = await plannedNodes(r.ctx);
  const always = cloud.sims.nova.state.failBuilds({ name: third!.name });
  try {
    await assert.rejects(steps(r, NODE_STEPS), (e) => {
      assert.ok(e instanceof StepFailure, String(e));
      assert.equal(e.reason, 'NoValidHost');
      assert.match(e.message, new RegExp(`^Server ${third!.name} \\(\\S+\\) is in ERROR: No valid host was found.*\\(its node was booted ${MAX_SERVER_REPLACEMENTS + 1} times\\)$`));
      return true;
    });
  } finally {
    always();
  }
});
