// The bounds of what a request may ask for (src/domain/limits.ts): the functions that apply them, then
// unbounded input through the API (issue 15, hole 4): labels, names, node counts (the deployment's maximum and the
// ceiling), body size and depth, NUL characters, integers past their columns, patch documents, CSRs,
// page sizes. Each is a clear 400 (a too large body a 413) in Magnum's envelope, and nothing is written.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { newOperation } from '../../src/db/repos/operations.js';
import { ApiError } from '../../src/domain/errors.js';
import { boundedMap, boundedMessage, checkAtMost, HEALTH_REASON, MESSAGE_MAX } from '../../src/domain/limits.js';
import { OperationStore } from '../../src/operations/store.js';
import { testApp, type TestApp } from '../support/app.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
let template: string;

before(async () => {
  t = await testApp({
    config: (c) => {
      c.limits.maxNodeCount = 10;
      c.limits.maxMasterCount = 3;
    },
  });
  const res = await t.as('demo', {
    method: 'POST',
    url: '/v1/clustertemplates',
    payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true, labels: { kube_tag: 'v1.35.2' } },
  });
  assert.equal(res.statusCode, 201, res.body);
  template = res.json().uuid;
});
after(() => t.close());

describe('the functions', () => {
  const refusedWith = (fn: () => unknown, message: string) =>
    assert.throws(fn, (e: unknown) => e instanceof ApiError && e.status === 400 && e.message === message);

  test('checkAtMost: wsme’s wording above the maximum; at it, below it or absent passes', () => {
    refusedWith(() => checkAtMost('node_count', 11, 10), "Invalid input for field/attribute node_count. Value: '11'. Value should be lower or equal to 10");
    for (const v of [10, 0, null, undefined]) checkAtMost('node_count', v, 10);
  });

  test('boundedMap: a dict of Python strings within its bounds, else a 400 naming what is wrong', () => {
    const b = { count: 2, keyLength: 3, valueLength: 5 };
    assert.deepEqual(boundedMap('r', { a: true, b: null }, b), { a: 'True', b: 'None' });
    assert.deepEqual(boundedMap('r', { n: 12, f: false }, b), { n: '12', f: 'False' });
    refusedWith(() => boundedMap('r', 'x', b), "Invalid input for field/attribute r. Value: 'x'. Value should be a dict");
    refusedWith(() => boundedMap('r', ['a'], b), `Invalid input for field/attribute r. Value: '["a"]'. Value should be a dict`);
    refusedWith(() => boundedMap('r', { a: '1', b: '2', c: '3' }, b), `Invalid input for field/attribute r. Value: '{"a":"1","b":"2","c":"3"}'. Value should have at most 2 entries`);
    refusedWith(() => boundedMap('r', { abcd: '1' }, b), "Invalid input for field/attribute r. Value: 'abcd'. Keys should have 1 to 3 characters");
    refusedWith(() => boundedMap('r', { '': '1' }, b), "Invalid input for field/attribute r. Value: ''. Keys should have 1 to 3 characters");
    refusedWith(() => boundedMap('r', { a: 'xxxxxx' }, b), "Invalid input for field/attribute r.a. Value: 'xxxxxx'. Value should have a maximum character requirement of 5");
    const proto = JSON.parse('{"__proto__": "x"}') as Record<string, unknown>;
    refusedWith(() => boundedMap('r', proto, HEALTH_REASON), "Invalid input for field/attribute r. Value: '__proto__'. This key is reserved");
  });

  test('boundedMessage: MESSAGE_MAX characters at most, saying it was cut and how long it was', () => {
    assert.equal(boundedMessage('short'), 'short');
    assert.equal(boundedMessage('x'.repeat(MESSAGE_MAX)), 'x'.repeat(MESSAGE_MAX));
    const cut = boundedMessage('y'.repeat(1_000_000));
    assert.ok(cut.length <= MESSAGE_MAX, String(cut.length));
    assert.match(cut, /^y+… \(1000000 characters, cut\)$/);
  });
});

const TABLES = ['cluster', 'cluster_template', 'nodegroup', 'operation', 'quota', 'cluster_event', 'cluster_certificate'];
const counts = async () => {
  const rows = (await t.app.services.db.query(TABLES.map((x) => `SELECT '${x}' AS t, count(*)::int AS n FROM ${x}`).join(' UNION ALL '))) as { t: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.t, r.n]));
};

/** Asserts a 400 (or `status`) in Magnum's envelope whose detail matches, and that no row was written. */
async function refused(send: () => Promise<LightMyRequestResponse>, detail: RegExp, status = 400): Promise<void> {
  const before = await counts();
  const r = await send();
  assert.equal(r.statusCode, status, r.body.slice(0, 500));
  const e = r.json().errors[0];
  assert.equal(e.status, status);
  assert.match(e.detail, detail);
  assert.deepEqual(await counts(), before, 'nothing written');
}

const json = (body: string) => ({ payload: body, headers: { 'content-type': 'application/json' } });
const labels = (n: number, value = 'v') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));

describe('labels', () => {
  const bodies = {
    'POST /v1/clustertemplates': (l: string) => `{"name":"t","coe":"kubernetes","image_id":"ubuntu-24.04","labels":${l}}`,
    'POST /v1/clusters': (l: string) => `{"cluster_template_id":"${template}","labels":${l}}`,
    'POST /v1/baymodels': (l: string) => `{"name":"t","coe":"kubernetes","image_id":"ubuntu-24.04","keypair_id":"k","labels":${l}}`,
  };
  for (const [op, body] of Object.entries(bodies)) {
    const [method, url] = op.split(' ') as ['POST', string];
    const headers = url === '/v1/baymodels' ? { 'openstack-api-version': 'container-infra 1.10' } : {};
    const send = (l: string) => () => t.as('demo', { method, url, payload: body(l), headers: { 'content-type': 'application/json', ...headers } });
    test(`${op}: at most 100, keys of 1 to 255 characters and never __proto__/constructor/prototype, values of 4096`, async () => {
      await refused(send(JSON.stringify(labels(101))), /^Invalid input for field\/attribute labels\..*Value should have at most 100 entries$/);
      await refused(send(JSON.stringify({ ['k'.repeat(256)]: 'v' })), /Value: 'k{256}'\. Keys should have a maximum character requirement of 255$/);
      await refused(send('{"":"v"}'), /Keys should not be empty$/);
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        await refused(send(`{"${key}":"x","a":"b"}`), new RegExp(`Value: '${key}'\\. This key is reserved$`));
      }
      await refused(send(JSON.stringify({ a: 'x'.repeat(4097) })), /field\/attribute labels\.a\..*maximum character requirement of 4096$/);
      assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'x'), false);
    });
  }

  test('a template patch of /labels with a Python dict is bounded alike', async () => {
    const url = `/v1/clustertemplates/${template}`;
    await refused(() => t.as('demo', { method: 'PATCH', url, payload: [{ op: 'replace', path: '/labels', value: "{'__proto__': 'x'}" }] }), /This key is reserved$/);
    const many = `{${Array.from({ length: 101 }, (_, i) => `'k${i}': 'v'`).join(', ')}}`;
    await refused(() => t.as('demo', { method: 'PATCH', url, payload: [{ op: 'replace', path: '/labels', value: many }] }), /at most 100 entries$/);
    await refused(() => t.as('demo', { method: 'PATCH', url, payload: [{ op: 'replace', path: '/labels', value: "{'a': 'x\\x00'}" }] }), /Invalid dict: \\x00 is not a character/);
  });

  test('node labels and taints (1.14) are bounded in number', async () => {
    const fx = await nodegroupCluster(t);
    const url = `/v1/clusters/${fx.cluster.uuid}/nodegroups`;
    await refused(() => t.as('demo', { method: 'POST', url, payload: { name: 'n', node_labels: labels(101, 'a') } }), /node_labels\..*at most 100 entries$/);
    const taints = Array.from({ length: 101 }, (_, i) => ({ key: `k${i}`, effect: 'NoSchedule' }));
    await refused(() => t.as('demo', { method: 'POST', url, payload: { name: 'n', node_taints: taints } }), /node_taints\..*at most 100 items$/);
  });
});

describe('names and identifiers', () => {
  test('a cluster name of 243, a template name of 256: 400; a 242-character cluster name is found by name', async () => {
    await refused(() => t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, name: 'a'.repeat(243) } }), /maximum character requirement of 242$/);
    await refused(() => t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'a'.repeat(256), coe: 'kubernetes', image_id: 'i' } }), /maximum character requirement of 255$/);
    const long = 'c'.repeat(242);
    const made = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, name: long } });
    assert.equal(made.statusCode, 202, made.body);
    const shown = await t.as('demo', { method: 'GET', url: `/v1/clusters/${long}` });
    assert.equal(shown.statusCode, 200, shown.body);
    await refused(() => t.as('demo', { method: 'GET', url: `/v1/clusters/${'x'.repeat(256)}` }), /ident\. .*maximum character requirement of 255$/);
    await refused(() => t.as('demo', { method: 'GET', url: `/v1/clusters?sort_key=${'k'.repeat(256)}` }), /sort_key\. .*maximum character requirement of 255$/);
  });
});

describe('node counts: the deployment’s maximum (MAX_NODE_COUNT=10, MAX_MASTER_COUNT=3 here) under the ceilings', () => {
  test('cluster create, PATCH, resize, upgrade batch, node group create and PATCH', async () => {
    const create = (body: object) => () => t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, ...body } });
    await refused(create({ node_count: 11 }), /node_count\. Value: '11'\. Value should be lower or equal to 10$/);
    await refused(create({ node_count: 5001 }), /node_count\. Value: '5001'\. Value should be lower or equal to 5000$/);
    await refused(create({ master_count: 4 }), /master_count\. Value: '4'\. Value should be lower or equal to 3$/);
    await refused(create({ master_count: 8 }), /lower or equal to 7$/);
    await refused(() => t.as('demo', { method: 'POST', url: '/v1/bays', payload: { baymodel_id: template, node_count: 11 }, headers: { 'openstack-api-version': 'container-infra 1.10' } }), /lower or equal to 10$/);
    const fx = await nodegroupCluster(t);
    const c = `/v1/clusters/${fx.cluster.uuid}`;
    await refused(() => t.as('demo', { method: 'PATCH', url: c, payload: [{ op: 'replace', path: '/node_count', value: 11 }] }), /lower or equal to 10$/);
    await refused(() => t.as('demo', { method: 'PATCH', url: c, payload: [{ op: 'replace', path: '/node_count', value: 1e300 }] }), /lower or equal to 10$/);
    await refused(() => t.as('demo', { method: 'POST', url: `${c}/actions/resize`, payload: { node_count: 11 } }), /lower or equal to 10$/);
    await refused(() => t.as('demo', { method: 'POST', url: `${c}/actions/upgrade`, payload: { cluster_template: template, max_batch_size: 11 } }), /max_batch_size\. .*lower or equal to 10$/);
    for (const f of ['node_count', 'min_node_count', 'max_node_count']) {
      await refused(() => t.as('demo', { method: 'POST', url: `${c}/nodegroups`, payload: { name: 'n', [f]: 11 } }), new RegExp(`${f}\\. .*lower or equal to 10$`));
    }
    await refused(() => t.as('demo', { method: 'PATCH', url: `${c}/nodegroups/${fx.worker.uuid}`, payload: [{ op: 'add', path: '/max_node_count', value: 11 }] }), /max_node_count\. .*lower or equal to 10$/);
    await refused(() => t.as('demo', { method: 'POST', url: `${c}/actions/resize`, payload: { node_count: 2, nodes_to_remove: ['x'.repeat(256)] } }), /nodes_to_remove\.0\. .*255$/);
  });
});

describe('integers past their columns', () => {
  test('volume size, timeout, quota limit and marker, event marker: 400 instead of the database’s error', async () => {
    const create = (body: object) => () => t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, ...body } });
    await refused(create({ docker_volume_size: 2 ** 31 }), /docker_volume_size\. .*lower or equal to 16384$/);
    await refused(create({ create_timeout: 2 ** 40 }), /create_timeout\. .*lower or equal to 10080$/);
    await refused(() => t.as('admin', { method: 'POST', url: '/v1/quotas', payload: { project_id: 'p', hard_limit: 2 ** 31 } }), /hard_limit\. .*lower or equal to 2147483647$/);
    await refused(() => t.as('admin', { method: 'GET', url: '/v1/quotas?marker=2147483648' }), /marker\. .*lower or equal to 2147483647$/);
    const fx = await nodegroupCluster(t);
    await refused(() => t.as('demo', { method: 'GET', url: `/v1/clusters/${fx.cluster.uuid}/events?marker=${2 ** 60}` }), /marker\. .*lower or equal to 9007199254740991$/);
    // Above max_limit a page is max_limit long, as in Magnum; a limit of 10^20 is no error either.
    const page = await t.as('demo', { method: 'GET', url: '/v1/clustertemplates?limit=100000000000000000000' });
    assert.equal(page.statusCode, 200, page.body);
  });
});

describe('bodies', () => {
  test(`a body over MAX_REQUEST_BODY_BYTES (112 KiB): 413 in Magnum's envelope`, async () => {
    const big = JSON.stringify({ name: 'x', coe: 'kubernetes', image_id: 'i', labels: { a: 'x'.repeat(120_000) } });
    await refused(() => t.as('demo', { method: 'POST', url: '/v1/clustertemplates', ...json(big) }), /^Request is too large: a request body may hold at most 114688 bytes\.$/, 413);
    const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', ...json(big) });
    assert.equal(r.json().errors[0].title, 'Request Entity Too Large');
  });

  test('JSON nested deeper than 32 levels: 400 before anything reads it', async () => {
    const deep = `{"name":"t","coe":"kubernetes","image_id":"i","labels":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    await refused(() => t.as('demo', { method: 'POST', url: '/v1/clustertemplates', ...json(deep) }), /nests more than 32 levels deep\.$/);
    const patch = `[${'['.repeat(10_000)}${']'.repeat(10_000)}]`;
    await refused(() => t.as('demo', { method: 'PATCH', url: `/v1/clustertemplates/${template}`, ...json(patch) }), /nests more than 32 levels deep\.$/);
  });

  test('the NUL character in a body, a key, a query argument or a path: 400, not the database’s error', async () => {
    await refused(() => t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'a\u0000b', coe: 'kubernetes', image_id: 'i' } }), /^Invalid input for field\/attribute name\. Value: 'a\\u0000b'\. Value should not contain the NUL character \(U\+0000\)$/);
    await refused(() => t.as('demo', { method: 'POST', url: '/v1/clustertemplates', ...json('{"name":"a","coe":"kubernetes","image_id":"i","labels":{"a\\u0000":"b"}}') }), /field\/attribute labels\. .*NUL character/);
    await refused(() => t.as('demo', { method: 'GET', url: '/v1/clusters/a%00b' }), /field\/attribute ident\. .*NUL character/);
    await refused(() => t.as('demo', { method: 'GET', url: '/v1/clusters?sort_key=%00' }), /field\/attribute sort_key\. .*NUL character/);
    const fx = await nodegroupCluster(t);
    await refused(
      () => t.as('demo', { method: 'PATCH', url: `/v1/clusters/${fx.cluster.uuid}`, payload: [{ op: 'replace', path: '/health_status_reason', value: "{'api': '\\x00'}" }] }),
      /Invalid dict/,
    );
  });

  test('patches: at most 100 operations, paths of 255; health_status_reason keys of 255 and values of 1024', async () => {
    const fx = await nodegroupCluster(t);
    const url = `/v1/clusters/${fx.cluster.uuid}`;
    const ops = Array.from({ length: 101 }, () => ({ op: 'replace', path: '/node_count', value: 1 }));
    await refused(() => t.as('demo', { method: 'PATCH', url, payload: ops }), /^Invalid input for field\/attribute patch\. Value: '101 operations'\. Value should have at most 100 items$/);
    await refused(() => t.as('demo', { method: 'PATCH', url, payload: [{ op: 'remove', path: `/${'a'.repeat(255)}` }] }), /path\. .*maximum character requirement of 255$/);
    const reason = (d: string) => [{ op: 'replace', path: '/health_status_reason', value: d }];
    await refused(() => t.as('demo', { method: 'PATCH', url, payload: reason(`{'${'k'.repeat(256)}': 'ok'}`) }), /health_status_reason\. .*Keys should have 1 to 255 characters$/);
    await refused(() => t.as('demo', { method: 'PATCH', url, payload: reason(`{'api': '${'v'.repeat(1025)}'}`) }), /health_status_reason\.api\. .*maximum character requirement of 1024$/);
    await refused(() => t.as('demo', { method: 'PATCH', url, payload: reason("{'__proto__': 'ok'}") }), /This key is reserved$/);
    const ok = await t.as('demo', { method: 'PATCH', url, payload: reason("{'api': 'ok', 'n.Ready': True}") });
    assert.equal(ok.statusCode, 202, ok.body);
  });

  test('a CSR over 32 KiB is refused before it is parsed; a refused value is echoed in 1024 characters at most', async () => {
    const fx = await nodegroupCluster(t);
    await refused(() => t.as('demo', { method: 'POST', url: '/v1/certificates', payload: { cluster_uuid: fx.cluster.uuid, csr: 'A'.repeat(32_769) } }), /csr\. .*maximum character requirement of 32768$/);
    const r = await t.as('demo', { method: 'POST', url: '/v1/certificates', payload: { cluster_uuid: fx.cluster.uuid, csr: 'A'.repeat(32_769) } });
    assert.ok(r.json().errors[0].detail.length < 1200, 'the detail does not repeat the whole value');
    assert.match(r.json().errors[0].detail, /\.\.\. \(32769 characters\)/);
  });
});

describe('what the workers write', () => {
  test('an event, a condition or a failure quoting a megabyte (a tenant’s API server may answer so) keeps 4096 characters', async () => {
    const fx = await nodegroupCluster(t);
    const op = newOperation(fx.cluster.uuid, 'update');
    await t.app.services.db.transaction((em) => t.app.services.operations.insert(em, op));
    const store = new OperationStore(t.app.services.db);
    const huge = 'Status: '.padEnd(1024 * 1024, 'x');
    await store.event(fx.cluster.uuid, op.id, 'operation', 'Noise', huge);
    await store.setCondition(fx.cluster.uuid, op, 'control_plane', 'False', 'Broken', huge);
    const r = await t.as('demo', { method: 'GET', url: `/v1/clusters/${fx.cluster.uuid}/events` });
    assert.equal(r.statusCode, 200);
    const body = r.json();
    assert.ok(body.events.length >= 2);
    for (const e of body.events) assert.ok(e.message.length <= 4096, `${e.reason}: ${e.message.length}`);
    assert.ok(body.conditions.control_plane.message.length <= 4096);
    assert.match(body.conditions.control_plane.message, /\(1048576 characters, cut\)$/);
    assert.ok(r.body.length < 64 * 1024, `${r.body.length} bytes`);
  });
});
