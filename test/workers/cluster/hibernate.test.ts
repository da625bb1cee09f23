// Hibernate and wake's server steps (workers/cluster/hibernate.ts), with an in-memory run context against the
// simulated Nova: the workers shelved before the control planes, each until SHELVED_OFFLOADED; a run that stopped
// after asking Nova goes on from what Nova shows (no second shelve, no failure on Nova's 409); the steps are
// ensures (done again, nothing happens); wake unshelves onto the same ports; a server in ERROR ends the step
// naming it and Nova's fault. The whole cycle with Kubernetes coming back: test/scenarios/hibernation.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { statusOf } from '../../../cloudsim/nova/servers.js';
import { StepFailure, Wait } from '../../../src/steps/errors.js';
import type { Step } from '../../../src/steps/step.js';
import { hibernateOperation, wakeOperation } from '../../../workers/cluster/hibernate.js';
import { create, startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const step = (steps: readonly Step[], name: string): Step => steps.find((s) => s.name === name)!;

/** The cluster's servers in the simulated Nova: name → status, host and the ids of its ports. */
function novaView(r: StepRun): Map<string, { id: string; status: string; host: string | null; ports: string[] }> {
  const out = new Map<string, { id: string; status: string; host: string | null; ports: string[] }>();
  for (const s of cloud.sims.nova.state.servers.values()) {
    if (s.metadata['magnum-cluster'] !== r.uuid && !(s.tags ?? []).some((t) => t.includes(r.uuid))) continue;
    if (s.vmState === 'deleted') continue;
    const ports = [...cloud.sims.neutron.state.ports.values()].filter((p) => p.deviceId === s.id).map((p) => p.id).sort();
    out.set(s.name, { id: s.id, status: statusOf(s), host: s.host, ports });
  }
  return out;
}

test('hibernate shelves the workers, then the control planes, to SHELVED_OFFLOADED; a stopped run goes on from Nova; wake brings them back on their ports', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 2 });
  await create(r, 'servers_active');
  const before = novaView(r);
  assert.equal(before.size, 3);
  assert.ok([...before.values()].every((s) => s.status === 'ACTIVE' && s.host));

  r.begin('hibernate');
  const workers = step(hibernateOperation.steps, 'hibernate_workers');
  const planes = step(hibernateOperation.steps, 'hibernate_control_plane');
  assert.deepEqual(planes.after, ['hibernate_workers'], 'the control planes only after the workers');
  await assert.rejects(r.once(workers), Wait, 'asked Nova, then waits');
  r.fresh(); // a new run, as after a crash: the shelves already asked for are not asked again
  await r.run(workers, { timeoutMs: 60_000 });
  let now = novaView(r);
  for (const [name, s] of now) {
    if (name.includes('worker')) assert.deepEqual([s.status, s.host], ['SHELVED_OFFLOADED', null], name);
    else assert.equal(s.status, 'ACTIVE', `${name}: the control plane waits for the workers`);
  }
  assert.match(r.ctx.cluster.conditions.workers?.reason ?? '', /^Hibernated$/);
  await r.run(planes, { timeoutMs: 60_000 });
  now = novaView(r);
  assert.ok([...now.values()].every((s) => s.status === 'SHELVED_OFFLOADED'), JSON.stringify([...now]));
  const runs = await r.run(workers);
  assert.equal(runs.runs, 1, 'done again: one look, nothing asked');

  r.begin('wake');
  await r.run(step(wakeOperation.steps, 'wake_control_plane'), { timeoutMs: 60_000 });
  await r.run(step(wakeOperation.steps, 'wake_workers'), { timeoutMs: 60_000 });
  const woken = novaView(r);
  for (const [name, s] of woken) {
    assert.equal(s.status, 'ACTIVE', name);
    assert.ok(s.host, `${name} placed on a host again`);
    assert.equal(s.id, before.get(name)!.id, `${name}: the same server`);
    assert.deepEqual(s.ports, before.get(name)!.ports, `${name}: the same ports`);
  }
});

test('a server in ERROR ends the step, naming it and Nova\'s fault', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r, 'servers_active');
  const worker = [...novaView(r)].find(([name]) => name.includes('worker'))!;
  const s = cloud.sims.nova.state.servers.get(worker[1].id)!;
  Object.assign(s, { vmState: 'error', taskState: null, fault: { code: 500, message: 'Host lost', details: '', created: new Date().toISOString() } });
  r.begin('hibernate');
  await assert.rejects(r.run(step(hibernateOperation.steps, 'hibernate_workers')), (e: unknown) =>
    e instanceof StepFailure && e.reason === 'ServerError' && e.message.includes(worker[0]) && e.message.includes('Host lost'));
});
