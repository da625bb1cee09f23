// Rolling replacement (workers/cluster/roll.ts) on clusters made in memory against the simulated cloud and
// Kubernetes: an upgrade replaces the control plane first, then the workers with a surge of max_batch_size, each
// new node booted from the target template and Ready before an old one goes, the old ports dropped; a cluster
// without a load balancer cannot have its control plane replaced; a CA rotation's access to the API while it rolls;
// the operations' shapes. (Through the API with a CA rotation: test/scenarios/lifecycle.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { StepFailure } from '../../../src/steps/errors.js';
import { ACCESS, kubeFor } from '../../../src/steps/kube.js';
import { observedServers } from '../../../workers/cluster/ports.js';
import { rotateCaOperation, roll, upgradeOperation } from '../../../workers/cluster/roll.js';
import { create, startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

/** A template like the cluster's, of Kubernetes `version`. */
function target(r: StepRun, version: string): string {
  const t = r.db.templates.get(r.db.clusters.get(r.uuid)!.cluster_template_id)!;
  const uuid = randomUUID();
  r.db.templates.set(uuid, { ...t, uuid, labels: { ...t.labels, kube_tag: version } });
  return uuid;
}

test('an upgrade: the control plane first, then the workers two at a time, each from the new template and Ready before an old one goes; nothing left of the old ones', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 3, template: { master_lb_enabled: true, floating_ip_enabled: false } });
  await create(r);
  const before = r.usage();
  const old = new Set((await observedServers(r.ctx)).map((s) => s.name));
  const worker = r.db.nodegroups.find((g) => g.role === 'worker')!;
  r.begin('upgrade', { cluster_template: target(r, 'v1.36.0'), nodegroup: worker.uuid, max_batch_size: 2 });
  const watch = cloud.sims.watchUsage(r.project);
  try {
    for (const step of upgradeOperation.steps) {
      r.fresh();
      await r.run(step, { timeoutMs: 180_000 });
    }
    r.fresh();
    const now = await observedServers(r.ctx);
    assert.equal(now.length, 4);
    assert.ok(now.every((s) => !old.has(s.name) && s.version === 'v1.36.0'), 'every node replaced by one of the new version');
    assert.deepEqual(r.usage(), before, 'the cluster holds what it held: the old servers, ports and members gone');
    assert.equal(watch.peak().instances - before.instances, 2, 'a surge of max_batch_size at most');
    const nodes = await (await kubeFor(r.ctx)).listNodes();
    assert.deepEqual(nodes.map((n) => n.metadata.name).sort(), now.map((s) => s.name).sort());
    const c = r.db.clusters.get(r.uuid)!.conditions;
    assert.deepEqual([c.control_plane?.status, c.workers?.status, c.addons?.status], ['True', 'True', 'True']);
    assert.deepEqual(cloud.sims.boots(r.project).repeated, []);
    // In the order Nova booted them: the control plane's replacement first.
    const booted = [...cloud.sims.nova.state.servers.values()].filter((s) => s.projectId === r.project && !old.has(s.name)).sort((a, b) => a.createdAt - b.createdAt);
    assert.equal(booted[0]?.metadata.magnum_role, 'control-plane');
  } finally {
    watch.stop();
    r.end();
  }
});

test('without an API load balancer the control plane is not replaced: a failure saying why, nothing booted', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1, template: { master_lb_enabled: false, floating_ip_enabled: false } });
  await create(r);
  const worker = r.db.nodegroups.find((g) => g.role === 'worker')!;
  const servers = r.usage().instances;
  r.begin('upgrade', { cluster_template: target(r, 'v1.36.0'), nodegroup: worker.uuid });
  await assert.rejects(r.run(roll), (e) => e instanceof StepFailure && e.reason === 'NotSupported' && e.condition === 'control_plane');
  assert.equal(r.usage().instances, servers);
  r.end();
});

test('the operations: an upgrade rolls after the server groups and applies the add-ons again; a CA rotation makes its CAs first', async () => {
  assert.deepEqual(upgradeOperation.steps.map((s) => [s.name, s.after ?? []]), [['server_groups', []], ['roll', ['server_groups']], ['addons', ['roll']]]);
  assert.deepEqual(rotateCaOperation.steps.map((s) => [s.name, s.after ?? []]), [['rotate_pki', []], ['server_groups', ['rotate_pki']], ['roll', ['server_groups']], ['addons', ['roll']]]);
  assert.equal(upgradeOperation.parallel && rotateCaOperation.parallel, true);
});

test('a CA rotation reaches the API with what the operation keeps: nothing before its new CAs are made', async () => {
  const r = await stepRun(cloud);
  const access = ACCESS.get('rotate_ca');
  assert.ok(access, 'registered');
  r.begin('rotate_ca', {});
  assert.deepEqual(await access(r.ctx), {});
});
