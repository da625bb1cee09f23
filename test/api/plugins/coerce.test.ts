// What a schema cannot say in Magnum's words (src/api/plugins/coerce.ts): an unknown query argument is a 400
// naming it; unknown body attributes are a 400 naming them all; read-only attributes refused; wsme's scalar
// conversions before validation. Through the whole API, then on a minimal app of the real plugins.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { registerCoercion } from '../../../src/api/plugins/coerce.js';
import { registerEnvelope } from '../../../src/api/plugins/envelope.js';
import { trackRoutes } from '../../../src/api/plugins/route-matcher.js';
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

describe('unknown arguments and attributes (§2)', () => {
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
});

describe('on a minimal app', () => {
  let app: FastifyInstance;
  before(async () => {
    app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false, removeAdditional: false } } });
    trackRoutes(app);
    registerEnvelope(app);
    registerCoercion(app);
    const body = { type: 'object', additionalProperties: false, properties: { name: { type: 'string' }, count: { type: 'integer' }, flag: { type: 'boolean' }, uuid: { type: 'string' } } } as const;
    app.post('/v1/things', { schema: { body, querystring: { type: 'object', properties: { limit: { type: 'integer' }, all: { type: 'boolean' } } } }, config: { bodyName: 'thing', readOnly: ['uuid'] } }, async (request) => ({ body: request.body, query: request.query }));
    app.get('/healthz', async (request) => ({ query: request.query }));
    await app.ready();
  });
  after(() => app.close());

  test('wsme’s conversions: numeric and boolean strings in the body and the query, before validation', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/things?limit=5&all=yes', payload: { name: 'n', count: '3', flag: 'off' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { body: { name: 'n', count: 3, flag: false }, query: { limit: 5, all: true } });
  });

  test('a read-only attribute; unknown attributes under the route’s body name; unknown arguments on /v1 only', async () => {
    const ro = await app.inject({ method: 'POST', url: '/v1/things', payload: { uuid: 'x' } });
    assert.equal(ro.json().errors[0].detail, "Invalid input for field/attribute uuid. Value: 'x'. Cannot set read only field.");
    const unknown = await app.inject({ method: 'POST', url: '/v1/things', payload: { a: 1, b: 2 } });
    assert.equal(unknown.json().errors[0].detail, 'Unknown attributes for argument thing: a, b');
    assert.equal((await app.inject({ method: 'POST', url: '/v1/things?x=1', payload: {} })).json().errors[0].detail, 'Unknown argument: "x"');
    assert.equal((await app.inject({ method: 'GET', url: '/healthz?x=1' })).statusCode, 200, 'probes are no Magnum operation');
  });
});
