// Servers and server groups (workers/cluster/servers.ts), with an in-memory run context against the simulated
// cloud: a server group per node group (soft-anti-affinity, the cluster's uuid in its name), found again after a
// crash; each planned node's server booted once on its port with the metadata that says what it is, found by its
// name after a crash instead of booted twice; the purge waiting until Nova is done; and the pure parts (the
// bootstrap token, the runtime volume, the addresses Magnum shows, a broken server's reason, the image checks).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Server } from '../../../src/openstack/nova-servers.js';
import { clusterSpec, nodeGroups } from '../../../src/steps/context.js';
import { StepFailure } from '../../../src/steps/errors.js';
import { clusterTag, META, serverGroupName } from '../../../src/steps/naming.js';
import { plannedNodes, type ObservedServer } from '../../../workers/cluster/ports.js';
import {
  addressesOf, bootstrapToken, ensureServerGroups, ensureServers, failIfBroken, groupImage, MAX_SERVER_REPLACEMENTS, observedServers, purgeServerGroups, purgeServers, runtimeVolumeOf, withFault,
} from '../../../workers/cluster/servers.js';
import { audited, Crash, crashAfterCreate, create, eventually, recordedOf, startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

test('a server group per node group, soft-anti-affinity, named by the cluster\'s uuid; a crash before its record adopts it; the purge deletes them', async () => {
  const r = await stepRun(cloud, { groups: [{ name: 'gpu', count: 0 }] });
  const made = crashAfterCreate(r, 'server_group');
  await assert.rejects(r.run(ensureServerGroups), Crash);
  r.hooks.afterCreate = undefined;
  r.fresh();
  await r.run(ensureServerGroups);
  const groups = await nodeGroups(r.ctx);
  const recorded = await recordedOf(r, 'server_group');
  assert.deepEqual(recorded.map(([name]) => name).sort(), groups.map((g) => serverGroupName(r.ctx.cluster, g.name)).sort(), 'one per group, the empty one too');
  assert.ok(recorded.some(([, id]) => id === made[0]), 'the unrecorded one adopted');
  assert.equal(r.usage().server_groups, 3, 'none made twice');
  for (const [, id] of recorded) assert.equal(cloud.sims.nova.state.serverGroups.get(id)?.policy, 'soft-anti-affinity');
  r.fresh();
  await r.run(purgeServerGroups);
  assert.equal(r.usage().server_groups, 0);
  assert.deepEqual(await r.ledger.live(), []);
});

test('each planned node\'s server boots once, on its port, with its metadata and tag; a crash before its record finds it by name; the purge waits for Nova', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 2 });
  await create(r, 'api_endpoint');
  const workers = (await plannedNodes(r.ctx)).filter((p) => p.role === 'worker');
  const made = crashAfterCreate(r, 'server');
  await assert.rejects(ensureServers(r.ctx, workers), Crash);
  r.hooks.afterCreate = undefined;
  r.fresh();
  await ensureServers(r.ctx, workers);
  const spec = await clusterSpec(r.ctx);
  const recorded = await recordedOf(r, 'server');
  assert.deepEqual(recorded.map(([name]) => name), workers.map((w) => w.name));
  assert.ok(recorded.some(([, id]) => id === made[0]));
  assert.deepEqual(cloud.sims.boots(r.project).repeated, [], 'no node booted twice');
  const nova = await r.clients().servers();
  const ports = new Map(await recordedOf(r, 'port'));
  for (const w of workers) {
    const s = await nova.get(recorded.find(([name]) => name === w.name)![1]);
    const md = s.metadata as Record<string, string>;
    assert.deepEqual([md[META.cluster], md[META.nodegroup], md[META.role], md[META.version], md[META.caGeneration], md[META.index]], [r.uuid, w.group.uuid, 'worker', spec.kubernetes.version, '1', String(w.index)]);
    assert.ok((s.tags ?? []).includes(clusterTag(r.uuid)));
    // Nova binds the port while it builds the server: looked at until it has.
    const port = await eventually(async () => (await r.clients().neutron()).ports.get(ports.get(w.name)!), (p) => p.device_id === s.id);
    assert.equal(port.device_id, s.id, `${w.name} is on its own port`);
  }
  r.fresh();
  await r.run(purgeServers);
  assert.equal(r.usage().instances, 0);
  assert.deepEqual(await recordedOf(r, 'server'), []);
});

test('the bootstrap token: kubeadm\'s format, the same in every run of an operation, another for another operation', async () => {
  const r = await stepRun(cloud);
  const token = bootstrapToken(r.ctx);
  assert.match(token, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  r.fresh();
  assert.equal(bootstrapToken(r.ctx), token);
  assert.notEqual(bootstrapToken({ ...r.ctx, op: { ...r.ctx.op, id: '00000000-0000-4000-8000-000000000000' } }), token);
  const none = await stepRun(cloud, { credential: false });
  assert.throws(() => bootstrapToken(none.ctx), (e) => e instanceof StepFailure && e.reason === 'NoCredential');
});

test('the runtime volume is the group\'s docker_volume_size of the label\'s type; none without a size', async () => {
  const r = await stepRun(cloud, { template: { labels: { docker_volume_type: 'fast' } } });
  const spec = await clusterSpec(r.ctx);
  const [g] = await nodeGroups(r.ctx);
  assert.deepEqual(runtimeVolumeOf(spec, { ...g!, docker_volume_size: 7 }), { sizeGb: 7, type: 'fast' });
  assert.equal(runtimeVolumeOf(spec, { ...g!, docker_volume_size: null }), null);
});

test('a node group\'s image: the template\'s, checked against the cluster\'s Kubernetes version; a missing one fails', async () => {
  const r = await stepRun(cloud);
  const spec = await clusterSpec(r.ctx);
  const [g] = await nodeGroups(r.ctx);
  assert.ok((await groupImage(r.ctx, g!, spec)).id);
  await assert.rejects(groupImage(r.ctx, { ...g!, image_id: 'no-such-image' }, spec), (e) => e instanceof StepFailure && e.reason === 'ImageNotFound');
  await assert.rejects(groupImage(r.ctx, { ...g!, image_id: 'ubuntu-2404-kube-v1.36.1' }, spec), (e) => e instanceof StepFailure && e.reason === 'ImageVersionMismatch');
  await assert.rejects(groupImage(r.ctx, { ...g!, image_id: 'cirros' }, spec), (e) => e instanceof StepFailure && e.reason === 'UnsupportedImage');
});

test('the addresses Magnum shows: the floating ones when there are, else the fixed ones; IPv4 only', () => {
  const addr = (addr: string, version: number, type: 'fixed' | 'floating') => ({ addr, version, 'OS-EXT-IPS:type': type });
  const s = (addresses: unknown) => ({ id: 'x', name: 'x', addresses }) as unknown as Server;
  assert.deepEqual(addressesOf(s({ net: [addr('10.0.0.5', 4, 'fixed'), addr('fd00::5', 6, 'fixed'), addr('127.24.4.9', 4, 'floating')] })), ['127.24.4.9']);
  assert.deepEqual(addressesOf(s({ net: [addr('10.0.0.5', 4, 'fixed'), addr('fd00::5', 6, 'fixed')] })), ['10.0.0.5']);
  assert.deepEqual(addressesOf(s(undefined)), []);
});

test('a server in ERROR fails the operation with Nova\'s fault as the reason; any other status does not', () => {
  const observed = (status: string, message?: string): ObservedServer => ({
    server: { id: 'id-1', name: 'n1', status, ...(message ? { fault: { message } } : {}) } as unknown as Server,
    name: 'n1', nodegroup: 'g', role: 'worker', version: 'v1.35.1', caGeneration: 1, index: 0,
  });
  const reason = (status: string, message?: string) => {
    try {
      failIfBroken(observed(status, message), 'workers');
      return undefined;
    } catch (e) {
      assert.ok(e instanceof StepFailure && e.condition === 'workers');
      return e.reason;
    }
  };
  assert.equal(reason('ACTIVE'), undefined);
  assert.equal(reason('BUILD'), undefined);
  assert.equal(reason('ERROR', 'No valid host was found.'), 'NoValidHost');
  assert.equal(reason('ERROR', 'Quota exceeded for cores'), 'QuotaExceeded');
  assert.equal(reason('ERROR', 'disk full'), 'ServerError');
  assert.equal(reason('ERROR'), 'ServerError');
});

test('servers of the cluster found only by tag (never recorded) go too', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r, 'workers');
  assert.equal(audited(r, 'server').length, 2);
  r.ledger.forget((x) => x.type === 'server');
  r.fresh();
  await r.run(purgeServers);
  assert.equal(r.usage().instances, 0);
});

// ---- a server in ERROR while the create waits for the API (No valid host, within a second of its POST) ----

test('a worker whose server goes to ERROR is seen at the next look: its condition names it and Nova\'s fault, and it boots again (new one-time token) while the rest goes on', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r, 'api_endpoint');
  const worker = (await plannedNodes(r.ctx)).find((p) => p.role === 'worker')!;
  const clear = cloud.sims.nova.state.failBuilds({ name: worker.name, times: 1 });
  try {
    await create(r, 'servers_active');
  } finally {
    clear();
  }
  const replacing = r.recorded.conditions.find((c) => c.type === 'workers' && c.reason === 'ReplacingServer');
  assert.ok(replacing, 'the workers condition says a server is replaced');
  assert.match(replacing.message, new RegExp(`^Server ${worker.name} \\(\\S+\\) is in ERROR: No valid host was found.* Booting it again \\(1 of ${MAX_SERVER_REPLACEMENTS}\\)\\.$`));
  const nova = await r.clients().servers();
  const now = await nova.list({ name: worker.name });
  assert.deepEqual(now.map((s) => s.status), ['ACTIVE'], 'one server of that name, ACTIVE');
  assert.equal(r.usage().instances, 2);
  assert.deepEqual((await recordedOf(r, 'server')).filter(([n]) => n === worker.name).map(([, id]) => id), [now[0]!.id], 'the ledger holds the new one');
  assert.equal([...cloud.material.values()].filter((m) => m.server_name === worker.name).length, 2, 'each boot minted its own material');
  assert.deepEqual(Object.keys(r.db.operations.get(r.ctx.op.id)!.params.replacing as object), [worker.name], 'the operation remembers the node it replaced');
});

test('a node whose server keeps going to ERROR fails the create after the bounded replacements, naming the server and Nova\'s fault; an init node booted again stays the init node', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 0 });
  await create(r, 'api_endpoint');
  const init = (await plannedNodes(r.ctx)).find((p) => p.role === 'init')!;
  const clear = cloud.sims.nova.state.failBuilds({ name: init.name });
  try {
    await assert.rejects(create(r, 'servers_active'), (e) => {
      assert.ok(e instanceof StepFailure, String(e));
      assert.equal(e.reason, 'NoValidHost');
      assert.equal(e.condition, 'control_plane');
      assert.match(e.message, new RegExp(`^Server ${init.name} \\(\\S+\\) is in ERROR: No valid host was found.*\\(its node was booted ${MAX_SERVER_REPLACEMENTS + 1} times\\)$`));
      return true;
    });
  } finally {
    clear();
  }
  assert.equal(cloud.sims.boots(r.project).booted, MAX_SERVER_REPLACEMENTS + 1, 'booted once and replaced twice, no more');
  // Between two boots the node is planned again as what it was.
  const params = r.db.operations.get(r.ctx.op.id)!.params.replacing as Record<string, { role: string }>;
  assert.equal(params[init.name]?.role, 'init');
});

test('no 404 probes: the template\'s image, flavors and external network given by name are asked for by name, the flavors read once for the operation', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 2 });
  // A GET by id of a name (m1.small, m1.medium, ubuntu-24.04, public) would fail the create here.
  const probes = [
    cloud.sims.faults.nova.inject({ method: 'GET', path: /\/flavors\/m1\./, status: 400, message: 'probed by id' }),
    cloud.sims.faults.glance.inject({ method: 'GET', path: /\/images\/ubuntu/, status: 400, message: 'probed by id' }),
    cloud.sims.faults.neutron.inject({ method: 'GET', path: /\/networks\/public/, status: 400, message: 'probed by id' }),
  ];
  cloud.sims.resetCalls();
  try {
    await create(r, 'workers');
  } finally {
    for (const remove of probes) remove();
  }
  assert.equal(cloud.sims.calls()['nova GET /flavors/detail'], 1, 'one flavor list for both flavors and every server');
});

test('a server in ERROR listed without its fault (a real Nova leaves it out of servers/detail) is read for it', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r, 'api_endpoint');
  const worker = (await plannedNodes(r.ctx)).find((p) => p.role === 'worker')!;
  const clear = cloud.sims.nova.state.failBuilds({ name: worker.name, times: 1 });
  try {
    await create(r, 'workers');
  } finally {
    clear();
  }
  const broken = await eventually(async () => {
    r.fresh();
    return (await observedServers(r.ctx)).find((s) => s.name === worker.name)!;
  }, (s) => s.server.status === 'ERROR');
  const listed: ObservedServer = { ...broken, server: { ...broken.server, fault: undefined } as Server };
  const read = await withFault(r.ctx, listed);
  assert.match((read.server as { fault?: { message?: string } }).fault?.message ?? '', /^No valid host was found/);
  assert.throws(() => failIfBroken(read, 'workers'), (e) => e instanceof StepFailure && e.reason === 'NoValidHost');
});
