// The quirks of Debian's python3-magnumclient 4.0.0 (spec §8, §9), one test each: first what the
// real CLI puts on the wire (seen by a recording proxy the catalog points at), then the same bytes
// replayed against the service with app.inject, asserting status and what was stored.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { OperationEntity } from '../../../src/db/entities/operation.js';
import { cliFor, type Cli } from '../../support/cli.js';
import { testApp, type TestApp, type User } from '../../support/app.js';
import { settleCluster } from '../../support/settle.js';
import { startRecorder, type Recorded, type Recorder } from './recorder.js';

let t: TestApp;
let cli: Cli;
let rec: Recorder;

before(async () => {
  t = await testApp({ listen: true });
  rec = await startRecorder(t.apiUrl!);
  t.keystone.state.catalog.upsert({ type: 'container-infra', name: 'magnum', url: `${rec.url}/v1` });
  const port = (t.keystone.app.server.address() as { port: number }).port;
  cli = await cliFor(`http://127.0.0.1:${port}/v3`);
  await template('demo', 'k8s', { master_lb_enabled: true });
  await template('demo', 'k8s-nolb', { master_lb_enabled: false });
});
after(async () => {
  await cli.close();
  await rec.close();
  await t.close();
});

const ok = (r: { code: number; stdout: string; stderr: string }, out: RegExp) => {
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, out);
};

async function template(user: User, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const payload = { name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', labels: { kube_tag: 'v1.34.2' }, ...extra };
  const r = await t.as(user, { method: 'POST', url: '/v1/clustertemplates', payload });
  assert.equal(r.statusCode, 201, r.body);
  return r.json().uuid;
}

/** A cluster created through the API and brought to CREATE_COMPLETE. */
async function cluster(name: string, tpl = 'k8s'): Promise<string> {
  const r = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { name, cluster_template_id: tpl } });
  assert.equal(r.statusCode, 202, r.body);
  const { uuid } = r.json();
  await settleCluster(t.app, uuid);
  return uuid;
}

const get = async (user: User, url: string) => {
  const r = await t.as(user, { method: 'GET', url });
  assert.equal(r.statusCode, 200, `${url}: ${r.body}`);
  return r.json();
};

/** The recorded request again, byte for byte (its headers, token included, and body), optionally at another URL or with another body. */
function replay(r: Recorded, over: { url?: string; body?: string } = {}): Promise<LightMyRequestResponse> {
  const keep = ['content-type', 'accept', 'openstack-api-version', 'x-auth-token', 'user-agent', ...(over.body === undefined ? ['content-length'] : [])];
  const headers = Object.fromEntries(keep.filter((h) => r.headers[h] !== undefined).map((h) => [h, String(r.headers[h])]));
  return t.app.inject({ method: r.method as InjectOptions['method'], url: over.url ?? r.url, headers, payload: over.body ?? r.body });
}

function assertEnvelope(res: LightMyRequestResponse, status: number, detail: string): void {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const title = detail.split('.')[0];
  assert.deepEqual(res.json(), { errors: [{ request_id: '', code: 'client', status, title, detail, links: [] }] });
}

const writes = (rs: Recorded[]) => rs.filter((r) => r.method !== 'GET');
const shape = (r: Recorded) => [r.method, r.url, r.headers['content-type'], r.headers['content-length'], r.body.toString('utf8')];

test('quirk: empty application/octet-stream body on DELETE and on the ca rotate PATCH', { timeout: 300_000 }, async () => {
  const admin = t.keystone.state.projectId('admin');
  const other = t.keystone.state.projectId('other');
  await template('demo', 'doomed');
  const c = await cluster('oct');
  const ng = await t.as('demo', { method: 'POST', url: `/v1/clusters/${c}/nodegroups`, payload: { name: 'pool', node_count: 1 } });
  assert.equal(ng.statusCode, 202, ng.body);
  await settleCluster(t.app, c);
  for (const project of [admin, other]) {
    const q = await t.as('admin', { method: 'POST', url: '/v1/quotas', payload: { project_id: project, resource: 'Cluster', hard_limit: 9 } });
    assert.equal(q.statusCode, 201, q.body);
  }
  rec.take();

  ok(await cli.run('demo', ['coe', 'ca', 'rotate', 'oct']), new RegExp(`Request to rotate the CA certificate for cluster ${c} has been accepted`));
  await settleCluster(t.app, c);
  ok(await cli.run('demo', ['coe', 'nodegroup', 'delete', 'oct', 'pool']), /Request to delete nodegroup pool has been accepted/);
  await settleCluster(t.app, c);
  const [ct, quota, cl] = await Promise.all([
    cli.run('demo', ['coe', 'cluster', 'template', 'delete', 'doomed']),
    cli.run('admin', ['coe', 'quotas', 'delete', '--project-id', admin, '--resource', 'Cluster']),
    cli.run('demo', ['coe', 'cluster', 'delete', 'oct']),
  ]);
  ok(ct, /Request to delete cluster template doomed has been accepted/);
  ok(quota, new RegExp(`Request to delete quota for project id ${admin} and resource Cluster has been accepted`));
  ok(cl, /Request to delete cluster oct has been accepted/);

  // What the client sent: no body at all, yet Content-Type: application/octet-stream.
  const sent = writes(rec.take());
  assert.deepEqual(sent.map(shape).sort(), [
    ['DELETE', '/v1/clusters/oct/nodegroups/pool', 'application/octet-stream', '0', ''],
    ['DELETE', '/v1/clusters/oct', 'application/octet-stream', '0', ''],
    ['DELETE', '/v1/clustertemplates/doomed', 'application/octet-stream', '0', ''],
    ['DELETE', `/v1/quotas/${admin}/Cluster`, 'application/octet-stream', '0', ''],
    ['PATCH', `/v1/certificates/${c}`, 'application/octet-stream', '0', ''],
  ].sort());
  // What the service did with them.
  const ops = await t.app.services.db.getRepository(OperationEntity).find({ where: { cluster_id: c }, order: { created_at: 'ASC' } });
  assert.deepEqual(ops.map((o) => o.kind), ['create', 'nodegroup_create', 'rotate_ca', 'nodegroup_delete', 'delete']);
  assert.equal((await get('demo', `/v1/clusters/${c}`)).status, 'DELETE_IN_PROGRESS');
  assert.equal((await t.as('demo', { method: 'GET', url: '/v1/clustertemplates/doomed' })).statusCode, 404);
  // A project without a quota row shows the default limit, without an id.
  assert.equal((await get('admin', `/v1/quotas/${admin}/Cluster`)).id, undefined);

  // The same bytes against fresh resources: each accepted, none a 415 or a JSON error.
  const sentTo = (url: string) => sent.find((r) => r.url === url)!;
  await template('demo', 'doomed-2');
  const c2 = await cluster('oct-2');
  await t.as('demo', { method: 'POST', url: `/v1/clusters/${c2}/nodegroups`, payload: { name: 'pool', node_count: 1 } });
  await settleCluster(t.app, c2);
  const rotate = await replay(sentTo(`/v1/certificates/${c}`), { url: `/v1/certificates/${c2}` });
  assert.equal(rotate.statusCode, 202, rotate.body);
  assert.deepEqual(rotate.json(), { uuid: c2 });
  await settleCluster(t.app, c2);
  assert.equal((await replay(sentTo('/v1/clusters/oct/nodegroups/pool'), { url: `/v1/clusters/${c2}/nodegroups/pool` })).statusCode, 204);
  assert.equal((await get('demo', `/v1/clusters/${c2}/nodegroups/pool`)).status, 'DELETE_IN_PROGRESS');
  await settleCluster(t.app, c2);
  const delTemplate = await replay(sentTo('/v1/clustertemplates/doomed'), { url: '/v1/clustertemplates/doomed-2' });
  assert.equal(delTemplate.statusCode, 204, delTemplate.body);
  assert.equal(delTemplate.body, '');
  const quotaDelete = sentTo(`/v1/quotas/${admin}/Cluster`);
  assert.equal((await replay(quotaDelete, { url: `/v1/quotas/${other}/Cluster` })).statusCode, 204);
  assert.equal((await get('admin', `/v1/quotas/${other}/Cluster`)).id, undefined);
  assert.equal((await replay(sentTo('/v1/clusters/oct'), { url: `/v1/clusters/${c2}` })).statusCode, 204);
  assert.equal((await get('demo', `/v1/clusters/${c2}`)).status, 'DELETE_IN_PROGRESS');
  // Errors on such requests keep Magnum's envelope (the CLI prints its title).
  assertEnvelope(await replay(sentTo('/v1/clustertemplates/doomed'), { url: '/v1/clustertemplates/nope' }), 404, 'ClusterTemplate nope could not be found.');
  const gone = await cli.run('demo', ['coe', 'cluster', 'template', 'delete', 'nope']);
  assert.match(gone.stdout + gone.stderr, /Delete for cluster template nope failed: ClusterTemplate nope could not be found \(HTTP 404\)/);
});

test('quirk: trailing slash on the nodegroup collection (and on every other path)', { timeout: 300_000 }, async () => {
  const c = await cluster('tsl');
  rec.take();
  ok(await cli.run('demo', ['coe', 'nodegroup', 'create', 'tsl', 'pool-b', '--node-count', '2', '--max-nodes', '4']), /Request to create nodegroup [0-9a-f-]{36} accepted/);
  const [byRole, limited] = await Promise.all([
    cli.run('demo', ['coe', 'nodegroup', 'list', 'tsl', '--role', 'worker', '-f', 'value', '-c', 'name', '-c', 'node_count']),
    cli.json<{ name: string }[]>('demo', ['coe', 'nodegroup', 'list', 'tsl', '--limit', '1', '--sort-key', 'name']),
  ]);
  assert.equal(byRole.code, 0, byRole.stderr);
  assert.deepEqual(byRole.stdout.trim().split('\n').sort(), ['default-worker 1', 'pool-b 2']);
  assert.deepEqual(limited.map((n) => n.name), ['default-master']);
  const sent = rec.take();
  assert.deepEqual(sent.map((r) => `${r.method} ${r.url}`).filter((l) => l.includes('nodegroups')).sort(), [
    'GET /v1/clusters/tsl/nodegroups/?limit=1&sort_key=name',
    'GET /v1/clusters/tsl/nodegroups/?role=worker',
    'POST /v1/clusters/tsl/nodegroups/',
  ]);
  const post = sent.find((r) => r.method === 'POST')!;
  assert.deepEqual(JSON.parse(post.body.toString()), { name: 'pool-b', node_count: 2, min_node_count: 0, max_node_count: 4, role: 'worker' });
  const pool = await get('demo', `/v1/clusters/${c}/nodegroups/pool-b`);
  assert.deepEqual([pool.node_count, pool.max_node_count, pool.role, pool.status], [2, 4, 'worker', 'CREATE_IN_PROGRESS']);

  // The recorded create again, to the same slash-ended collection: a second group is made.
  await settleCluster(t.app, c);
  const again = await replay(post, { body: post.body.toString().replace('pool-b', 'pool-c') });
  assert.equal(again.statusCode, 202, again.body);
  assert.equal((await get('demo', `/v1/clusters/${c}/nodegroups/pool-c`)).node_count, 2);
  await settleCluster(t.app, c);

  // Every GET answers the same with or without the slash, the query string after it.
  const ct = (await get('demo', '/v1/clustertemplates/k8s')).uuid;
  const paths: [User, string][] = [
    ['demo', '/v1/clustertemplates'],
    ['demo', `/v1/clustertemplates/${ct}`],
    ['demo', '/v1/clustertemplates/detail'],
    ['demo', '/v1/clusters'],
    ['demo', '/v1/clusters/detail'],
    ['demo', `/v1/clusters/${c}`],
    ['demo', `/v1/clusters/${c}/nodegroups`],
    ['demo', `/v1/clusters/${c}/nodegroups/pool-b`],
    ['demo', `/v1/certificates/${c}`],
    ['admin', '/v1/quotas'],
    ['admin', '/v1/mservices'],
  ];
  for (const [user, path] of paths) {
    const [plain, slash] = [await get(user, path), await get(user, `${path}/`)];
    assert.deepEqual(slash, plain, path);
  }
  const q = `project_id=${t.keystone.state.projectId('demo')}`;
  assert.deepEqual(await get('demo', `/v1/stats/?${q}`), await get('demo', `/v1/stats?${q}`));
  const role = await get('demo', `/v1/clusters/${c}/nodegroups/?role=master`);
  assert.deepEqual(role.nodegroups.map((n: { name: string }) => n.name), ['default-master']);

  // A cluster named "detail" does not shadow the detail list, slash or not.
  await cluster('detail');
  for (const path of ['/v1/clusters/detail', '/v1/clusters/detail/']) {
    const names: string[] = (await get('demo', path)).clusters.map((x: { name: string }) => x.name);
    assert.ok(names.includes('detail') && names.includes('tsl'), `${path}: ${names.join()}`);
  }

  // A page asked for under the slash links to its next page, and the link works.
  const page = await get('demo', `/v1/clusters/${c}/nodegroups/?limit=2&sort_key=name`);
  assert.deepEqual(page.nodegroups.map((n: { name: string }) => n.name), ['default-master', 'default-worker']);
  const next = new URL(page.next);
  assert.match(next.pathname, new RegExp(`^/v1/clusters/${c}/nodegroups/?$`));
  const rest = await get('demo', next.pathname + next.search);
  assert.deepEqual(rest.nodegroups.map((n: { name: string }) => n.name), ['pool-b', 'pool-c']);
});

test('quirk: --master-lb-enabled sends master_lb_enabled=false (absent sends nothing)', { timeout: 300_000 }, async () => {
  // 4.0.0 gives --master-lb-enabled and --master-lb-disabled the same const False: the two flags are
  // the same bytes, so the service stores the false it got (as Magnum does) and leaves the choice to
  // the template when the flag is absent — the way to ask for a load balancer with this client.
  rec.take();
  const [flag, absent, ha, refused] = await Promise.all([
    cli.run('demo', ['coe', 'cluster', 'create', 'lb-flag', '--cluster-template', 'k8s', '--master-lb-enabled']),
    cli.run('demo', ['coe', 'cluster', 'create', 'lb-absent', '--cluster-template', 'k8s']),
    cli.run('demo', ['coe', 'cluster', 'create', 'lb-ha', '--cluster-template', 'k8s', '--master-count', '3']),
    cli.run('demo', ['coe', 'cluster', 'create', 'lb-ha-flag', '--cluster-template', 'k8s', '--master-count', '3', '--master-lb-enabled']),
  ]);
  for (const r of [flag, absent, ha]) ok(r, /Request to create cluster [0-9a-f-]{36} accepted/);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /Master node count can only be one if master loadbalancer is disabled\./, 'refused by the client itself');

  const sent = new Map(writes(rec.take()).map((r) => [JSON.parse(r.body.toString()).name as string, r]));
  assert.deepEqual([...sent.keys()].sort(), ['lb-absent', 'lb-flag', 'lb-ha']);
  const body = (name: string) => JSON.parse(sent.get(name)!.body.toString());
  assert.equal(body('lb-flag').master_lb_enabled, false);
  assert.equal('master_lb_enabled' in body('lb-absent'), false);
  assert.equal('master_lb_enabled' in body('lb-ha'), false);

  const shown = await Promise.all(
    ['lb-flag', 'lb-absent', 'lb-ha'].map((n) => cli.json('demo', ['coe', 'cluster', 'show', n, '-c', 'master_lb_enabled', '-c', 'master_count'])),
  );
  assert.deepEqual(shown, [
    { master_count: 1, master_lb_enabled: false },
    { master_count: 1, master_lb_enabled: true },
    { master_count: 3, master_lb_enabled: true },
  ]);

  // The recorded bytes again: the same false is stored; a client that sends true gets true.
  const replayed = await replay(sent.get('lb-flag')!);
  assert.equal(replayed.statusCode, 202, replayed.body);
  assert.equal((await get('demo', `/v1/clusters/${replayed.json().uuid}`)).master_lb_enabled, false);
  const raw = (name: string, extra: Record<string, unknown>) =>
    replay(sent.get('lb-flag')!, { body: JSON.stringify({ ...body('lb-flag'), name, ...extra }) });
  const yes = await raw('lb-true', { cluster_template_id: 'k8s-nolb', master_lb_enabled: true, master_count: 3 });
  assert.equal(yes.statusCode, 202, yes.body);
  const stored = await get('demo', `/v1/clusters/${yes.json().uuid}`);
  assert.deepEqual([stored.master_lb_enabled, stored.master_count], [true, 3]);
  // The combination the client refuses, sent anyway, is Magnum's 400 in Magnum's envelope.
  assertEnvelope(await raw('lb-bad', { master_count: 3 }), 400, 'master_count must be 1 when master_lb_enabled is False');
  assertEnvelope(await raw('lb-bad', { master_count: 3, cluster_template_id: 'k8s-nolb', master_lb_enabled: undefined }), 400, 'master_count must be 1 when master_lb_enabled is False');
});

test('quirk: Python-dict strings in PATCH values (labels, health_status_reason)', { timeout: 300_000 }, async () => {
  await template('demo', 'pyd');
  const c = await cluster('pyd-c');
  rec.take();
  const labels = `labels=kube_tag=v1.35.0,quote=it's,dq=say "hi",both=a'b"c,bs=a\\b`;
  const [tpl, health, forbidden] = await Promise.all([
    cli.json('demo', ['coe', 'cluster', 'template', 'update', 'pyd', 'replace', labels, '-c', 'labels']),
    cli.run('demo', ['coe', 'cluster', 'update', 'pyd-c', 'replace', 'health_status=UNHEALTHY', 'health_status_reason=api=down,nodes=2/3 ready']),
    cli.run('demo', ['coe', 'cluster', 'update', 'pyd-c', 'replace', 'labels=a=b']),
  ]);
  const expected = { kube_tag: 'v1.35.0', quote: "it's", dq: 'say "hi"', both: `a'b"c`, bs: 'a\\b' };
  assert.deepEqual(tpl, { labels: expected });
  ok(health, /Request to update cluster pyd-c has been accepted/);
  // The dict parses; a cluster's labels are simply not changeable (Magnum's words).
  assert.match(forbidden.stderr, /cannot change cluster property\(ies\) labels \(HTTP 400\)/);

  // What the client sent: str() of a dict, Python's quoting and escapes.
  const sent = writes(rec.take());
  const value = (url: string, path: string) => JSON.parse(sent.find((r) => r.url === url && r.body.includes(path))!.body.toString());
  const tplPatch = value('/v1/clustertemplates/pyd', '/labels');
  assert.deepEqual(tplPatch, [{ op: 'replace', path: '/labels', value: `{'kube_tag': 'v1.35.0', 'quote': "it's", 'dq': 'say "hi"', 'both': 'a\\'b"c', 'bs': 'a\\\\b'}` }]);
  assert.deepEqual(value('/v1/clusters/pyd-c', 'health_status_reason'), [
    { op: 'replace', path: '/health_status', value: 'UNHEALTHY' },
    { op: 'replace', path: '/health_status_reason', value: "{'api': 'down', 'nodes': '2/3 ready'}" },
  ]);
  assert.deepEqual(value('/v1/clusters/pyd-c', '/labels'), [{ op: 'replace', path: '/labels', value: "{'a': 'b'}" }]);
  const shown = await get('demo', `/v1/clusters/${c}`);
  assert.deepEqual([shown.health_status, shown.health_status_reason], ['UNHEALTHY', { api: 'down', nodes: '2/3 ready' }]);
  assert.deepEqual(shown.labels, { kube_tag: 'v1.34.2' }, 'the refused patch changed nothing');

  // The recorded request against another template, then other literals the same way.
  await template('demo', 'pyd-2');
  const patch = sent.find((r) => r.url === '/v1/clustertemplates/pyd')!;
  const again = await replay(patch, { url: '/v1/clustertemplates/pyd-2' });
  assert.equal(again.statusCode, 200, again.body);
  assert.deepEqual(again.json().labels, expected);
  const cases: [string, Record<string, string>][] = [
    ["{'n': 1, 'on': True, 'off': False}", { n: '1', on: 'True', off: 'False' }],
    ['{"json": "text", "also": "fine"}', { json: 'text', also: 'fine' }],
    ["{'tab': 'a\\tb', 'nl': 'x\\ny', 'trailing': 'comma',}", { tab: 'a\tb', nl: 'x\ny', trailing: 'comma' }],
    ['{}', {}],
  ];
  for (const [literal, stored] of cases) {
    const r = await replay(patch, { url: '/v1/clustertemplates/pyd-2', body: JSON.stringify([{ op: 'replace', path: '/labels', value: literal }]) });
    assert.equal(r.statusCode, 200, `${literal}: ${r.body}`);
    assert.deepEqual((await get('demo', '/v1/clustertemplates/pyd-2')).labels, stored, literal);
  }
  // Not a dict: Magnum's 400, nothing stored.
  for (const literal of ["{'a': 'b'", "['a', 'b']", "{'a': b}", 'a=b']) {
    const r = await replay(patch, { url: '/v1/clustertemplates/pyd-2', body: JSON.stringify([{ op: 'replace', path: '/labels', value: literal }]) });
    assert.equal(r.statusCode, 400, `${literal}: ${r.body}`);
    assert.equal(r.json().errors[0].code, 'client');
    assert.match(r.json().errors[0].detail, /labels/, literal);
  }
  assert.deepEqual((await get('demo', '/v1/clustertemplates/pyd-2')).labels, {});
  const healthy = await replay(patch, {
    url: `/v1/clusters/${c}`,
    body: JSON.stringify([{ op: 'replace', path: '/health_status_reason', value: "{'api': 'ok'}" }, { op: 'replace', path: '/health_status', value: 'HEALTHY' }]),
  });
  assert.equal(healthy.statusCode, 202, healthy.body);
  const healed = await get('demo', `/v1/clusters/${c}`);
  assert.deepEqual([healed.health_status, healed.health_status_reason], ['HEALTHY', { api: 'ok' }]);
});
