// The app with unconnected services (src/api/offline.ts), for generating the OpenAPI document: built and
// ready without PostgreSQL, Redis or Keystone, every route registered, the document generated, closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOfflineApp } from '../../src/api/offline.js';

test('ready without any backend; every resource’s routes are there; the document is generated', async () => {
  const app = await buildOfflineApp();
  try {
    for (const [method, url] of [['GET', '/v1/clusters'], ['POST', '/v1/clustertemplates'], ['PATCH', '/v1/clusters/:ident'], ['GET', '/v1/clusters/:cluster/nodegroups'], ['POST', '/v1/dry-run/clusters'], ['GET', '/healthz'], ['GET', '/']] as const) {
      assert.ok(app.hasRoute({ method, url }), `${method} ${url}`);
    }
    const doc = app.swagger() as { openapi: string; paths: Record<string, unknown> };
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(Object.keys(doc.paths).length > 30);
    assert.equal(app.services.db.isInitialized, false, 'never connected');
    assert.equal(app.services.redis.status, 'wait', 'never connected');
  } finally {
    await app.close();
  }
});
