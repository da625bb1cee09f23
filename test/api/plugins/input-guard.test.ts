// What no request may carry (src/api/plugins/input-guard.ts): JSON nested deeper than JSON_DEPTH_MAX and
// the NUL character in a body (a value or a key), a query argument or a path parameter, each a 400 in
// Magnum's envelope; on a minimal app of the real plugins.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerEnvelope } from '../../../src/api/plugins/envelope.js';
import { checkBody, registerInputGuard } from '../../../src/api/plugins/input-guard.js';
import { trackRoutes } from '../../../src/api/plugins/route-matcher.js';
import { ApiError } from '../../../src/domain/errors.js';
import { JSON_DEPTH_MAX } from '../../../src/domain/limits.js';

/** `depth` levels of objects around a leaf, built without recursion. */
const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const refused = (message: RegExp) => (e: unknown) => e instanceof ApiError && e.status === 400 && message.test(e.message);

test('checkBody: as deep as JSON_DEPTH_MAX passes, one level more is refused; no recursion on the way', () => {
  checkBody(nested(JSON_DEPTH_MAX));
  assert.throws(() => checkBody(nested(JSON_DEPTH_MAX + 1)), refused(/nests more than 32 levels deep/));
  assert.throws(() => checkBody(nested(100_000)), refused(/nests more than 32 levels deep/), 'a very deep body does not exhaust the stack');
  checkBody(null);
  checkBody([1, 'x', { b: true }]);
});

test('checkBody: NUL in a value or a key, named by its path, never shown raw', () => {
  assert.throws(() => checkBody({ labels: { k: 'a\u0000b' } }), refused(/^Invalid input for field\/attribute labels\.k\. Value: 'a\\u0000b'\. Value should not contain the NUL character/));
  assert.throws(() => checkBody({ labels: { ['k\u0000']: 'v' } }), refused(/^Invalid input for field\/attribute labels\./));
  assert.throws(() => checkBody('\u0000'), refused(/field\/attribute body\./));
});

let app: FastifyInstance;
before(async () => {
  app = Fastify({ logger: false });
  trackRoutes(app);
  registerEnvelope(app);
  registerInputGuard(app);
  app.get('/v1/things/:ident', async (request) => ({ params: request.params, query: request.query }));
  await app.ready();
});
after(() => app.close());

test('a NUL in a query argument (one or repeated) or a path parameter: 400 in the envelope before the handler', async () => {
  for (const url of ['/v1/things/x?name=a%00b', '/v1/things/x?name=ok&name=a%00', '/v1/things/a%00b', '/v1/things/x?a%00=1']) {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 400, url);
    assert.match(res.json().errors[0].detail, /Value should not contain the NUL character/, url);
  }
  assert.equal((await app.inject({ method: 'GET', url: '/v1/things/x?name=fine' })).statusCode, 200);
});
