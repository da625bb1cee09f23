// What the steps read about their cluster (src/steps/context.ts), with an in-memory run context against the
// simulated Neutron: the template (an upgrade's target), the node groups, the spec parsed once per run with the
// groups' counts, the labels an upgrade moves to, a network or subnet by id or name, and the network the nodes
// live on — made by the network step, or fixed by network or by subnet — learnt once for the operation's runs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { clusterNet, clusterSpec, effectiveLabels, findNetwork, findSubnet, nodeGroups, template } from '../../src/steps/context.js';
import { StepFailure } from '../../src/steps/errors.js';
import { ensureNetwork } from '../../workers/cluster/network.js';
import { startStepCloud, stepRun, type StepCloud, type StepRun } from '../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

/** A second template, of Kubernetes `version`, in the run's memory. */
function another(r: StepRun, version: string): string {
  const t = r.db.templates.get(r.db.clusters.get(r.uuid)!.cluster_template_id)!;
  const uuid = randomUUID();
  r.db.templates.set(uuid, { ...t, uuid, labels: { ...t.labels, kube_tag: version } });
  return uuid;
}

test('the template: the cluster\'s, or an upgrade\'s target; the labels an upgrade moves to; a missing one fails on the network', async () => {
  const r = await stepRun(cloud, { cluster: { labels: { kube_tag: 'v1.35.1', boot_volume_size: '10' } } });
  assert.equal((await template(r.ctx)).uuid, r.ctx.cluster.cluster_template_id);
  assert.deepEqual(effectiveLabels(r.ctx, await template(r.ctx)), r.ctx.cluster.labels);
  const target = another(r, 'v1.36.0');
  r.begin('upgrade', { cluster_template: target });
  const t = await template(r.ctx);
  assert.equal(t.uuid, target);
  assert.deepEqual(effectiveLabels(r.ctx, t), { kube_tag: 'v1.36.0', boot_volume_size: '10' }, 'the cluster\'s labels with the target\'s version');
  assert.equal((await clusterSpec(r.ctx)).kubernetes.version, 'v1.36.0');
  r.db.templates.clear();
  r.fresh();
  await assert.rejects(template(r.ctx), (e) => e instanceof StepFailure && e.reason === 'NotFound' && e.condition === 'network');
});

test('the node groups and the spec, each read once per run; the spec counts the groups\' nodes', async () => {
  const r = await stepRun(cloud, { masters: 3, workers: 2, groups: [{ name: 'gpu', count: 4 }] });
  let reads = 0;
  const real = r.ctx.repos.clusters.nodegroups.bind(r.ctx.repos.clusters);
  r.ctx.repos = { ...r.ctx.repos, clusters: { ...r.ctx.repos.clusters, nodegroups: (ids: string[]) => (reads++, real(ids)) } as never };
  assert.equal((await nodeGroups(r.ctx)).length, 3);
  const spec = await clusterSpec(r.ctx);
  await clusterSpec(r.ctx);
  assert.equal(reads, 1);
  assert.equal(spec.cluster.uuid, r.uuid);
  assert.equal(spec.kubernetes.version, 'v1.35.1');
  assert.deepEqual([spec.nodes.masterCount, spec.nodes.nodeCount], [3, 6], 'every worker group\'s nodes counted');
  assert.equal(await clusterSpec(r.ctx), spec, 'the same spec within a run');
  r.fresh();
  assert.notEqual(await clusterSpec(r.ctx), spec, 'parsed again by the next run');
});

test('a network or subnet by id or by name; neither: undefined', async () => {
  const r = await stepRun(cloud);
  const n = await r.clients().neutron();
  const net = await n.networks.create({ name: 'by-name' } as never);
  const sub = await n.subnets.create({ name: 'sub-by-name', network_id: net.id, cidr: '10.8.0.0/24', ip_version: 4 } as never);
  assert.equal((await findNetwork(n, net.id))?.id, net.id);
  assert.equal((await findNetwork(n, 'by-name'))?.id, net.id);
  assert.equal(await findNetwork(n, 'no-such'), undefined);
  assert.equal((await findSubnet(n, sub.id))?.id, sub.id);
  assert.equal((await findSubnet(n, 'sub-by-name'))?.id, sub.id);
  assert.equal(await findSubnet(n, 'no-such'), undefined);
});

test('the nodes\' network: the one the network step made, learnt once for the operation; a fixed network\'s IPv4 subnet; a fixed subnet', async () => {
  const made = await stepRun(cloud);
  await made.run(ensureNetwork);
  made.fresh();
  const net = await clusterNet(made.ctx);
  const [[, subnet]] = (await made.ledger.live('subnet')).map((x) => [x.name, x.cloud_id]) as [[string, string]];
  assert.equal(net.subnetId, subnet);
  const external = (await (await made.clients().neutron()).listNetworks({ name: 'public' }))[0]!.id;
  assert.equal(net.externalNetworkId, external);
  made.ledger.forget(() => true);
  made.fresh();
  assert.equal((await clusterNet(made.ctx)).subnetId, subnet, 'kept for the operation\'s later runs (memoRuns)');

  const fixedNet = await stepRun(cloud);
  const nf = await fixedNet.clients().neutron();
  const own = await nf.networks.create({ name: 'own' } as never);
  const ownV4 = await nf.subnets.create({ name: 'own-v4', network_id: own.id, cidr: '10.9.0.0/24', ip_version: 4 } as never);
  Object.assign(fixedNet.db.clusters.get(fixedNet.uuid)!, { fixed_network: 'own' });
  fixedNet.fresh();
  const byNet = await clusterNet(fixedNet.ctx);
  assert.deepEqual([byNet.networkId, byNet.subnetId, byNet.subnetCidr, byNet.networkName], [own.id, ownV4.id, '10.9.0.0/24', 'own']);

  const fixedSub = await stepRun(cloud);
  const ns = await fixedSub.clients().neutron();
  const net2 = await ns.networks.create({ name: 'n2' } as never);
  const sub2 = await ns.subnets.create({ name: 's2', network_id: net2.id, cidr: '10.10.0.0/24', ip_version: 4 } as never);
  Object.assign(fixedSub.db.clusters.get(fixedSub.uuid)!, { fixed_subnet: 's2' });
  fixedSub.fresh();
  assert.deepEqual([(await clusterNet(fixedSub.ctx)).networkId, (await clusterNet(fixedSub.ctx)).subnetId], [net2.id, sub2.id]);
  assert.equal((await clusterSpec(fixedSub.ctx)).network.subnetCidr, '10.10.0.0/24', 'the spec takes a fixed subnet\'s CIDR');
});

test('no subnet, or no external network: a failure on the network condition', async () => {
  const none = await stepRun(cloud);
  await assert.rejects(clusterNet(none.ctx), (e) => e instanceof StepFailure && e.reason === 'NotFound' && e.condition === 'network' && /created/.test(e.message));
  const noExternal = await stepRun(cloud, { template: { external_network_id: 'nowhere' } });
  await assert.rejects(clusterNet(noExternal.ctx), (e) => e instanceof StepFailure && /External network nowhere not found/.test(e.message));
});
