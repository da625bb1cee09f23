// The API endpoint's steps (load balancer, listener, pool, members, monitor, floating IP) and the delete's purge of
// load balancers (workers/cluster/lb-purge.ts): the cluster's and its cloud provider's, asked for server-side,
// nobody else's. The descriptions the purge knows are in lb-purge.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRetryable, StepFailure, Wait } from '../../../src/steps/errors.js';
import { resourceName } from '../../../src/steps/naming.js';
import { ensureApiEndpoint, ensureApiListener, ensureApiMembers, ensureApiMonitor, syncMembers } from '../../../workers/cluster/api-lb.js';
import { purgeFloatingIps } from '../../../workers/cluster/floating-ips.js';
import { PROVIDER_FIP, purgeLoadBalancers } from '../../../workers/cluster/lb-purge.js';
import { API_FIP } from '../../../workers/cluster/floating-ips.js';
import { controlPlanePorts } from '../../../workers/cluster/ports.js';
import { Crash, crashAfterCreate, create, recordedOf, startStepCloud, stepRun, type ClusterShape, type StepCloud, type StepRun } from '../../support/run-context.js';

// ---- the API endpoint's steps, with an in-memory run context against the simulated Octavia and Neutron ----

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

/** Through the ports step: what the endpoint is made from. */
async function ported(shape: ClusterShape): Promise<StepRun> {
  const r = await stepRun(cloud, shape);
  await create(r, 'ports');
  r.fresh();
  return r;
}

const lbOf = (r: StepRun) => cloud.sims.octavia.state.loadbalancers.get(r.ledger.rows.find((x) => x.type === 'loadbalancer')!.cloud_id)!;

test('the endpoint: one graph create of the load balancer with its listener, pool and a member per control plane; the floating IP on its VIP is the API address', async () => {
  const r = await ported({ masters: 3, workers: 1, template: { master_lb_enabled: true, floating_ip_enabled: true } });
  await r.run(ensureApiEndpoint);
  assert.equal(r.usage().load_balancer, 1);
  assert.deepEqual([r.usage().listener, r.usage().pool, r.usage().member], [1, 1, 3], 'built with the load balancer, not one update at a time');
  const lb = lbOf(r);
  assert.equal(lb.name, resourceName(r.ctx.cluster, 'kubeapi'));
  const [fip] = (await recordedOf(r, 'floatingip'));
  assert.equal(fip?.[0], API_FIP);
  const address = (await (await r.clients().neutron()).floatingIps.get(fip![1])).floating_ip_address;
  assert.equal(r.ctx.cluster.api_address, `https://${address}:6443`);
  assert.equal(r.db.clusters.get(r.uuid)!.api_address, `https://${address}:6443`, 'written on the row at once');
  assert.equal(r.ctx.cluster.conditions.api_lb?.reason, 'Creating');
  const members = [...cloud.sims.octavia.state.members.values()].filter((m) => m.project_id === r.project).map((m) => m.address).sort();
  const cps = (await controlPlanePorts(r.ctx)).map((p) => p.port.fixed_ips![0]!.ip_address!).sort();
  assert.deepEqual(members, cps, 'a member per control plane\'s port');

  // Listener and pool came with it: found and recorded, none made; members and monitor once ACTIVE; the condition True.
  for (const step of [ensureApiListener, ensureApiMembers, ensureApiMonitor]) {
    r.fresh();
    await r.run(step);
  }
  assert.deepEqual([r.usage().listener, r.usage().pool, r.usage().member, r.usage().health_monitor], [1, 1, 3, 1]);
  assert.equal((await recordedOf(r, 'listener')).length, 1);
  assert.equal((await recordedOf(r, 'pool')).length, 1);
  assert.equal((await recordedOf(r, 'healthmonitor')).length, 1);
  assert.equal(r.db.clusters.get(r.uuid)!.conditions.api_lb?.status, 'True');
});

test('a load balancer made but never recorded is found by its name; a lost member is added again, an unwanted one removed, one change at a time', async () => {
  const r = await ported({ masters: 2, workers: 0, template: { master_lb_enabled: true, floating_ip_enabled: false, labels: { master_lb_floating_ip_enabled: 'false' } } });
  const made = crashAfterCreate(r, 'loadbalancer');
  await assert.rejects(r.run(ensureApiEndpoint), Crash);
  r.hooks.afterCreate = undefined;
  r.fresh();
  await r.run(ensureApiEndpoint);
  assert.deepEqual((await recordedOf(r, 'loadbalancer')).map(([, id]) => id), made);
  assert.equal(r.usage().load_balancer, 1);
  assert.equal(r.ctx.cluster.api_address, `https://${lbOf(r).vip_address}:6443`, 'no floating IP: the VIP');
  await r.run(ensureApiListener);
  await r.run(ensureApiMembers);

  const o = await r.clients().octavia();
  const pool = (await recordedOf(r, 'pool'))[0]![1];
  const [lost] = await o.listMembers(pool);
  await o.deleteMember(pool, lost!.id);
  for (let i = 0; i < 500 && (await o.provisioningStatus(lbOf(r).id)) !== 'ACTIVE'; i++) await sleep(5);
  r.fresh();
  await assert.rejects(syncMembers(r.ctx), (e) => e instanceof Wait && e.why === `member ${lost!.address} being added`);
  r.fresh();
  await r.run({ name: 'sync', run: (ctx) => syncMembers(ctx) });
  assert.deepEqual((await o.listMembers(pool)).map((m) => m.address).sort(), (await controlPlanePorts(r.ctx)).map((p) => p.port.fixed_ips![0]!.ip_address).sort());
  // A control plane leaving: its member goes first.
  const leaving = (await controlPlanePorts(r.ctx))[1]!;
  r.fresh();
  await r.run({ name: 'sync', run: (ctx) => syncMembers(ctx, (port) => port !== leaving.name) });
  assert.deepEqual((await o.listMembers(pool)).map((m) => m.address), [(await controlPlanePorts(r.ctx))[0]!.port.fixed_ips![0]!.ip_address]);
});

test('without a load balancer the API is the first control plane\'s address (its floating IP when asked); nothing of Octavia is made', async () => {
  const r = await ported({ masters: 1, workers: 1, template: { master_lb_enabled: false, floating_ip_enabled: true } });
  for (const step of [ensureApiEndpoint, ensureApiListener, ensureApiMembers, ensureApiMonitor]) await r.run(step);
  assert.deepEqual([r.usage().load_balancer, r.usage().listener, r.usage().member], [0, 0, 0]);
  const [cp] = await controlPlanePorts(r.ctx);
  const fip = (await (await r.clients().neutron()).floatingIps.list({ port_id: cp!.port.id } as never))[0]!;
  assert.equal(r.ctx.cluster.api_address, `https://${fip.floating_ip_address}:6443`);
  assert.match(r.db.clusters.get(r.uuid)!.conditions.api_lb?.message ?? '', /no load balancer/);
});

test('the delete takes the API load balancer and those the cluster\'s cloud provider made, by cascade, and waits until they are gone, with its floating IPs (on their VIPs or kept on no port); another\'s stays', async () => {
  const r = await ported({ masters: 1, workers: 0, template: { master_lb_enabled: true, floating_ip_enabled: false, labels: { master_lb_floating_ip_enabled: 'false' } } });
  await r.run(ensureApiEndpoint);
  await r.run(ensureApiListener);
  const o = await r.clients().octavia();
  const subnet = (await recordedOf(r, 'subnet'))[0]![1];
  const occm = await o.createLoadBalancer({ name: 'kube_service_x', description: `Kubernetes external service default/web from cluster ${r.uuid}`, vip_subnet_id: subnet });
  const theirs = await o.createLoadBalancer({ name: 'kube_service_y', description: 'Kubernetes external service default/web from cluster 9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d', vip_subnet_id: subnet });
  // The project's own, elsewhere, described as OCCM would for this cluster: not on the cluster's subnet, not asked for.
  const n = await r.clients().neutron();
  const net = await n.networks.create({ name: 'elsewhere' });
  const elsewhere = await n.subnets.create({ network_id: net.id, ip_version: 4, cidr: '10.77.0.0/24' });
  const project = await o.createLoadBalancer({ name: 'kube_service_z', description: `Kubernetes external service default/db from cluster ${r.uuid}`, vip_subnet_id: elsewhere.id });
  for (const lb of [occm, theirs, project]) for (let i = 0; i < 500 && (await o.provisioningStatus(lb.id)) !== 'ACTIVE'; i++) await sleep(5);
  // OCCM's floating IP on its VIP; another's on theirs.
  const external = (await n.listNetworks({ name: 'public' }))[0]!.id;
  const occmFip = await n.floatingIps.create({ floating_network_id: external, port_id: occm.vip_port_id, description: `Floating IP for Kubernetes external service default/web from cluster ${r.uuid}` });
  const theirFip = await n.floatingIps.create({ floating_network_id: external, port_id: theirs.vip_port_id, description: 'Floating IP for Kubernetes external service default/web from cluster 9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d' });
  // On no port: one OCCM kept when its Service went (keep-floatingip), another cluster's, the project's own.
  const keptFip = await n.floatingIps.create({ floating_network_id: external, description: `Floating IP for Kubernetes external service default/old from cluster ${r.uuid}` });
  const theirKept = await n.floatingIps.create({ floating_network_id: external, description: 'Floating IP for Kubernetes ingress shop in namespace prod from cluster 9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d' });
  const bastion = await n.floatingIps.create({ floating_network_id: external, description: 'Floating IP for my bastion' });
  // A list of the project's every load balancer fails: the purge asks by tag and by subnet.
  const unfiltered = cloud.sims.faults.octavia.inject({ method: 'GET', path: /\/lbaas\/loadbalancers(\?(?!.*(tags|vip_subnet_id)=).*)?$/, status: 500, message: 'unfiltered list' });
  try {
    r.fresh();
    await assert.rejects(r.once(purgeLoadBalancers), (e) => e instanceof Wait && /load balancer/.test(e.why));
    await r.run(purgeLoadBalancers);
  } finally {
    unfiltered();
  }
  assert.equal(await o.provisioningStatus(occm.id), 'DELETED');
  assert.notEqual(await o.provisioningStatus(theirs.id), 'DELETED');
  assert.notEqual(await o.provisioningStatus(project.id), 'DELETED');
  // OCCM's floating IP was recorded before its port went with the load balancer: the floating-IP purge takes it.
  // So was the one it kept on no port; no one else's.
  assert.deepEqual((await recordedOf(r, 'floatingip')).filter(([name]) => name === PROVIDER_FIP).map(([, id]) => id).sort(), [occmFip.id, keptFip.id].sort());
  r.fresh();
  await r.run(purgeFloatingIps);
  assert.equal(await n.floatingIps.find(occmFip.id), undefined);
  assert.equal(await n.floatingIps.find(keptFip.id), undefined);
  for (const f of [theirFip, theirKept, bastion]) assert.notEqual(await n.floatingIps.find(f.id), undefined, f.description);
  for (const lb of [theirs, project]) await o.deleteLoadBalancer(lb.id, { cascade: true });
  for (const f of [theirFip, theirKept, bastion]) await n.floatingIps.delete(f.id);
  assert.deepEqual([r.usage().listener, r.usage().pool], [0, 0]);
  assert.deepEqual((await r.ledger.live()).filter((x) => ['loadbalancer', 'listener', 'pool', 'healthmonitor'].includes(x.type)), [], 'its children marked with it');
});

// ---- Octavia's shipped policy (Zed's default): only load-balancer_* roles may even list ----

test('a cluster with no load balancer deletes under Octavia\'s default policy: the 403 listing load balancers is no failure when none was recorded', async () => {
  const r = await ported({ masters: 1, workers: 1, template: { master_lb_enabled: false, floating_ip_enabled: false } });
  const refuse = cloud.sims.faults.octavia.inject({ method: 'GET', path: /\/lbaas\/loadbalancers(\?|$)/, status: 403, message: 'Policy does not allow this request to be performed.' });
  try {
    r.begin('delete');
    await r.run(purgeLoadBalancers);
    assert.ok(r.recorded.logs.some((l) => /may not/.test(l.msg)), 'the log says why nothing was listed');
  } finally {
    refuse();
  }
});

test('a load balancer the credential may no longer delete: the delete fails naming the role and the rotation, not retrying for ever', async () => {
  const r = await ported({ masters: 1, workers: 0, template: { master_lb_enabled: true, floating_ip_enabled: false, labels: { master_lb_floating_ip_enabled: 'false' } } });
  await r.run(ensureApiEndpoint);
  const refuse = cloud.sims.faults.octavia.inject({ path: /\/lbaas\/loadbalancers/, status: 403, message: 'Policy does not allow this request to be performed.' });
  try {
    r.begin('delete');
    r.fresh();
    await assert.rejects(r.once(purgeLoadBalancers), (e) => {
      assert.ok(e instanceof StepFailure, String(e));
      assert.equal(e.reason, 'Forbidden');
      assert.match(e.message, /load-balancer_member/);
      assert.match(e.message, new RegExp(`rotate the cluster's credential \\(PATCH /v1/credentials/${r.uuid}`));
      return true;
    });
    assert.equal(isRetryable(new StepFailure('Forbidden', '')), false);
  } finally {
    refuse();
  }
});

// ---- Octavia Zed without the jobboard: a fully populated load balancer ACTIVE, its children PENDING_CREATE for ever ----

/** The load balancer's children left as a jobboard-less Octavia Zed leaves them once it is ACTIVE. */
async function stickChildren(r: StepRun, kinds: readonly ('listener' | 'pool' | 'member')[] = ['listener', 'pool', 'member']): Promise<void> {
  const o = await r.clients().octavia();
  const lb = lbOf(r);
  for (let i = 0; i < 500 && (await o.provisioningStatus(lb.id)) !== 'ACTIVE'; i++) await sleep(5);
  const st = cloud.sims.octavia.state;
  for (const l of st.listeners.values()) if (l.loadbalancer_id === lb.id && kinds.includes('listener')) l.provisioning_status = 'PENDING_CREATE';
  for (const p of st.pools.values()) if (p.loadbalancer_id === lb.id && kinds.includes('pool')) p.provisioning_status = 'PENDING_CREATE';
  for (const m of st.members.values()) if (m.loadbalancer_id === lb.id && kinds.includes('member')) m.provisioning_status = 'PENDING_CREATE';
}

test('children left PENDING_CREATE under an ACTIVE load balancer are built again one by one: listener, pool, members and monitor end ACTIVE, the event says why', async () => {
  const r = await ported({ masters: 2, workers: 0, template: { master_lb_enabled: true, floating_ip_enabled: false, labels: { master_lb_floating_ip_enabled: 'false' } } });
  await r.run(ensureApiEndpoint);
  const graphPool = (await recordedOf(r, 'pool'))[0];
  await stickChildren(r);
  for (const step of [ensureApiListener, ensureApiMembers, ensureApiMonitor]) {
    r.fresh();
    await r.run(step);
  }
  const st = cloud.sims.octavia.state;
  const lb = lbOf(r);
  const o = await r.clients().octavia();
  for (let i = 0; i < 500 && (await o.provisioningStatus(lb.id)) !== 'ACTIVE'; i++) await sleep(5);
  const tree = [...st.listeners.values(), ...st.pools.values(), ...st.members.values(), ...st.healthmonitors.values()].filter((x) => x.loadbalancer_id === lb.id);
  assert.deepEqual(tree.filter((x) => x.provisioning_status !== 'ACTIVE').map((x) => `${x.id} ${x.provisioning_status}`), [], 'nothing left pending');
  assert.deepEqual([r.usage().listener, r.usage().pool, r.usage().member, r.usage().health_monitor], [1, 1, 2, 1]);
  const [pool] = await recordedOf(r, 'pool');
  assert.notEqual(pool?.[1], graphPool?.[1], 'the stuck pool went, another was made');
  assert.ok(r.recorded.events.some((e) => e.type === 'LoadBalancerChildrenStuck' && e.severity === 'warning'), 'an event says why');
  assert.equal(r.db.clusters.get(r.uuid)!.conditions.api_lb?.status, 'True');
});

test('a pool built one by one that stays PENDING as well fails the create with the reason; a monitor refused as immutable under an ACTIVE load balancer is no retry', async () => {
  const r = await ported({ masters: 1, workers: 0, template: { master_lb_enabled: true, floating_ip_enabled: false, labels: { master_lb_floating_ip_enabled: 'false' } } });
  await r.run(ensureApiEndpoint);
  await stickChildren(r, ['pool', 'member']);
  r.fresh();
  await r.run(ensureApiListener);
  await stickChildren(r, ['pool']);
  r.fresh();
  await assert.rejects(r.once(ensureApiListener), (e) => e instanceof StepFailure && e.reason === 'LoadBalancerStuck' && /stay PENDING_CREATE although built one at a time/.test(e.message));
  // The monitor's POST meets the stuck pool: a failure with the reason, not a 409 retried.
  r.fresh();
  await assert.rejects(r.once(ensureApiMonitor), (e) => e instanceof StepFailure && e.reason === 'LoadBalancerStuck' && /immutable/.test(e.message));
});
