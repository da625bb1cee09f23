// Keystone authentication of every request (src/api/plugins/auth.ts): public endpoints need no token; a
// missing, empty, garbage or revoked token is Keystone's 401 with WWW-Authenticate; Keystone unreachable
// or stopped is a 503 in Magnum's envelope, never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { testApp, type TestApp } from '../../support/app.js';
import { assertEnvelope, assertUnauthorized as assertUnauthorizedAt, REQUEST_ID, UNAUTHORIZED } from '../../support/api-asserts.js';
import { closedPort } from '../../support/net.js';

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

const assertUnauthorized = (res: LightMyRequestResponse): void => assertUnauthorizedAt(res, t.config.keystone.authUrl);

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
