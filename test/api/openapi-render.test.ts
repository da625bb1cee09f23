// The committed contract (openapi/magnum-v1.json and openapi/types.ts) must match the routes:
// regenerate with `npm run openapi` when this fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderOpenapi } from '../../src/api/openapi-render.js';
import type { paths, components } from '../../openapi/types.js';

const committed = (name: string) => readFileSync(new URL(`../../openapi/${name}`, import.meta.url), 'utf8');

test('the committed OpenAPI document and types match the code', async () => {
  const { json, types } = await renderOpenapi();
  assert.equal(committed('magnum-v1.json'), json, 'openapi/magnum-v1.json is stale: run npm run openapi');
  assert.equal(committed('types.ts'), types, 'openapi/types.ts is stale: run npm run openapi');
});

test('every v1 operation has a summary, a tag and an error response', () => {
  const doc = JSON.parse(committed('magnum-v1.json')) as { paths: Record<string, Record<string, { summary?: string; tags?: string[]; responses: Record<string, unknown> }>> };
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries(ops)) {
      assert.ok(op.summary, `${method} ${path} has no summary`);
      assert.ok(op.tags?.length, `${method} ${path} has no tag`);
      assert.ok(Object.keys(op.responses).some((c) => c.startsWith('4')), `${method} ${path} documents no error`);
    }
  }
});

test('the generated types describe the wire shapes', () => {
  // Compile-time checks: these assignments fail `tsc` if the generated types drift from the schema.
  const ct: components['schemas']['ClusterTemplate'] = {
    uuid: '00000000-0000-0000-0000-000000000000', name: 'n', coe: 'kubernetes', image_id: 'i', flavor_id: null, master_flavor_id: null,
    keypair_id: null, dns_nameserver: null, external_network_id: null, fixed_network: null, fixed_subnet: null, network_driver: 'flannel',
    volume_driver: null, apiserver_port: null, docker_volume_size: null, docker_storage_driver: null, cluster_distro: null, http_proxy: null,
    https_proxy: null, no_proxy: null, insecure_registry: null, registry_enabled: false, tls_disabled: false, public: false,
    master_lb_enabled: false, floating_ip_enabled: true, hidden: false, server_type: 'vm', labels: {}, tags: null, links: [],
    created_at: null, updated_at: null, project_id: 'p', user_id: 'u',
  };
  type ListOk = paths['/v1/clustertemplates']['get']['responses'][200]['content']['application/json'];
  const list: ListOk = { clustertemplates: [ct] };
  assert.equal(list.clustertemplates.length, 1);
});
