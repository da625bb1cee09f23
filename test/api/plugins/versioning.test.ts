// Microversion negotiation (src/api/plugins/versioning.ts, spec §1.2–§1.4): the per-operation gate (a route
// with config.minVersion answers 406 in the generic envelope below that version), built from the real plugins
// on a minimal Fastify app; then, through the whole API, the header's accepted, malformed and unsupported
// values and the version headers on every /v1 response.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { registerEnvelope } from '../../../src/api/plugins/envelope.js';
import { trackRoutes } from '../../../src/api/plugins/route-matcher.js';
import { registerVersioning } from '../../../src/api/plugins/versioning.js';
import { testApp, type TestApp } from '../../support/app.js';
import { assertEnvelope, assertNoVersionHeaders, assertVersionHeaders, REQUEST_ID } from '../../support/api-asserts.js';

let app: FastifyInstance;

before(async () => {
  app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  trackRoutes(app);
  registerEnvelope(app);
  registerVersioning(app);
  app.get('/v1/gated', { config: { minVersion: 7 } }, async () => ({ ok: true }));
  app.post('/v1/gated', { config: { minVersion: 7 } }, async () => ({ ok: true }));
  app.get('/v1/open', async () => ({ ok: true }));
  await app.ready();
});
after(async () => {
  await app.close();
});

const cases = [
  { method: 'GET', header: undefined, status: 406, version: '1.1' },
  { method: 'GET', header: 'container-infra 1.1', status: 406, version: '1.1' },
  { method: 'GET', header: 'container-infra 1.6', status: 406, version: '1.6' },
  { method: 'POST', header: 'container-infra 1.6', status: 406, version: '1.6' },
  { method: 'GET', header: 'container-infra 1.7', status: 200, version: '1.7' },
  { method: 'GET', header: 'container-infra 1.10', status: 200, version: '1.10' },
  { method: 'GET', header: 'container-infra latest', status: 200, version: '1.14' },
  { method: 'POST', header: 'magnum latest', status: 200, version: '1.14' },
] as const;

for (const c of cases) {
  test(`${c.method} /v1/gated (minVersion 7) with ${c.header ?? 'no header'} → ${c.status}`, async () => {
    const res = await app.inject({
      method: c.method,
      url: '/v1/gated',
      headers: c.header === undefined ? {} : { 'openstack-api-version': c.header },
    });
    assert.equal(res.statusCode, c.status, res.body);
    if (c.status === 406) {
      assert.deepEqual(res.json(), {
        errors: [
          {
            request_id: '',
            code: '',
            status: 406,
            title: 'Not Acceptable',
            detail: `Version ${c.version} was requested but the requested API ${c.method} is not supported for this version.`,
            links: [],
          },
        ],
      });
    } else {
      assert.deepEqual(res.json(), { ok: true });
    }
    assert.equal(res.headers['openstack-api-version'], `container-infra ${c.version}`);
    assert.equal(res.headers['openstack-api-minimum-version'], 'container-infra 1.1');
    assert.equal(res.headers['openstack-api-maximum-version'], 'container-infra 1.14');
    assert.equal(res.headers.vary, 'OpenStack-API-Version');
  });
}

test('an ungated route works at every version', async () => {
  for (const header of ['container-infra 1.1', 'container-infra 1.6', 'container-infra latest']) {
    const res = await app.inject({ method: 'GET', url: '/v1/open', headers: { 'openstack-api-version': header } });
    assert.equal(res.statusCode, 200, res.body);
  }
});

test('the header is checked before the gate: an out-of-range version is the microversion-unsupported 406', async () => {
  const res = await app.inject({ method: 'GET', url: '/v1/gated', headers: { 'openstack-api-version': 'container-infra 1.15' } });
  assert.equal(res.statusCode, 406);
  assert.equal(res.json().errors[0].code, 'magnum.microversion-unsupported');
});

describe('through the whole API', () => {
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
});
