// Per-operation microversion gate (spec §1.2 step 7): a route with config.minVersion answers 406 in
// the generic envelope below that version. Built from the real plugins on a minimal Fastify app.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerEnvelope } from '../../../src/api/plugins/envelope.js';
import { trackRoutes } from '../../../src/api/plugins/route-matcher.js';
import { registerVersioning } from '../../../src/api/plugins/versioning.js';

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
