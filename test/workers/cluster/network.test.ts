// The cluster's network and security groups (workers/cluster/network.ts), each step run with an in-memory run
// context against the simulated Neutron: what ensureNetwork and ensureSecurityGroups make, tag and record;
// a create whose answer was never recorded (the worker died in between) found again by name and tag, not made
// twice; a recorded resource gone behind our back made again; a fixed network left alone; and the purges
// taking all of it down (a router's interfaces and gateway first, the groups that name each other).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { networkPlan } from '../../../src/cluster-spec/network-plan.js';
import { clusterSpec } from '../../../src/steps/context.js';
import { StepFailure } from '../../../src/steps/errors.js';
import { clusterTag, resourceName } from '../../../src/steps/naming.js';
import { ensureNetwork, ensureSecurityGroups, purgeNetworks, purgeRouters, purgeSecurityGroups, purgeSubnets } from '../../../workers/cluster/network.js';
import { audited, Crash, crashAfterCreate, recordedOf, startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const neutron = () => cloud.sims.neutron.state;

test('ensureNetwork makes the network, subnet, router and its interface, tagged and recorded; a second run makes nothing', async () => {
  const r = await stepRun(cloud);
  await r.run(ensureNetwork);
  const [network] = audited(r, 'network');
  const [subnet] = audited(r, 'subnet');
  const [router] = audited(r, 'router');
  assert.ok(network && subnet && router);
  assert.deepEqual(await recordedOf(r, 'network'), [[resourceName(r.ctx.cluster, 'network'), network]]);
  assert.deepEqual(await recordedOf(r, 'subnet'), [[resourceName(r.ctx.cluster, 'subnet'), subnet]]);
  assert.deepEqual(await recordedOf(r, 'router'), [[resourceName(r.ctx.cluster, 'router'), router]]);
  const [iface] = await recordedOf(r, 'router_interface');
  assert.equal(iface?.[0], router, 'the interface is recorded under its router');
  assert.equal(neutron().ports.get(iface![1])?.deviceId, router);
  for (const id of [network, subnet, router]) {
    const tags = [...r.audit().keys()].find((k) => k.endsWith(`:${id}`));
    assert.ok(tags, `${id} audited`);
  }
  const tagged = cloud.sims.audit(r.project).projects.flatMap((p) => p.resources).filter((x) => [network, subnet, router].includes(x.id));
  assert.ok(tagged.every((x) => (x.tags ?? []).includes(clusterTag(r.uuid))), 'each carries the cluster tag');
  assert.equal(r.ctx.cluster.conditions.network?.status, 'True');
  assert.equal(r.ctx.cluster.conditions.network?.reason, 'Ready');

  const before = r.usage();
  r.db.clusters.get(r.uuid)!.conditions = {};
  r.fresh();
  await r.run(ensureNetwork);
  assert.deepEqual(r.usage(), before, 'the recorded ones are found again');
  assert.equal((await r.ledger.live()).length, 4);
});

test('a network made but never recorded (the worker died in between) is found by its name and tag on the next run', async () => {
  const r = await stepRun(cloud);
  const made = crashAfterCreate(r, 'network');
  await assert.rejects(r.run(ensureNetwork), Crash);
  assert.deepEqual(await recordedOf(r, 'network'), [], 'not recorded');
  r.hooks.afterCreate = undefined;
  r.fresh();
  await r.run(ensureNetwork);
  assert.deepEqual(audited(r, 'network'), made, 'no second network');
  assert.deepEqual((await recordedOf(r, 'network')).map(([, id]) => id), made, 'the adopted one recorded');
  assert.ok(r.recorded.logs.some((l) => l.msg === 'adopted an unrecorded resource' && l.extra.type === 'network'));
});

test('a recorded router deleted behind our back is made again, its old row marked deleted', async () => {
  const r = await stepRun(cloud);
  await r.run(ensureNetwork);
  const [[, old]] = await recordedOf(r, 'router') as [[string, string]];
  // Gone as an operator would delete it: its interface, then the router.
  const n = await r.clients().neutron();
  for (const p of await n.ports.list({ device_id: old })) await n.removeRouterInterface(old, { port_id: p.id });
  await n.routers.delete(old);
  r.db.clusters.get(r.uuid)!.conditions = {};
  r.fresh();
  await r.run(ensureNetwork);
  const [[, again]] = await recordedOf(r, 'router') as [[string, string]];
  assert.notEqual(again, old);
  assert.deepEqual(audited(r, 'router'), [again]);
  assert.ok(r.ledger.rows.some((x) => x.cloud_id === old && x.deleted_at !== null), 'the old row is marked deleted');
});

test('a fixed network: nothing made, the condition says which; no external network: a failure on the network condition', async () => {
  const fixed = await stepRun(cloud, { cluster: { fixed_network: 'own-net' } });
  await fixed.run(ensureNetwork);
  assert.deepEqual(fixed.ledger.rows, []);
  assert.deepEqual(audited(fixed, 'network'), []);
  assert.match(fixed.ctx.cluster.conditions.network?.message ?? '', /fixed network own-net/);

  const none = await stepRun(cloud, { template: { external_network_id: null } });
  await assert.rejects(none.run(ensureNetwork), (e) => e instanceof StepFailure && e.reason === 'InvalidRequest' && e.condition === 'network');
  const missing = await stepRun(cloud, { template: { external_network_id: 'no-such-net' } });
  await assert.rejects(missing.run(ensureNetwork), (e) => e instanceof StepFailure && e.reason === 'NotFound');
});

test('ensureSecurityGroups makes both groups with the network plan\'s rules, naming each other; a second run adds no rule', async () => {
  const r = await stepRun(cloud, { template: { network_driver: 'calico' } });
  await r.run(ensureSecurityGroups);
  const plan = networkPlan(await clusterSpec(r.ctx));
  const groups = await recordedOf(r, 'security_group');
  assert.deepEqual(groups.map(([name]) => name).sort(), [resourceName(r.ctx.cluster, 'secgroup-controlplane'), resourceName(r.ctx.cluster, 'secgroup-worker')].sort());
  const n = await r.clients().neutron();
  const ids = Object.fromEntries(groups.map(([name, id]) => [name!.endsWith('controlplane') ? 'control-plane' : 'worker', id])) as Record<'control-plane' | 'worker', string>;
  for (const g of ['control-plane', 'worker'] as const) {
    const rules = await n.securityGroupRules.list({ security_group_id: ids[g] });
    // The plan's rules and Neutron's two default egress rules.
    assert.equal(rules.length, plan.securityGroups[g].rules.length + 2, g);
    const remote = plan.securityGroups[g].rules.filter((x) => 'group' in x.remote).length;
    assert.equal(rules.filter((x) => x.remote_group_id && Object.values(ids).includes(x.remote_group_id)).length, remote, `${g}: rules naming a group name ours`);
    const sg = await n.securityGroups.get(ids[g]);
    assert.ok((sg.tags ?? []).includes(clusterTag(r.uuid)));
  }
  const count = r.usage().security_group_rule;
  r.db.clusters.get(r.uuid)!.conditions = {};
  r.fresh();
  await r.run(ensureSecurityGroups);
  assert.equal(r.usage().security_group_rule, count);
  assert.equal(r.ctx.cluster.conditions.security_groups?.status, 'True');
});

test('ensureSecurityGroups makes each group\'s missing rules in one bulk POST; a rule deleted behind our back comes back alone', async () => {
  const r = await stepRun(cloud);
  const posts = () => Object.entries(cloud.sims.calls()).filter(([k]) => k.startsWith('neutron POST') && k.includes('security-group-rules')).reduce((a, [, v]) => a + v, 0);
  cloud.sims.resetCalls();
  await r.run(ensureSecurityGroups);
  assert.equal(posts(), 2, 'one POST per group');
  const plan = networkPlan(await clusterSpec(r.ctx));
  const n = await r.clients().neutron();
  const worker = (await recordedOf(r, 'security_group')).find(([name]) => name!.endsWith('worker'))![1];
  const rules = await n.securityGroupRules.list({ security_group_id: worker });
  assert.equal(rules.length, plan.securityGroups.worker.rules.length + 2);
  const gone = rules.find((x) => x.direction === 'ingress')!;
  await n.securityGroupRules.delete(gone.id);
  r.db.clusters.get(r.uuid)!.conditions = {};
  r.fresh();
  cloud.sims.resetCalls();
  await r.run(ensureSecurityGroups);
  assert.equal(posts(), 1, 'only the group that lacks a rule');
  const again = await n.securityGroupRules.list({ security_group_id: worker });
  assert.equal(again.length, rules.length);
  assert.ok(again.some((x) => x.direction === 'ingress' && x.protocol === gone.protocol && x.port_range_min === gone.port_range_min && x.remote_group_id === gone.remote_group_id && x.remote_ip_prefix === gone.remote_ip_prefix && x.id !== gone.id));
});

test('the purges take the network down from the router: interfaces and gateway off, router, subnet, network, both groups; each row marked', async () => {
  const r = await stepRun(cloud);
  const baseline = r.usage();
  await r.run(ensureNetwork);
  await r.run(ensureSecurityGroups);
  // One more, made by a create that never recorded it: found by its tag.
  r.ledger.forget((x) => x.type === 'subnet');
  for (const step of [purgeRouters, purgeSubnets, purgeNetworks, purgeSecurityGroups]) {
    r.fresh();
    await r.run(step);
  }
  assert.deepEqual(r.usage(), baseline, 'the project holds what it held before');
  assert.deepEqual(await r.ledger.live(), [], 'every row marked deleted, the router\'s interface with it');
  // Again (a resumed delete): nothing to do, nothing fails.
  for (const step of [purgeRouters, purgeSubnets, purgeNetworks, purgeSecurityGroups]) await r.run(step);
});
