// Keystone authentication of every request (src/api/plugins/auth.ts): public endpoints need no token; a
// missing, empty, garbage or revoked token is Keystone's 401 with WWW-Authenticate; Keystone unreachable
// or stopped is a 503 in Magnum's envelope, never a 500. Through the whole API, then on a minimal app of
// the real plugins with a validator that answers as told: the portal's session token first, access rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { registerAuth } from '../../../src/api/plugins/auth.js';
import { registerEnvelope } from '../../../src/api/plugins/envelope.js';
import { trackRoutes } from '../../../src/api/plugins/route-matcher.js';
import type { AuthContext } from '../../../src/keystone/context.js';
import { InvalidTokenError, KeystoneUnavailableError, type TokenValidator } from '../../../src/keystone/token-validator.js';
import { authContext } from '../../support/contexts.js';
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

describe('on a minimal app', () => {
  let app: FastifyInstance;
  const validated: string[] = [];
  const contexts: Record<string, AuthContext> = {
    good: authContext(),
    ruled: authContext({
      catalog: [{ type: 'container-infra', endpoints: [] }],
      applicationCredential: { id: 'ac', restricted: true, accessRules: [{ service: 'container-infra', method: 'GET', path: '/v1/things' }] },
    }),
  };
  const validator = {
    async validate(token: string) {
      validated.push(token);
      if (token === 'down') throw new KeystoneUnavailableError('keystone is down');
      if (token === 'boom') throw new Error('internal detail 4711');
      const ctx = contexts[token];
      if (!ctx) throw new InvalidTokenError('no such token');
      return ctx;
    },
  } as unknown as TokenValidator;

  before(async () => {
    app = Fastify({ logger: false });
    trackRoutes(app);
    registerEnvelope(app);
    registerAuth(app, validator, 'http://ks/v3', async (request) => (request.headers.cookie === 'session=1' ? 'good' : undefined));
    app.get('/v1/things', async (request) => ({ user: request.auth.userId, token: request.authToken }));
    app.post('/v1/things', async () => ({}));
    app.get('/v1/open', { config: { public: true } }, async (request) => ({ auth: request.auth }));
    app.get('/v1/docs/x', async () => ({ ok: true }));
    await app.ready();
  });
  after(() => app.close());

  test('a valid token: the caller and its token on the request', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/things', headers: { 'x-auth-token': 'good' } });
    assert.deepEqual(res.json(), { user: 'u-1', token: 'good' });
  });

  test('public routes and the docs need no token and are not validated', async () => {
    validated.length = 0;
    assert.deepEqual((await app.inject({ method: 'GET', url: '/v1/open' })).json(), { auth: null });
    assert.equal((await app.inject({ method: 'GET', url: '/v1/docs/x' })).statusCode, 200);
    assert.deepEqual(validated, []);
  });

  test('the portal session’s token stands in for X-Auth-Token', async () => {
    assert.deepEqual((await app.inject({ method: 'GET', url: '/v1/things', headers: { cookie: 'session=1' } })).json(), { user: 'u-1', token: 'good' });
  });

  test('refused: 401; Keystone unavailable: 503; anything else the envelope’s 500', async () => {
    assert.equal((await app.inject({ method: 'GET', url: '/v1/things', headers: { 'x-auth-token': 'bad' } })).statusCode, 401);
    assert.equal((await app.inject({ method: 'GET', url: '/v1/things', headers: { 'x-auth-token': 'down' } })).statusCode, 503);
    const boom = await app.inject({ method: 'GET', url: '/v1/things', headers: { 'x-auth-token': 'boom' } });
    assert.equal(boom.statusCode, 500);
    assert.doesNotMatch(boom.body, /4711/);
  });

  test('an application credential’s access rules: what they name passes, the rest is a 403 naming it', async () => {
    assert.equal((await app.inject({ method: 'GET', url: '/v1/things', headers: { 'x-auth-token': 'ruled' } })).statusCode, 200);
    const post = await app.inject({ method: 'POST', url: '/v1/things', headers: { 'x-auth-token': 'ruled' } });
    assert.equal(post.statusCode, 403);
    assert.equal(post.json().errors[0].detail, 'The access rules of the application credential you authenticated with do not allow POST /v1/things.');
  });
});
