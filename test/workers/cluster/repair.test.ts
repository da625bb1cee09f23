// The repair operation (workers/cluster/repair.ts) on a cluster made in memory against the simulated cloud and
// Kubernetes: the unhealthy workers it names retire while replacements boot, a worker lost behind our back is
// replaced, and the Node a vanished server left is deleted; control planes are never planned; what it retires
// is exactly the servers it names.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Server } from '../../../src/openstack/nova-servers.js';
import { kubeFor } from '../../../src/steps/kube.js';
import { observedServers, plannedNodes, RETIRING, type ObservedServer } from '../../../workers/cluster/ports.js';
import { repairOperation } from '../../../workers/cluster/repair.js';
import { NODE_STEPS } from '../../../workers/cluster/scale.js';
import { create, startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

test('the operation: the node steps and the stale Nodes, in parallel', () => {
  assert.deepEqual(repairOperation.steps.map((s) => s.name), [...NODE_STEPS.map((s) => s.name), 'stale_nodes']);
  assert.equal(repairOperation.parallel, true);
  assert.equal(repairOperation.kind, 'repair');
});

test('it retires exactly the servers it names, by id', async () => {
  const r = await stepRun(cloud);
  r.begin('repair', { servers: ['id-2'] });
  const s = (id: string) => ({ server: { id } as Server, name: id }) as ObservedServer;
  const pick = await RETIRING.get('repair')!(r.ctx);
  assert.deepEqual(['id-1', 'id-2', 'id-3'].map(s).filter(pick).map((x) => x.server.id), ['id-2']);
});

test('a named worker is replaced and a lost one too, the lost one\'s Node deleted; the control plane is left alone', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 2 });
  await create(r);
  const workers = (await observedServers(r.ctx)).filter((s) => s.role === 'worker');
  const cp = (await observedServers(r.ctx)).find((s) => s.role === 'init')!;
  const [sick, lost] = workers as [ObservedServer, ObservedServer];
  // Lost behind our back: its server deleted, its Node left in the cluster.
  await (await r.clients().servers()).delete(lost.server.id);
  for (let i = 0; i < 500 && (await observedServers((r.fresh(), r.ctx))).some((s) => s.name === lost.name); i++) await new Promise((res) => setTimeout(res, 10));
  r.begin('repair', { servers: [sick.server.id], stale_nodes: [lost.name] });
  assert.deepEqual((await plannedNodes(r.ctx)).map((p) => p.role), ['worker', 'worker'], 'two replacements, no control plane');
  for (const step of repairOperation.steps) {
    r.fresh();
    await r.run(step, { timeoutMs: 120_000 });
  }
  r.fresh();
  const now = await observedServers(r.ctx);
  assert.deepEqual(now.filter((s) => s.role === 'worker').length, 2);
  assert.ok(!now.some((s) => s.name === sick.name || s.name === lost.name), `both replaced: ${now.map((s) => `${s.name} ${s.server.status}`).join(', ')} (${sick.name}, ${lost.name})`);
  assert.ok(now.some((s) => s.server.id === cp.server.id), 'the control plane untouched');
  const nodes = (await (await kubeFor(r.ctx)).listNodes()).map((n) => n.metadata.name);
  assert.ok(!nodes.includes(lost.name) && !nodes.includes(sick.name), 'their Nodes deleted');
  assert.equal(nodes.length, 3);
  r.end();
});
