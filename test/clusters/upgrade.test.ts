// An upgrade (src/clusters/upgrade.ts) through planUpgrade and startUpgrade: from 1.8, one minor at a time,
// never down, each refusal Magnum's error; a non-default group only to the cluster's own template; the
// roll's peak billed; begun with from, to and the batch, the group UPDATE_IN_PROGRESS.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { planUpgrade, startUpgrade } from '../../src/clusters/upgrade.js';
import { ApiError } from '../../src/domain/errors.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { insertNodegroup, nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
const templates: Record<string, string> = {};
before(async () => {
  t = await testApp({ cloud: true, config: (c) => (c.limits.maxNodeCount = 10) });
  for (const [name, tag] of [['k134', 'v1.34.1'], ['k135', 'v1.35.9'], ['k136', 'v1.36.0'], ['bad', 'banana'], ['none', '']] as const) {
    const labels = tag ? { kube_tag: tag } : { foo: 'bar' };
    const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', labels } });
    assert.equal(r.statusCode, 201, r.body);
    templates[name] = r.json().uuid;
  }
});
after(() => t.close());

const V = (minor: number) => ({ major: 1, minor });
const is = (status: number, message: string | RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));

test('planned to the next minor: the peak of the roll billed; begun with from, to and the batch', async () => {
  const fx = await nodegroupCluster(t, { labels: { kube_tag: 'v1.35.2' } });
  const plan = await planUpgrade(t.app.services, await callerOf(t, 'demo'), fx.cluster, { cluster_template: 'k136', max_batch_size: 3 }, V(14));
  assert.deepEqual([plan.from, plan.to, plan.batch, plan.ng.uuid, plan.target.uuid], ['v1.35.2', 'v1.36.0', 3, fx.worker.uuid, templates.k136]);
  assert.equal(plan.bill.lines.find((l) => l.quota === 'instances')!.needed, 1, 'one control plane, or the one worker: one node at the peak');
  const after = await startUpgrade(t.app.services, fx.cluster, plan);
  assert.equal(after.status, 'UPDATE_IN_PROGRESS');
  const [op] = await t.app.services.db.query(`SELECT kind, params FROM operation WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.deepEqual([op.kind, op.params], ['upgrade', { cluster_template: templates.k136, nodegroup: fx.worker.uuid, max_batch_size: 3, from: 'v1.35.2', to: 'v1.36.0' }]);
  const [ng] = await t.app.services.db.query(`SELECT status FROM nodegroup WHERE uuid = $1`, [fx.worker.uuid]);
  assert.equal(ng.status, 'UPDATE_IN_PROGRESS');
});

test('each refusal is Magnum’s error', async () => {
  const fx = await nodegroupCluster(t, { labels: { kube_tag: 'v1.35.2' } });
  const demo = await callerOf(t, 'demo');
  const plan = (cluster_template: string, minor = 14, extra: Record<string, unknown> = {}, who = demo) => planUpgrade(t.app.services, who, fx.cluster, { cluster_template, ...extra }, V(minor));
  await assert.rejects(plan('k136', 7), is(400, 'Cluster upgrade is not supported in the provided microversion.'));
  await assert.rejects(plan('k136', 14, { max_batch_size: 11 }), is(400, /^Invalid input for field\/attribute max_batch_size\. Value: '11'\. Value should be lower or equal to 10$/));
  await assert.rejects(plan('k136', 14, {}, await callerOf(t, 'demo-reader')), is(403, "Policy doesn't allow cluster:upgrade to be performed."));
  await assert.rejects(plan('ghost'), is(404, 'ClusterTemplate ghost could not be found.'));
  await assert.rejects(plan('k134'), is(400, 'Received invalid tag for kube_tag.'));
  await assert.rejects(plan('none'), is(409, /^Cluster Template is not valid for upgrade: The template sets none of the labels/));
  await assert.rejects(plan('bad'), is(400, /^Invalid input for label kube_tag\. Value: 'banana'\./));
  await assert.rejects(plan('k136', 14, { nodegroup: 'ghost' }), is(404, 'Nodegroup ghost could not be found.'));
  const pool = await insertNodegroup(t, fx, { name: 'pool' });
  await assert.rejects(plan('k136', 14, { nodegroup: pool.name }), is(409, new RegExp(`^Cluster Template is not valid for upgrade: Nodegroup pool can be upgraded only to match cluster's template \\(${fx.cluster.cluster_template_id}\\)\\.$`)));
});

test('a skipped minor is refused naming the versions it may reach', async () => {
  const fx = await nodegroupCluster(t, { labels: { kube_tag: 'v1.34.1' } });
  await t.app.services.db.query(`UPDATE cluster SET coe_version = 'v1.34.1' WHERE uuid = $1`, [fx.cluster.uuid]);
  await assert.rejects(planUpgrade(t.app.services, await callerOf(t, 'demo'), { ...fx.cluster, coe_version: 'v1.34.1' }, { cluster_template: 'k136' }, V(14)), is(409, /skips a minor version: upgrade to 1\.35\.x first \(from v1\.34\.1 a cluster can upgrade to 1\.34\.x or 1\.35\.x\)/));
});

test('a non-default group runs its own version: it follows the cluster to the cluster’s template', async () => {
  const fx = await nodegroupCluster(t, { labels: { kube_tag: 'v1.35.2' } });
  const pool = await insertNodegroup(t, fx, { name: 'lagging', version: 'v1.34.9' });
  const plan = await planUpgrade(t.app.services, await callerOf(t, 'demo'), fx.cluster, { cluster_template: fx.cluster.cluster_template_id, nodegroup: 'lagging' }, V(14));
  assert.deepEqual([plan.ng.uuid, plan.from, plan.to, plan.batch], [pool.uuid, 'v1.34.9', 'v1.35.2', 1]);
});

test('a cluster with neither an API load balancer nor a floating IP: its control plane cannot be upgraded, refused at the request naming why (issue 27 item 2); its other groups can', async () => {
  const fx = await nodegroupCluster(t, { labels: { kube_tag: 'v1.35.2' } });
  await t.app.services.db.query(`UPDATE cluster SET master_lb_enabled = false, floating_ip_enabled = false WHERE uuid = $1`, [fx.cluster.uuid]);
  const fixed = { ...fx.cluster, master_lb_enabled: false, floating_ip_enabled: false };
  const demo = await callerOf(t, 'demo');
  await assert.rejects(planUpgrade(t.app.services, demo, fixed, { cluster_template: 'k136' }, V(14)), is(400, /^The control plane of this cluster cannot be upgraded: the cluster has neither an API load balancer \(master_lb_enabled\) nor a floating IP .*Create a cluster with master_lb_enabled or a floating IP/));
  const [op] = await t.app.services.db.query(`SELECT count(*)::int AS n FROM operation WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.equal(op.n, 0, 'nothing written');
  // with its floating IP (the fixture's default) the same cluster's control plane is replaceable
  const plan = await planUpgrade(t.app.services, demo, { ...fixed, floating_ip_enabled: true }, { cluster_template: 'k136' }, V(14));
  assert.equal(plan.to, 'v1.36.0');
});
