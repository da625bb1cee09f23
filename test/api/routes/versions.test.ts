// The version documents (src/api/routes/versions.ts, spec §1.5): GET / and GET /v1 without a token, their
// links built from the Host or X-Forwarded-* headers, and paths without /v1 rewritten to it. Every link the
// documents advertise answers: followed with a token (the templated nodegroups link with a real cluster), at the default microversion and at the latest, none is a
// 404 or a 5xx, and each answers 2xx at one of the two (bays and baymodels end at 1.10, node groups start
// at 1.9) but the certificates collection, which takes only POST (a GET is a 405, as in Magnum; the POST
// is checked to answer). The documents link nothing outside this service.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { testApp, type TestApp } from '../../support/app.js';
import { insertCluster } from '../../support/cluster-fixture.js';
import { assertEnvelope, assertNoVersionHeaders, assertUnauthorized as assertUnauthorizedAt, assertVersionHeaders } from '../../support/api-asserts.js';

const HOST = 'magnum.test:9511';
let t: TestApp;
let token: string;
let cluster: string;
let demoToken: string;

const COLLECTIONS = ['baymodels', 'bays', 'clustertemplates', 'clusters', 'quotas', 'certificates', 'mservices', 'stats'];

before(async () => {
  t = await testApp();
  token = await t.token('admin');
  demoToken = await t.token('demo');
  const s = t.keystone.state;
  cluster = (await insertCluster(t.app, { name: 'linked', user: s.userId('admin'), project: s.projectId('admin'), nodegroups: true })).cluster.uuid;
});
after(async () => {
  await t.close();
});

/** app.inject() as demo, without a version header unless given. */
const req = (opts: InjectOptions): Promise<LightMyRequestResponse> =>
  t.app.inject({ ...opts, headers: { 'x-auth-token': demoToken, ...(opts.headers ?? {}) } });
const assertUnauthorized = (res: LightMyRequestResponse): void => assertUnauthorizedAt(res, t.config.keystone.authUrl);

async function createTemplate(name: string): Promise<string> {
  const res = await req({ method: 'POST', url: '/v1/clustertemplates', payload: { name, image_id: 'fedora-coreos', coe: 'kubernetes' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().uuid as string;
}

describe('version documents (§1.5)', () => {
  const hosts = [
    { name: 'Host header', headers: { host: 'magnum.example:9511' }, base: 'http://magnum.example:9511' },
    // No proxy is trusted by default (TRUSTED_PROXIES), and X-Forwarded-Host never counts (test/api/trusted-proxies.test.ts).
    { name: 'X-Forwarded-Proto/Host of a client', headers: { host: 'internal:9511', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' }, base: 'http://internal:9511' },
  ];

  for (const h of hosts) {
    test(`GET / without a token (${h.name})`, async () => {
      const res = await t.app.inject({ method: 'GET', url: '/', headers: h.headers });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        name: 'OpenStack Magnum API',
        description: 'Magnum is an OpenStack project which aims to provide container cluster management.',
        versions: [{ id: 'v1', status: 'CURRENT', min_version: '1.1', max_version: '1.14', links: [{ href: `${h.base}/v1/`, rel: 'self' }] }],
      });
      assertNoVersionHeaders(res);
    });

    for (const url of ['/v1', '/v1/']) {
      test(`GET ${url} without a token (${h.name})`, async () => {
        const res = await t.app.inject({ method: 'GET', url, headers: h.headers });
        assert.equal(res.statusCode, 200);
        const expected: Record<string, unknown> = {
          id: 'v1',
          media_types: [{ base: 'application/json', type: 'application/vnd.openstack.magnum.v1+json' }],
          links: [
            { href: `${h.base}/v1/`, rel: 'self' },
            { href: `${h.base}/v1/docs`, rel: 'describedby', type: 'text/html' },
          ],
        };
        for (const c of COLLECTIONS) {
          expected[c] = [
            { href: `${h.base}/v1/${c}/`, rel: 'self' },
            { href: `${h.base}/${c}/`, rel: 'bookmark' },
          ];
        }
        expected.nodegroups = [
          { href: `${h.base}/v1/clusters/{cluster_id}/nodegroups`, rel: 'self' },
          { href: `${h.base}/clusters/{cluster_id}/nodegroups`, rel: 'bookmark' },
        ];
        const body = res.json();
        assert.deepEqual(body, expected);
        assert.equal(body.created_at, undefined);
        assertVersionHeaders(res, '1.1');
      });
    }
  }

  test('GET / ignores OpenStack-API-Version', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/', headers: { 'openstack-api-version': 'garbage' } });
    assert.equal(res.statusCode, 200);
    assertNoVersionHeaders(res);
  });
});

test('/clustertemplates (no /v1) behaves like /v1/clustertemplates', async () => {
  const uuid = await createTemplate('no-prefix');
  const [a, b] = [await req({ method: 'GET', url: '/clustertemplates' }), await req({ method: 'GET', url: '/v1/clustertemplates' })];
  assert.equal(a.statusCode, 200);
  assert.deepEqual(a.json(), b.json());
  assertVersionHeaders(a, '1.1');
  const one = await req({ method: 'GET', url: `/clustertemplates/${uuid}` });
  assert.equal(one.statusCode, 200);
  assert.equal(one.json().uuid, uuid);
  assertEnvelope(await req({ method: 'GET', url: '/clustertemplates/nope' }), 404, 'client', 'ClusterTemplate nope could not be found');
  assertUnauthorized(await t.app.inject({ method: 'GET', url: '/clustertemplates' }));
});

/** Every `href` anywhere in a document. */
function hrefs(doc: unknown): string[] {
  if (Array.isArray(doc)) return doc.flatMap(hrefs);
  if (doc && typeof doc === 'object') return Object.entries(doc).flatMap(([k, v]) => (k === 'href' && typeof v === 'string' ? [v] : hrefs(v)));
  return [];
}

test('every link of / and /v1 answers (no 404, no 5xx; 2xx at the default or the latest microversion)', async () => {
  const links = new Set<string>();
  for (const url of ['/', '/v1']) {
    const doc = await t.app.inject({ method: 'GET', url, headers: { host: HOST } });
    assert.equal(doc.statusCode, 200);
    for (const h of hrefs(doc.json())) links.add(h);
  }
  assert.ok(links.size >= 19, [...links].join('\n'));
  const outside = [...links].filter((h) => !h.startsWith(`http://${HOST}/`));
  assert.deepEqual(outside, [], 'the documents link only this service');
  const bad: string[] = [];
  for (const href of links) {
    const path = new URL(href.replace('{cluster_id}', cluster)).pathname;
    const statuses: number[] = [];
    for (const version of [undefined, 'container-infra latest']) {
      const res = await t.app.inject({ method: 'GET', url: path, headers: { host: HOST, 'x-auth-token': token, ...(version ? { 'openstack-api-version': version } : {}) } });
      statuses.push(res.statusCode);
    }
    if (/\/certificates\/$/.test(path)) {
      const post = await t.app.inject({ method: 'POST', url: path, payload: {}, headers: { host: HOST, 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' } });
      statuses.push(post.statusCode);
      if (statuses.join() !== '405,405,400') bad.push(`${href}: GET ${statuses[0]}, ${statuses[1]}; POST ${statuses[2]}`);
      continue;
    }
    if (statuses.some((s) => s === 404 || s >= 500) || !statuses.some((s) => s >= 200 && s < 300)) bad.push(`${href}: ${statuses.join(', ')}`);
  }
  assert.deepEqual(bad, []);
});

test('the documents promise no federations, which this service (like Magnum\'s conductor) does not have', async () => {
  const v1 = (await t.app.inject({ method: 'GET', url: '/v1' })).json();
  assert.equal(v1.federations, undefined);
  const res = await t.app.inject({ method: 'GET', url: '/v1/federations', headers: { 'x-auth-token': token } });
  assert.equal(res.statusCode, 404);
});
