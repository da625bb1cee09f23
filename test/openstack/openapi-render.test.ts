// The OpenStack clients' generated types (openapi/openstack/<service>.ts) must match our OpenAPI
// subsets (<service>.yaml): regenerate with `npm run openapi` when this fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { OPENSTACK_SPECS, renderOpenstackTypes, specUrl, typesUrl } from '../../src/openstack/openapi-render.js';
import type { components as Neutron } from '../../openapi/openstack/neutron.js';
import type { components as Nova } from '../../openapi/openstack/nova.js';

test('the committed OpenStack client types match the OpenAPI subsets', async () => {
  const rendered = await renderOpenstackTypes();
  for (const name of OPENSTACK_SPECS) {
    assert.equal(readFileSync(typesUrl(name), 'utf8'), rendered[name], `openapi/openstack/${name}.ts is stale: run npm run openapi`);
  }
});

test('every operation of the subsets has an id and a success response, every $ref resolves', () => {
  for (const name of OPENSTACK_SPECS) {
    const doc = parse(readFileSync(specUrl(name), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>> };
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters') continue;
        assert.ok(op.operationId, `${name}: ${method} ${path} has no operationId`);
        assert.ok(!ids.has(op.operationId), `${name}: duplicate operationId ${op.operationId}`);
        ids.add(op.operationId);
        assert.ok(Object.keys(op.responses ?? {}).some((c) => c.startsWith('2')), `${name}: ${method} ${path} documents no success`);
      }
    }
    const text = JSON.stringify(doc);
    for (const [, ref] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      const target = ref!.split('/').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], doc);
      assert.ok(target !== undefined, `${name}: unresolved $ref #/${ref}`);
    }
  }
});

test('the generated types describe the wire shapes', () => {
  // Compile-time checks: these fail `tsc` when the subsets drift from what the clients send.
  const port: Neutron['schemas']['PortCreate'] = {
    network_id: 'n',
    fixed_ips: [{ subnet_id: 's', ip_address: '10.0.0.5' }],
    security_groups: ['sg'],
    allowed_address_pairs: [{ ip_address: '10.0.0.0/24' }],
    tags: ['cluster-uuid'],
  };
  const server: Nova['schemas']['ServerCreateRequest'] = {
    server: { name: 'n', flavorRef: '2', networks: [{ port: 'p' }], tags: ['t'], block_device_mapping_v2: [{ boot_index: 0, uuid: 'i', source_type: 'image', destination_type: 'volume', volume_size: 20 }] },
    'os:scheduler_hints': { group: 'g' },
  };
  assert.equal(port.network_id, 'n');
  assert.equal(server.server.networks.length, 1);
});
