// The OpenAPI document's frame (src/api/openapi.ts): the shared schemas, each with its own $id, every $ref
// of the generated document resolving to one of them; the document's version and its two security schemes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openapiInfo, sharedSchemas } from '../../src/api/openapi.js';
import { buildOfflineApp } from '../../src/api/offline.js';

test('the shared schemas: each has an $id, no two the same', () => {
  const ids = sharedSchemas.map((s) => (s as { $id?: string }).$id);
  assert.ok(ids.every((id) => typeof id === 'string' && id.length > 0), JSON.stringify(ids));
  assert.equal(new Set(ids).size, ids.length);
});

test('OpenAPI 3.1 at microversion 1.14; the token in X-Auth-Token, the portal’s cookie as the other way', () => {
  const o = openapiInfo.openapi!;
  assert.equal(o.openapi, '3.1.0');
  assert.equal(o.info!.version, '1.14');
  assert.deepEqual(o.security, [{ keystone: [] }]);
  assert.deepEqual(o.components!.securitySchemes!.keystone, { type: 'apiKey', in: 'header', name: 'X-Auth-Token' });
  assert.equal((o.components!.securitySchemes!.portalSession as { in: string }).in, 'cookie');
});

test('every $ref of the generated document resolves to a schema it holds', async () => {
  const app = await buildOfflineApp();
  try {
    const doc = app.swagger() as { components: { schemas: Record<string, unknown> } };
    const refs = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === '$ref' && typeof x === 'string' ? refs.add(x) : walk(x);
    };
    walk(doc);
    assert.ok(refs.size > 10);
    for (const ref of refs) {
      const name = ref.replace(/^#\/components\/schemas\//, '');
      assert.ok(name !== ref && doc.components.schemas[name], `unresolved ${ref}`);
    }
    for (const s of sharedSchemas) assert.ok(doc.components.schemas[(s as { $id: string }).$id], (s as { $id: string }).$id);
  } finally {
    await app.close();
  }
});
