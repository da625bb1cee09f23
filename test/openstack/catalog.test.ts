// Finding a service's endpoint in a token's catalog (src/openstack/catalog.ts): the type or an official
// alias, then the interface (public by default), then the region; URLs without a trailing slash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CatalogEntry } from '../../src/keystone/context.js';
import { findEndpoint } from '../../src/openstack/catalog.js';

test('endpoints: public by default, interface and region filters, aliases, trailing slash', () => {
  const catalog: CatalogEntry[] = [
    {
      type: 'volumev3',
      endpoints: [
        { interface: 'internal', region_id: 'RegionOne', url: 'http://internal:8776/v3/p/' },
        { interface: 'public', region_id: 'RegionTwo', url: 'http://two:8776/v3/p' },
        { interface: 'public', region_id: 'RegionOne', url: 'http://one:8776/v3/p/' },
      ],
    },
    { type: 'image', endpoints: [{ interface: 'publicURL', region: 'RegionOne', url: 'http://glance:9292/' }] },
  ];
  assert.equal(findEndpoint(catalog, 'block-storage'), 'http://two:8776/v3/p');
  assert.equal(findEndpoint(catalog, 'block-storage', { region: 'RegionOne' }), 'http://one:8776/v3/p');
  assert.equal(findEndpoint(catalog, 'volume', { interface: 'internal' }), 'http://internal:8776/v3/p');
  assert.equal(findEndpoint(catalog, 'image', { region: 'RegionOne' }), 'http://glance:9292');
  assert.equal(findEndpoint(catalog, 'image', { region: 'RegionTwo' }), undefined);
  assert.equal(findEndpoint(catalog, 'compute'), undefined);
});
