// Magnum's error envelope (src/api/plugins/envelope.ts): an unknown route is the framework's 404, an
// unsupported method on a known path its 405; on a minimal app, every kind of error a route throws: the
// registry's, schema failures in wsme's words, bad JSON, framework 4xx, Keystone's 401 shape, the
// microversion's own 406, a transient backend failure (503 with Retry-After) and the unexpected (500 saying
// nothing of it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { envelope, registerEnvelope, toApiError } from '../../../src/api/plugins/envelope.js';
import { trackRoutes } from '../../../src/api/plugins/route-matcher.js';
import { errors, MicroversionUnsupported } from '../../../src/domain/errors.js';
import { testApp, type TestApp } from '../../support/app.js';
import { assertEnvelope } from '../../support/api-asserts.js';

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

describe('unknown routes and methods (§4, §9)', () => {
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
});

describe('on a minimal app', () => {
  let app: FastifyInstance;
  before(async () => {
    app = Fastify({ logger: false, bodyLimit: 64 });
    trackRoutes(app);
    registerEnvelope(app);
    app.get('/v1/registry', async () => {
      throw errors.notFound('Cluster', 'c');
    });
    app.get('/v1/unauthorized', async () => {
      throw errors.unauthorized('http://ks/v3');
    });
    app.get('/v1/version', async () => {
      throw new MicroversionUnsupported('1.99', 'Version 1.99 was requested but the minor version is not supported by this service.');
    });
    app.get('/v1/transient', async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    app.get('/v1/bug', async () => {
      throw new TypeError('secret internals: password=hunter2');
    });
    app.post('/v1/validated', { schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 3 } } } } }, async () => ({}));
    await app.ready();
  });
  after(() => app.close());

  test('an error of the registry: its status, Magnum’s title (the first sentence) and detail', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/registry' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), envelope(errors.notFound('Cluster', 'c')));
    assert.equal(res.json().errors[0].title, 'Cluster c could not be found');
  });

  test('schema failures in wsme’s words; bad JSON; a body over the limit is a 413 in the envelope', async () => {
    const long = await app.inject({ method: 'POST', url: '/v1/validated', payload: { name: 'abcd' } });
    assert.equal(long.json().errors[0].detail, "Invalid input for field/attribute name. Value: 'abcd'. Value should have a maximum character requirement of 3");
    const missing = await app.inject({ method: 'POST', url: '/v1/validated', payload: {} });
    assert.equal(missing.json().errors[0].detail, "Invalid input for field/attribute name. Value: 'None'. Mandatory field missing.");
    const bad = await app.inject({ method: 'POST', url: '/v1/validated', headers: { 'content-type': 'application/json' }, payload: '{"name":' });
    assert.deepEqual([bad.statusCode, bad.json().errors[0].title], [400, 'Request is not in valid JSON format']);
    const big = await app.inject({ method: 'POST', url: '/v1/validated', payload: { name: 'x'.repeat(100) } });
    assert.deepEqual([big.statusCode, big.json().errors[0].title, big.json().errors[0].code], [413, 'Request Entity Too Large', '']);
  });

  test('a 401 in Keystone’s shape with WWW-Authenticate; an unsupported microversion in its own shape', async () => {
    const unauth = await app.inject({ method: 'GET', url: '/v1/unauthorized' });
    assert.deepEqual([unauth.statusCode, unauth.json(), unauth.headers['www-authenticate']], [401, { error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } }, 'Keystone uri="http://ks/v3"']);
    const version = await app.inject({ method: 'GET', url: '/v1/version' });
    assert.equal(version.statusCode, 406);
    assert.deepEqual(Object.keys(version.json().errors[0]).sort(), ['code', 'description', 'links', 'max_version', 'min_version', 'title']);
  });

  test('a transient backend failure is a 503 with Retry-After; the unexpected a 500 that says nothing of it', async () => {
    const transient = await app.inject({ method: 'GET', url: '/v1/transient' });
    assert.deepEqual([transient.statusCode, transient.headers['retry-after'], transient.json().errors[0].code], [503, '2', 'server']);
    const bug = await app.inject({ method: 'GET', url: '/v1/bug' });
    assert.equal(bug.statusCode, 500);
    assert.equal(bug.json().errors[0].detail, 'An unexpected error prevented the server from fulfilling your request.');
    assert.doesNotMatch(bug.body, /hunter2|TypeError|internals/);
  });

  test('toApiError: the registry’s own, framework 4xx mapped, anything else undefined', () => {
    const req = { query: {}, params: {}, body: {}, server: app } as never;
    const own = errors.resizeMaster();
    assert.equal(toApiError(own, req), own);
    assert.equal(toApiError(Object.assign(new Error('Unsupported Media Type'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }), req)?.status, 415);
    assert.equal(toApiError(new SyntaxError('Unexpected end'), req)?.id, 'bad_json');
    assert.equal(toApiError(new Error('boom'), req), undefined);
    assert.equal(toApiError(Object.assign(new Error('x'), { statusCode: 500 }), req), undefined);
  });
});
