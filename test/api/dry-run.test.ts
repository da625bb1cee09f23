// Dry-runs (src/api/dry-run.ts) of a create, a resize, a node group create and an upgrade (POST /v1/dry-run/<path>): the bill
// against every quota and the real call's outcome, with nothing written; the same shortage names the
// same quotas in the dry-run and in the real call's 403; policies are the real operation's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { NodeGroupEntity } from '../../src/db/entities/nodegroup.js';
import { OperationEntity } from '../../src/db/entities/operation.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { dryRunErrors, dryRunOutcome } from '../../src/api/dry-run.js';
import { errors } from '../../src/domain/errors.js';
import { assess } from '../../src/preflight/assess.js';
import { zero } from '../../src/preflight/quotas.js';
import { authContext } from '../support/contexts.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let template: string;
let demoProject: string;
let demoUser: string;

before(async () => {
  t = await testApp({ cloud: true });
  demoProject = t.keystone.state.findProjectByName('demo', 'default')!.id;
  demoUser = t.keystone.state.findUserByName('demo', 'default')!.id;
  const res = await t.as('demo', {
    method: 'POST',
    url: '/v1/clustertemplates',
    payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', master_lb_enabled: true, labels: { kube_tag: 'v1.35.1' } },
  });
  assert.equal(res.statusCode, 201, res.body);
  template = res.json().uuid;
});
after(() => t.close());

interface Line { quota: string; needed: number; in_use: number | null; limit: number | null; short: boolean }

/** What the database and Keystone hold: a dry-run changes none of it. */
const written = async () => {
  const db = t.app.services.db;
  return [await db.getRepository(ClusterEntity).count(), await db.getRepository(NodeGroupEntity).count(), await db.getRepository(OperationEntity).count(), t.keystone.state.appCreds.all().length];
};
const post = (url: string, payload: unknown, user: 'demo' | 'demo-reader' = 'demo') => t.as(user, { method: 'POST', url, payload: payload as Record<string, unknown> });
const line = (bill: Line[], quota: string) => bill.find((l) => l.quota === quota)!;
/** The quotas a 403's detail names ("<quota>: needed N, in use N, limit N"). */
const named = (detail: string) => [...detail.matchAll(/(\w+)(?: \(per [^)]+\))?: needed/g)].map((m) => m[1]);

test('a create: the bill of every quota, the label warnings, nothing written; a shortage names the same quotas as the real call', async () => {
  const before = await written();
  const body = { cluster_template_id: template, name: 'dry', master_count: 3, node_count: 2, floating_ip_enabled: true, labels: { kube_tag: 'v1.35.1', no_such_label: 'x', etcd_tag: '3.5' } };
  const ok = await post('/v1/dry-run/clusters', body);
  assert.equal(ok.statusCode, 200, ok.body);
  const dry = ok.json();
  assert.deepEqual([dry.operation, dry.accepted, dry.status, dry.errors, dry.checked], ['create', true, 202, [], true]);
  const bill: Line[] = dry.bill;
  assert.deepEqual(
    Object.fromEntries(['clusters', 'instances', 'cores', 'ram', 'server_groups', 'port', 'floatingip', 'load_balancer', 'listener', 'pool', 'member', 'health_monitor', 'security_group', 'network'].map((q) => [q, line(bill, q).needed])),
    // m1.medium 2 vCPU / 4096 MiB, m1.small 1 / 2048; 5 ports of nodes, the VIP, the router's; a floating IP per node and the API's.
    { clusters: 1, instances: 5, cores: 8, ram: 16384, server_groups: 2, port: 7, floatingip: 6, load_balancer: 1, listener: 1, pool: 1, member: 3, health_monitor: 1, security_group: 2, network: 1 },
  );
  assert.equal(line(bill, 'clusters').limit, 20);
  assert.ok(dry.warnings.some((w: string) => /no_such_label is unknown/.test(w)), dry.warnings.join(' | '));
  assert.ok(dry.warnings.some((w: string) => /etcd_tag is not supported/.test(w)));
  assert.deepEqual(await written(), before, 'a dry-run writes nothing');

  t.cloud!.nova.setQuota(demoProject, { cores: 6, instances: 4 });
  t.cloud!.neutron.quotas.set(demoProject, { floatingip: 2 });
  try {
    const short = (await post('/v1/dry-run/clusters', body)).json();
    assert.deepEqual([short.accepted, short.status], [false, 403]);
    const shortQuotas = (short.bill as Line[]).filter((l) => l.short).map((l) => l.quota);
    assert.deepEqual(shortQuotas, ['instances', 'cores', 'floatingip']);
    assert.deepEqual(line(short.bill, 'cores'), { ...line(short.bill, 'cores'), needed: 8, in_use: 0, limit: 6 });
    const real = await post('/v1/clusters', body);
    assert.equal(real.statusCode, 403, real.body);
    assert.deepEqual(real.json().errors, short.errors, 'the dry-run answers the real call’s envelope');
    assert.deepEqual(named(real.json().errors[0].detail), shortQuotas);
    assert.deepEqual(await written(), before, 'neither wrote anything');
  } finally {
    t.cloud!.nova.quotas.delete(demoProject);
    t.cloud!.neutron.quotas.delete(demoProject);
  }
});

test('a create the real call refuses before any bill: the same envelope in a 200; the dry-run’s own refusals are its answer', async () => {
  const cases: Record<string, unknown>[] = [
    { cluster_template_id: template, labels: { kube_tag: 'v1.99.0' } },
    { cluster_template_id: template, color: 'blue' },
    { cluster_template_id: template, master_count: 2, master_lb_enabled: false },
    { cluster_template_id: 'no-such-template' },
    { cluster_template_id: template, keypair: 'nope' },
  ];
  for (const body of cases) {
    const dry = await post('/v1/dry-run/clusters', body);
    const real = await post('/v1/clusters', body);
    assert.equal(dry.statusCode, 200, dry.body);
    assert.ok(real.statusCode >= 400, real.body);
    assert.deepEqual([dry.json().status, dry.json().errors, dry.json().bill], [real.statusCode, real.json().errors, []], JSON.stringify(body));
  }
  const reader = await post('/v1/dry-run/clusters', { cluster_template_id: template }, 'demo-reader');
  assert.equal(reader.statusCode, 403, 'the dry-run of a create needs cluster:create');
  assert.equal(reader.json().errors[0].detail, "Policy doesn't allow cluster:create to be performed.");
  const anonymous = await t.app.inject({ method: 'POST', url: '/v1/dry-run/clusters', payload: { cluster_template_id: template } });
  assert.equal(anonymous.statusCode, 401);
});

test('a resize and a node group create bill what they add; an upgrade its peak; the state table answers as the real call', async () => {
  const { cluster } = await insertCluster(t.app, { user: demoUser, project: demoProject, name: 'settled', nodegroups: true, pki: false, template: { master_lb_enabled: true, floating_ip_enabled: true, labels: { kube_tag: 'v1.35.2' } } });
  const before = await written();
  const resize = (await post(`/v1/dry-run/clusters/${cluster.uuid}/actions/resize`, { node_count: 4 })).json();
  assert.deepEqual([resize.operation, resize.accepted, resize.status], ['resize', true, 202]);
  // Three more m1.small workers: their servers, ports and floating IPs; nothing of the network or the load balancer.
  const adds = (bill: Line[]) => Object.fromEntries(bill.filter((l) => l.needed > 0).map((l) => [l.quota, l.needed]));
  assert.deepEqual(adds(resize.bill), { instances: 3, cores: 3, ram: 6144, server_group_members: 4, port: 3, floatingip: 3 });
  const shrink = (await post(`/v1/dry-run/clusters/${cluster.uuid}/actions/resize`, { node_count: 0 })).json();
  assert.deepEqual([shrink.accepted, adds(shrink.bill)], [true, {}]);

  const ng = (await post(`/v1/dry-run/clusters/${cluster.uuid}/nodegroups`, { name: 'big', node_count: 2, flavor_id: 'm1.large', docker_volume_size: 10 })).json();
  assert.deepEqual([ng.operation, ng.accepted], ['nodegroup_create', true]);
  assert.deepEqual(adds(ng.bill), { instances: 2, cores: 8, ram: 16384, server_groups: 1, server_group_members: 2, volumes: 2, gigabytes: 20, port: 2, floatingip: 2 });
  const taken = (await post(`/v1/dry-run/clusters/${cluster.uuid}/nodegroups`, { name: 'default-worker' })).json();
  const takenReal = await post(`/v1/clusters/${cluster.uuid}/nodegroups`, { name: 'default-worker' });
  assert.deepEqual([taken.status, taken.errors], [takenReal.statusCode, takenReal.json().errors]);

  const to = await post('/v1/clustertemplates', { name: 'k8s-136', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', master_lb_enabled: true, labels: { kube_tag: 'v1.36.0' } });
  const up = (await post(`/v1/dry-run/clusters/${cluster.uuid}/actions/upgrade`, { cluster_template: to.json().uuid, max_batch_size: 3 })).json();
  assert.deepEqual([up.operation, up.accepted], ['upgrade', true]);
  // The peak: a control plane (m1.medium) first, then the one worker (a batch of 3 bounded by the group's size).
  assert.deepEqual(adds(up.bill), { instances: 1, cores: 2, ram: 4096, server_group_members: 2, port: 1, floatingip: 1, member: 1 });
  const skip = await post('/v1/clustertemplates', { name: 'k8s-137', coe: 'kubernetes', image_id: 'ubuntu-24.04', labels: { kube_tag: 'v1.34.1' } });
  const down = (await post(`/v1/dry-run/clusters/${cluster.uuid}/actions/upgrade`, { cluster_template: skip.json().uuid })).json();
  const downReal = await post(`/v1/clusters/${cluster.uuid}/actions/upgrade`, { cluster_template: skip.json().uuid });
  assert.deepEqual([down.status, down.errors], [downReal.statusCode, downReal.json().errors]);
  assert.deepEqual(await written(), before, 'dry-runs and refused calls wrote nothing');

  // The real resize starts; another dry-run now gets the state table's answer, as the real call would.
  t.cloud!.nova.setQuota(demoProject, { instances: 2 });
  try {
    const short = (await post(`/v1/dry-run/clusters/${cluster.uuid}/actions/resize`, { node_count: 4 })).json();
    const real = await post(`/v1/clusters/${cluster.uuid}/actions/resize`, { node_count: 4 });
    assert.equal(real.statusCode, 403, real.body);
    assert.deepEqual([short.status, short.errors], [403, real.json().errors]);
    assert.deepEqual(named(real.json().errors[0].detail), (short.bill as Line[]).filter((l) => l.short).map((l) => l.quota));
  } finally {
    t.cloud!.nova.quotas.delete(demoProject);
  }
  assert.equal((await post(`/v1/clusters/${cluster.uuid}/actions/resize`, { node_count: 2 })).statusCode, 202);
  const busy = (await post(`/v1/dry-run/clusters/${cluster.uuid}/actions/resize`, { node_count: 3 })).json();
  const busyReal = await post(`/v1/clusters/${cluster.uuid}/actions/resize`, { node_count: 3 });
  assert.equal(busyReal.statusCode, 409, busyReal.body);
  assert.deepEqual([busy.status, busy.errors], [409, busyReal.json().errors]);
});

describe('the shared machinery', () => {
  /** A reply that records what it was given. */
  const reply = () => {
    const r = { statusCode: 0, body: undefined as unknown, code(c: number) { r.statusCode = c; return r; }, send(b: unknown) { r.body = b; return r; } };
    return r;
  };
  const request = (over: Partial<FastifyRequest> = {}) => ({ auth: authContext(), authToken: 't', body: {}, ...over }) as unknown as FastifyRequest;

  test('dryRunErrors: the request’s own refusal is the answer (200); the dry-run’s own errors are thrown', () => {
    const handle = dryRunErrors('resize');
    const r = reply();
    handle(errors.resizeMaster(), request(), r as unknown as FastifyReply);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.body, { operation: 'resize', accepted: false, status: 400, errors: [{ request_id: '', code: 'client', status: 400, title: 'Resizing a master nodegroup is not supported', detail: 'Resizing a master nodegroup is not supported.', links: [] }], checked: false, bill: [], warnings: [] });
    for (const own of [errors.unauthorized('u'), errors.policyDenied('cluster:resize'), errors.notAcceptable('x'), errors.cloudUnavailable('Nova'), new Error('unexpected')]) {
      assert.throws(() => handle(own, request(), reply() as unknown as FastifyReply), (e: unknown) => e === own);
    }
  });

  test('dryRunOutcome: a shortage first; a create’s credential refusal; else what the table says of the cluster', async () => {
    const fits = assess({ ...zero(), instances: 1 }, { instances: { limit: 10, used: 0 } });
    const short = assess({ ...zero(), instances: 1 }, { instances: { limit: 1, used: 1 } });
    const shortAnswer = await dryRunOutcome(request(), 'create', undefined, short, ['w']);
    assert.deepEqual([shortAnswer.accepted, shortAnswer.status, shortAnswer.warnings, shortAnswer.checked], [false, 403, ['w'], true]);
    assert.equal((await dryRunOutcome(request(), 'create', undefined, fits)).accepted, true);
    const restricted = request({ auth: authContext({ applicationCredential: { id: 'ac', restricted: true, accessRules: null } }) });
    const refused = await dryRunOutcome(restricted, 'create', undefined, fits);
    assert.deepEqual([refused.accepted, refused.status], [false, 400]);
    const gone = await dryRunOutcome(request({ server: t.app } as never), 'resize', '00000000-0000-4000-8000-000000000000', fits);
    assert.deepEqual([gone.status, gone.errors[0]!.detail], [404, 'Cluster 00000000-0000-4000-8000-000000000000 could not be found.']);
  });
});
