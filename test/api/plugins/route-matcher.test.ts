// The path patterns of every route (src/api/plugins/route-matcher.ts), so an unknown method on a known path
// can be told from an unknown path: parameters are one segment, a wildcard anything, a trailing slash optional.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { routeMatcher, trackRoutes } from '../../../src/api/plugins/route-matcher.js';

test('known paths of the registered routes, by their patterns', async () => {
  const app = Fastify();
  trackRoutes(app);
  app.get('/v1/clusters', async () => ({}));
  app.get('/v1/clusters/:ident/nodegroups/:ng', async () => ({}));
  app.get('/ui/*', async () => ({}));
  app.get('/v1/odd.path(x)', async () => ({}));
  await app.ready();
  const m = routeMatcher(app);
  for (const p of ['/v1/clusters', '/v1/clusters/', '/v1/clusters/abc/nodegroups/1', '/ui/anything/deep', '/v1/odd.path(x)']) assert.equal(m.pathExists(p), true, p);
  for (const p of ['/v1/cluster', '/v1/clusters/abc', '/v1/clusters/a/b/nodegroups/1', '/v1/oddXpath(x)', '/v2/clusters']) assert.equal(m.pathExists(p), false, p);
  await app.close();
});

test('an app that never tracked its routes is a programming error', () => {
  assert.throws(() => routeMatcher(Fastify()), /trackRoutes\(\) was not called on this instance/);
});
