// HTTP plumbing of the v1 API (spec §0, §1, §2, §4, §9): version documents, OpenStack-API-Version
// negotiation, response headers, the error envelope, request parsing, routing quirks, Keystone auth.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { testApp, type TestApp } from '../support/app.js';
import { closedPort } from '../support/net.js';

const REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const COLLECTIONS = ['baymodels', 'bays', 'clustertemplates', 'clusters', 'quotas', 'certificates', 'mservices', 'stats'];
const VERSION_HEADERS = ['openstack-api-minimum-version', 'openstack-api-maximum-version', 'openstack-api-version', 'vary'];
const UNAUTHORIZED = { error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } };

let t: TestApp;
let token: string;

before(async () => {
  t = await testApp();
  token = await t.token('demo');
});
after(async () => {
  await t.close();
});

/** app.inject() as demo, without a version header unless given. */
const req = (opts: InjectOptions): Promise<LightMyRequestResponse> =>
  t.app.inject({ ...opts, headers: { 'x-auth-token': token, ...(opts.headers ?? {}) } });

function assertEnvelope(res: LightMyRequestResponse, status: number, code: string, title: string, detail?: string): void {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['errors']);
  assert.equal(body.errors.length, 1);
  const e = body.errors[0];
  assert.deepEqual(Object.keys(e).sort(), ['code', 'detail', 'links', 'request_id', 'status', 'title']);
  assert.equal(e.request_id, '');
  assert.equal(e.code, code);
  assert.equal(e.status, status);
  assert.equal(e.title, title);
  assert.deepEqual(e.links, []);
  if (detail !== undefined) assert.equal(e.detail, detail);
}

function assertVersionHeaders(res: LightMyRequestResponse, version: string): void {
  assert.equal(res.headers['openstack-api-minimum-version'], 'container-infra 1.1');
  assert.equal(res.headers['openstack-api-maximum-version'], 'container-infra 1.14');
  assert.equal(res.headers['openstack-api-version'], `container-infra ${version}`);
  assert.equal(res.headers.vary, 'OpenStack-API-Version');
}

function assertNoVersionHeaders(res: LightMyRequestResponse): void {
  for (const h of VERSION_HEADERS) assert.equal(res.headers[h], undefined, `unexpected ${h} header`);
}

function assertUnauthorized(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 401, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(res.json(), UNAUTHORIZED);
  assert.equal(res.headers['www-authenticate'], `Keystone uri="${t.config.keystone.authUrl}"`);
}

async function createTemplate(name: string): Promise<string> {
  const res = await req({ method: 'POST', url: '/v1/clustertemplates', payload: { name, image_id: 'fedora-coreos', coe: 'kubernetes' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().uuid as string;
}

describe('version documents (§1.5)', () => {
  const hosts = [
    { name: 'Host header', headers: { host: 'magnum.example:9511' }, base: 'http://magnum.example:9511' },
    // No proxy is trusted by default (TRUSTED_PROXIES), and X-Forwarded-Host never counts (test/api/app.test.ts).
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

describe('OpenStack-API-Version negotiation (§1.2–§1.4)', () => {
  const accepted = [
    { header: undefined, version: '1.1' },
    { header: 'container-infra latest', version: '1.14' },
    { header: 'container-infra LATEST', version: '1.14' },
    { header: 'magnum latest', version: '1.14' },
    { header: 'container-infra 1.5', version: '1.5' },
    { header: 'container-infra 1.1', version: '1.1' },
    { header: 'container-infra 1.10', version: '1.10' }, { header: 'container-infra 1.14', version: '1.14' },
    { header: '  container-infra   1.7 ', version: '1.7' },
  ];
  for (const c of accepted) {
    test(`${JSON.stringify(c.header ?? null)} → ${c.version}`, async () => {
      const headers = c.header === undefined ? {} : { 'openstack-api-version': c.header };
      for (const url of ['/v1', '/v1/clustertemplates']) {
        const res = await req({ method: 'GET', url, headers });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assertVersionHeaders(res, c.version);
      }
    });
  }

  const malformed = [
    { header: 'container-infra', detail: 'Invalid service type for OpenStack-API-Version header' },
    { header: '1.5', detail: 'Invalid service type for OpenStack-API-Version header' },
    { header: 'container-infra 1.5 extra', detail: 'Invalid service type for OpenStack-API-Version header' },
    { header: 'container-infra 1.5, foo 1.1', detail: 'Invalid service type for OpenStack-API-Version header' },
    { header: 'foo 1.2', detail: 'Invalid service type for OpenStack-API-Version header' },
    { header: 'Container-Infra 1.2', detail: 'Invalid service type for OpenStack-API-Version header' },
    { header: 'container-infra 1.x', detail: 'Invalid value for OpenStack-API-Version header' },
    { header: 'container-infra 1', detail: 'Invalid value for OpenStack-API-Version header' },
    { header: 'container-infra 1.2.3', detail: 'Invalid value for OpenStack-API-Version header' },
  ];
  for (const c of malformed) {
    test(`${JSON.stringify(c.header)} → 406 generic envelope without version headers`, async () => {
      for (const url of ['/v1', '/v1/clustertemplates']) {
        const res = await req({ method: 'GET', url, headers: { 'openstack-api-version': c.header } });
        assertEnvelope(res, 406, '', 'Not Acceptable', c.detail);
        assertNoVersionHeaders(res);
        assert.match(String(res.headers['x-openstack-request-id']), REQUEST_ID);
      }
    });
  }

  const range = '[1.1, 1.14]';
  const unsupported = [
    { version: '2.0', description: `Mutually exclusive versions requested. Version 2.0 requested but not supported by this service. The supported version range is: ${range}.` },
    { version: '0.9', description: `Mutually exclusive versions requested. Version 0.9 requested but not supported by this service. The supported version range is: ${range}.` },
    { version: '1.15', description: `Version 1.15 was requested but the minor version is not supported by this service. The supported version range is: ${range}.` },
    { version: '1.0', description: `Version 1.0 was requested but the minor version is not supported by this service. The supported version range is: ${range}.` },
  ];
  for (const c of unsupported) {
    test(`container-infra ${c.version} → 406 magnum.microversion-unsupported`, async () => {
      for (const url of ['/v1', '/v1/clustertemplates']) {
        const res = await req({ method: 'GET', url, headers: { 'openstack-api-version': `container-infra ${c.version}` } });
        assert.equal(res.statusCode, 406, res.body);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.deepEqual(res.json(), {
          errors: [
            {
              code: 'magnum.microversion-unsupported',
              title: 'Requested microversion is unsupported',
              max_version: '1.14',
              min_version: '1.1',
              links: [{ rel: 'help', href: 'http://docs.openstack.org/api-guide/compute/microversions.html' }],
              description: c.description,
            },
          ],
        });
        // The requested version is echoed even though it is out of range.
        assertVersionHeaders(res, c.version);
      }
    });
  }
});

describe('response headers', () => {
  test('version headers on every /v1 response, including errors raised inside operations', async () => {
    const cases: { opts: InjectOptions; status: number }[] = [
      { opts: { method: 'GET', url: '/v1/clustertemplates' }, status: 200 },
      { opts: { method: 'GET', url: '/v1/clustertemplates/no-such-template' }, status: 404 },
      { opts: { method: 'GET', url: '/v1/clustertemplates?limit=0' }, status: 400 },
      { opts: { method: 'GET', url: '/v1/clustertemplates?bogus=1' }, status: 400 },
      { opts: { method: 'DELETE', url: '/v1/clustertemplates/no-such-template' }, status: 404 },
      { opts: { method: 'GET', url: '/v1/no-such-collection' }, status: 404 },
      { opts: { method: 'PUT', url: '/v1/clustertemplates' }, status: 405 },
    ];
    for (const c of cases) {
      for (const [header, version] of [[undefined, '1.1'], ['container-infra 1.4', '1.4'], ['container-infra latest', '1.14']] as const) {
        const res = await req({ ...c.opts, headers: header ? { 'openstack-api-version': header } : {} });
        assert.equal(res.statusCode, c.status, `${c.opts.method} ${c.opts.url}: ${res.body}`);
        assertVersionHeaders(res, version);
      }
    }
  });

  test('x-openstack-request-id: a fresh req-<uuid4> on every response', async () => {
    const responses = [
      await t.app.inject({ method: 'GET', url: '/' }),
      await t.app.inject({ method: 'GET', url: '/v1' }),
      await t.app.inject({ method: 'GET', url: '/v1/clustertemplates' }), // 401
      await t.app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': 'garbage' } }), // 401
      await req({ method: 'GET', url: '/v1/clustertemplates' }),
      await req({ method: 'GET', url: '/v1/clustertemplates/nope' }), // 404 from the operation
      await req({ method: 'GET', url: '/v1/nope' }), // 404 unknown route
      await req({ method: 'PUT', url: '/v1/clustertemplates' }), // 405
      await req({ method: 'GET', url: '/v1', headers: { 'openstack-api-version': 'nope' } }), // 406
      await t.app.inject({ method: 'GET', url: '/healthz' }),
    ];
    const ids = responses.map((r) => String(r.headers['x-openstack-request-id']));
    for (const id of ids) assert.match(id, REQUEST_ID);
    assert.equal(new Set(ids).size, ids.length, 'request ids are unique');
  });
});

describe('errors and routing (§2, §4, §9)', () => {
  test('unknown route → 404 framework envelope', async () => {
    for (const url of ['/v1/no-such-collection', '/v1/clustertemplates/a/b/c']) {
      const res = await req({ method: 'GET', url });
      assertEnvelope(res, 404, '', 'Not Found');
    }
  });

  test('unsupported method on a known path → 405 framework envelope', async () => {
    for (const opts of [
      { method: 'PUT', url: '/v1/clustertemplates' },
      { method: 'PUT', url: '/v1/clustertemplates/' },
      { method: 'POST', url: '/v1/clustertemplates/some-template' },
      { method: 'DELETE', url: '/v1/clustertemplates' },
    ] as const) {
      const res = await req(opts);
      assertEnvelope(res, 405, '', 'Method Not Allowed');
    }
  });

  test('malformed JSON body → 400', async () => {
    for (const payload of ['{"name": ', 'not json', '{"a":1}}']) {
      const res = await req({ method: 'POST', url: '/v1/clustertemplates', headers: { 'content-type': 'application/json' }, payload });
      assertEnvelope(res, 400, 'client', 'Request is not in valid JSON format', 'Request is not in valid JSON format.');
    }
  });

  test('DELETE with Content-Type: application/octet-stream and an empty body is not a 415', async () => {
    const headers = { 'content-type': 'application/octet-stream' };
    const missing = await req({ method: 'DELETE', url: '/v1/clustertemplates/no-such-template', headers, payload: '' });
    assertEnvelope(missing, 404, 'client', 'ClusterTemplate no-such-template could not be found');
    const uuid = await createTemplate('octet-stream-delete');
    const res = await req({ method: 'DELETE', url: `/v1/clustertemplates/${uuid}`, headers, payload: '' });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
  });

  test('unknown query argument → 400', async () => {
    for (const url of ['/v1/clustertemplates?name=x', '/v1/clustertemplates/detail?name=x', '/v1/clustertemplates?limit=5&name=x']) {
      const res = await req({ method: 'GET', url });
      assertEnvelope(res, 400, 'client', 'Unknown argument: "name"', 'Unknown argument: "name"');
    }
  });

  test('unknown body attributes → 400 naming them all', async () => {
    const many = await req({
      method: 'POST',
      url: '/v1/clustertemplates',
      payload: { name: 'x', image_id: 'fedora-coreos', coe: 'kubernetes', a: 1, b: 2 },
    });
    assertEnvelope(many, 400, 'client', 'Unknown attributes for argument cluster_template: a, b', 'Unknown attributes for argument cluster_template: a, b');
    const one = await req({ method: 'POST', url: '/v1/clustertemplates', payload: { image_id: 'fedora-coreos', coe: 'kubernetes', a: 1 } });
    assertEnvelope(one, 400, 'client', 'Unknown attribute for argument cluster_template: a');
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

  test('trailing slashes are accepted', async () => {
    const uuid = await createTemplate('trailing');
    for (const url of ['/v1/clustertemplates/', '/v1/clustertemplates/detail/', `/v1/clustertemplates/${uuid}/`, '/clustertemplates/']) {
      const res = await req({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
    const res = await req({ method: 'DELETE', url: `/v1/clustertemplates/${uuid}/` });
    assert.equal(res.statusCode, 204, res.body);
  });

  test('/v1/clustertemplates/detail wins over a template named "detail"', async () => {
    const uuid = await createTemplate('detail');
    const res = await req({ method: 'GET', url: '/v1/clustertemplates/detail' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.ok(Array.isArray(body.clustertemplates), 'a list, not the template');
    assert.ok(body.clustertemplates.some((ct: { uuid: string }) => ct.uuid === uuid));
    const byUuid = await req({ method: 'GET', url: `/v1/clustertemplates/${uuid}` });
    assert.equal(byUuid.json().name, 'detail');
  });
});

describe('Keystone authentication', () => {
  test('public endpoints need no token', async () => {
    for (const url of ['/', '/v1', '/v1/', '/healthz', '/v1/openapi.json']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
  });

  test('missing, empty or garbage token → 401 in Keystone form with WWW-Authenticate', async () => {
    for (const headers of [{}, { 'x-auth-token': '' }, { 'x-auth-token': 'garbage' }, { 'x-auth-token': 'gAAAAABnot-a-real-token' }]) {
      for (const opts of [
        { method: 'GET', url: '/v1/clustertemplates' },
        { method: 'GET', url: '/v1/clustertemplates/nope' },
        { method: 'POST', url: '/v1/clustertemplates', payload: { image_id: 'x', coe: 'kubernetes' } },
        { method: 'DELETE', url: '/v1/clustertemplates/nope' },
      ] as const) {
        const res = await t.app.inject({ ...opts, headers });
        assertUnauthorized(res);
        assert.match(String(res.headers['x-openstack-request-id']), REQUEST_ID);
      }
    }
  });

  test('a revoked token is refused once the cache does not hold it (TTL 0)', async () => {
    const nocache = await testApp({ config: (c) => (c.keystone.tokenCacheTtlSeconds = 0) });
    try {
      const tok = await nocache.token('demo');
      const ok = await nocache.app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': tok } });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.ok(nocache.keystone.state.revokeToken(tok));
      const res = await nocache.app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': tok } });
      assert.equal(res.statusCode, 401, res.body);
      assert.deepEqual(res.json(), UNAUTHORIZED);
      assert.equal(res.headers['www-authenticate'], `Keystone uri="${nocache.config.keystone.authUrl}"`);
    } finally {
      await nocache.close();
    }
  });

  test('Keystone unreachable → 503 in the Magnum envelope, not 500', async () => {
    const port = await closedPort();
    const down = await testApp({ config: (c) => (c.keystone.authUrl = `http://127.0.0.1:${port}/v3`) });
    try {
      const tok = await down.token('demo');
      const res = await down.app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': tok } });
      assertEnvelope(res, 503, 'server', 'The Keystone service is temporarily unavailable', 'The Keystone service is temporarily unavailable.');
      assert.match(String(res.headers['x-openstack-request-id']), REQUEST_ID);
      // Public endpoints keep working.
      assert.equal((await down.app.inject({ method: 'GET', url: '/v1' })).statusCode, 200);
    } finally {
      await down.close();
    }
  });

  test('Keystone stopped after start → 503 for tokens it has not validated yet', async () => {
    const ks = await testApp();
    try {
      const tok = await ks.token('demo');
      await ks.keystone.app.close();
      const res = await ks.app.inject({ method: 'GET', url: '/v1/clustertemplates', headers: { 'x-auth-token': tok } });
      assertEnvelope(res, 503, 'server', 'The Keystone service is temporarily unavailable');
    } finally {
      await ks.close();
    }
  });
});
