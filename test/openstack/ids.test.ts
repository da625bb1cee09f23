// How a value a user gave is looked up (src/openstack/ids.ts): oslo's is_uuid_like decides id or name; a flavor by
// id first, then by name, over one list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flavorOf, isUuidLike } from '../../src/openstack/ids.js';

test('a UUID in any of oslo\'s spellings is an id; a name, a flavor\'s free id or a near-UUID is not', () => {
  const cases: [string, boolean][] = [
    ['3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e42', true],
    ['3F0D9C1E7A514A8E9B552F6A9D1C0E42', true],
    ['{3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e42}', true],
    ['urn:uuid:3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e42', true],
    ['ubuntu-24.04', false],
    ['public', false],
    ['2', false],
    ['3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e4', false],
  ];
  for (const [v, uuid] of cases) assert.equal(isUuidLike(v), uuid, v);
});

test('a flavor by id, else by name; an id wins over another flavor\'s name', () => {
  const flavors = [{ id: '2', name: 'm1.small' }, { id: 'm1.small', name: 'odd' }, { id: '3', name: 'm1.medium' }];
  assert.equal(flavorOf(flavors, 'm1.medium')?.id, '3');
  assert.equal(flavorOf(flavors, '2')?.name, 'm1.small');
  assert.equal(flavorOf(flavors, 'm1.small')?.name, 'odd', 'by id first, as Nova answers GET /flavors/{id}');
  assert.equal(flavorOf(flavors, 'm1.huge'), undefined);
});
