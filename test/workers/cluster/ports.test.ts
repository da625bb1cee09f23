// The cluster's nodes as planned and their ports (workers/cluster/ports.ts), with an in-memory run context
// against the simulated Neutron and Nova: the names a create plans (derived from the operation, the same in
// every run), the roles (one init control plane), the indexes; what a resize plans; a port per planned node on
// the cluster subnet with its role's security group, tagged and recorded under the node's name, found again after
// a crash; the control planes' ports, the first one first; and the purge of the node ports, the router's left.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clusterSpec, clusterNet } from '../../../src/steps/context.js';
import { clusterTag, resourceName, serverName } from '../../../src/steps/naming.js';
import { ensureNetwork, ensureSecurityGroups, purgeRouters } from '../../../workers/cluster/network.js';
import { controlPlanePorts, ensurePorts, forgetWatched, groupLabel, isControlPlane, observedServers, plannedNodes, purgePorts, watchedServers } from '../../../workers/cluster/ports.js';
import { Crash, crashAfterCreate, create, recordedOf, startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

/** A cluster whose network and security groups are made. */
async function networked(shape: Parameters<typeof stepRun>[1] = {}): Promise<StepRun> {
  const r = await stepRun(cloud, shape);
  await r.run(ensureNetwork);
  await r.run(ensureSecurityGroups);
  r.fresh();
  return r;
}

test('a create plans every group: names from the operation, one init control plane, indexes from 0; the same plan in every run', async () => {
  const r = await stepRun(cloud, { masters: 3, workers: 2, groups: [{ name: 'gpu', count: 1 }] });
  const plan = await plannedNodes(r.ctx);
  const short = (await clusterSpec(r.ctx)).cluster.shortName;
  const groups = r.db.nodegroups;
  const expected = groups.flatMap((g) => Array.from({ length: g.node_count }, (_, i) => serverName(short, groupLabel(g), r.ctx.op.id, g.uuid, i)));
  assert.deepEqual(plan.map((p) => p.name), expected);
  assert.deepEqual(plan.map((p) => p.role), ['init', 'control-plane', 'control-plane', 'worker', 'worker', 'worker']);
  assert.deepEqual(plan.map((p) => p.index), [0, 1, 2, 0, 1, 0]);
  assert.deepEqual(groups.map(groupLabel), ['control-plane', 'worker', 'gpu']);
  r.fresh();
  assert.deepEqual((await plannedNodes(r.ctx)).map((p) => p.name), expected, 'a later run plans the same names');
  assert.equal(isControlPlane('init') && isControlPlane('control-plane') && !isControlPlane('worker'), true);
});

test('a resize plans only its node group, what it lacks of node_count', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 2 });
  const worker = r.db.nodegroups.find((g) => g.role === 'worker')!;
  r.begin('resize', { nodegroup: worker.uuid });
  const plan = await plannedNodes(r.ctx);
  assert.deepEqual(plan.map((p) => [p.group.uuid, p.role]), [[worker.uuid, 'worker'], [worker.uuid, 'worker']]);
  assert.deepEqual(await observedServers(r.ctx), []);
});

test('ensurePorts: a port per planned node on the cluster subnet, its role\'s security group, tagged and recorded by the node\'s name', async () => {
  const r = await networked({ masters: 1, workers: 2 });
  await r.run(ensurePorts);
  const plan = await plannedNodes(r.ctx);
  const net = await clusterNet(r.ctx);
  const groups = Object.fromEntries((await recordedOf(r, 'security_group')).map(([name, id]) => [name, id]));
  const recorded = await recordedOf(r, 'port');
  assert.deepEqual(recorded.map(([name]) => name), plan.map((p) => p.name));
  const n = await r.clients().neutron();
  for (const [name, id] of recorded) {
    const port = await n.ports.get(id);
    const p = plan.find((x) => x.name === name)!;
    assert.equal(port.name, name);
    assert.equal(port.network_id, net.networkId);
    assert.equal(port.fixed_ips?.[0]?.subnet_id, net.subnetId);
    const sg = resourceName(r.ctx.cluster, isControlPlane(p.role) ? 'secgroup-controlplane' : 'secgroup-worker');
    assert.deepEqual(port.security_groups, [groups[sg]]);
    assert.ok((port.tags ?? []).includes(clusterTag(r.uuid)));
  }
  const ports = r.usage().port;
  r.fresh();
  await r.run(ensurePorts);
  assert.equal(r.usage().port, ports, 'a second run makes none');
});

test('a port made but never recorded is found again by its name, not made twice; a port without its security group recorded fails', async () => {
  const r = await networked({ masters: 1, workers: 1 });
  const made = crashAfterCreate(r, 'port');
  const before = r.usage().port;
  await assert.rejects(r.run(ensurePorts), Crash);
  r.hooks.afterCreate = undefined;
  r.fresh();
  await r.run(ensurePorts);
  assert.equal(r.usage().port, before + 2);
  assert.ok((await recordedOf(r, 'port')).some(([, id]) => id === made[0]), 'the crashed one is adopted');

  const bare = await stepRun(cloud);
  await bare.run(ensureNetwork);
  await assert.rejects(bare.run(ensurePorts), /Security group .* is not recorded/);
});

test('controlPlanePorts: the control planes\' recorded ports that Neutron has, the first control plane\'s first', async () => {
  const r = await networked({ masters: 3, workers: 1 });
  await r.run(ensurePorts);
  const plan = (await plannedNodes(r.ctx)).filter((p) => isControlPlane(p.role));
  const cps = await controlPlanePorts(r.ctx);
  assert.deepEqual(cps.map((p) => p.name), plan.map((p) => p.name));
  assert.equal(plan[0]!.role, 'init');
  // One gone behind our back: left out, the others kept.
  const n = await r.clients().neutron();
  await n.ports.delete(cps[1]!.port.id);
  r.fresh();
  assert.deepEqual((await controlPlanePorts(r.ctx)).map((p) => p.name), [plan[0]!.name, plan[2]!.name]);
});

test('purgePorts deletes the node ports, recorded or only tagged, and leaves the router\'s interface; each row marked', async () => {
  const r = await networked({ masters: 1, workers: 2 });
  await r.run(ensurePorts);
  const routerPorts = (await recordedOf(r, 'router_interface')).map(([, id]) => id);
  r.ledger.forget((x) => x.type === 'port' && x.name === r.ledger.rows.filter((y) => y.type === 'port')[0]!.name);
  r.fresh();
  await r.run(purgePorts);
  const n = await r.clients().neutron();
  const left = (await n.ports.list({ tags: [clusterTag(r.uuid)] } as never)).map((p) => p.id);
  assert.deepEqual(left.filter((id) => !routerPorts.includes(id)), [], 'no node port left');
  assert.deepEqual(await recordedOf(r, 'port'), []);
  assert.equal(await n.ports.find(routerPorts[0]!).then((p) => p?.id), routerPorts[0], 'the router\'s interface stays for purgeRouters');
  await r.run(purgeRouters);
});

test('a step that watches the servers while it waits lists them once every WATCH_POLLS polls, shared by the operation\'s runs; forgetWatched lists again', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r, 'workers');
  const lists = () => cloud.sims.calls()['nova GET /servers/detail'] ?? 0;
  cloud.sims.resetCalls();
  for (let i = 0; i < 10; i++) {
    const ctx = r.fresh();
    ctx.pollMs = 60_000;
    assert.equal((await watchedServers(ctx)).length, 2);
    assert.equal((await observedServers(ctx)).length, 2, 'the run\'s list is the watched one');
  }
  assert.equal(lists(), 1, 'ten runs, one list');
  await forgetWatched(r.ctx);
  await watchedServers(r.fresh());
  assert.equal(lists(), 2);
});

test('a port Neutron made without the cluster\'s tag (ML2 without tag_ports_during_bulk_creation, as Debian\'s Zed) is tagged right after', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r, 'security_groups');
  r.fresh();
  // Neutron drops the tags of a port's POST, as a cloud without that extension driver does.
  const stripped: string[] = [];
  const real = r.ctx.cloud;
  r.ctx.cloud = () => {
    const c = real();
    return {
      ...c,
      async neutron() {
        const n = await c.neutron();
        const created = n.ports.create.bind(n.ports);
        n.ports.create = async (body) => {
          const port = await created(body);
          cloud.sims.neutron.state.ports.get(port.id)!.tags = [];
          stripped.push(port.id);
          return { ...port, tags: [] };
        };
        return n;
      },
    };
  };
  await r.run(ensurePorts);
  assert.equal(stripped.length, 2);
  for (const id of stripped) assert.deepEqual(cloud.sims.neutron.state.ports.get(id)!.tags, [clusterTag(r.uuid)]);
});

test('a server seen in the cluster\'s list gets its name\'s unused material tokens, though its ensure never learnt its id (a lost create answer); a name listed twice, or no server of the name, binds nothing', async () => {
  const r = await networked({ masters: 1, workers: 0 });
  const mint = (hash: string, name: string, createdAt = new Date()) =>
    r.ctx.repos.nodeMaterial.mint({ token_hash: hash.padEnd(64, '0'), cluster_id: r.uuid, server_name: name, material: 'sealed', expires_at: new Date(Date.now() + 900_000), created_at: createdAt });
  await mint('a', 'lost-answer');
  await mint('b', 'twice');
  await mint('c', 'never-booted');
  const nova = await r.clients().servers();
  const image = [...cloud.sims.glance.state.images.values()].find((i) => i.name === 'ubuntu-24.04')!.id;
  const flavor = [...cloud.sims.nova.state.flavors.values()].find((f) => f.name === 'm1.small')!.id;
  const boot = (name: string) => nova.create({ name, flavorRef: flavor, imageRef: image, networks: 'none', tags: [clusterTag(r.uuid)] } as never);
  const lost = await boot('lost-answer');
  await boot('twice');
  await boot('twice');
  r.fresh();
  await observedServers(r.ctx);
  const row = (h: string) => r.db.nodeMaterial.get(h.padEnd(64, '0'))!;
  assert.equal(row('a').server_id, lost.id, 'bound to the server listed under its name');
  assert.equal(row('b').server_id, null, 'two servers of one name: neither');
  assert.equal(row('c').server_id, null, 'no server of its name');
});
