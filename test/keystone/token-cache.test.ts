// The bounded map of validated tokens (src/keystone/token-cache.ts): entries expire at their time, the
// least recently used goes first when full, a read refreshes an entry's place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LruCache } from '../../src/keystone/token-cache.js';

test('an entry lives until its time, then is gone (and dropped)', () => {
  const c = new LruCache<string>(10);
  c.set('k', 'v', 1000);
  assert.equal(c.get('k', 999), 'v');
  assert.equal(c.get('k', 1000), undefined);
  assert.equal(c.size, 0, 'an expired entry read is dropped');
});

test('bounded: the least recently used goes first; a read moves an entry to the back', () => {
  const c = new LruCache<number>(2);
  c.set('a', 1, Infinity);
  c.set('b', 2, Infinity);
  assert.equal(c.get('a'), 1);
  c.set('c', 3, Infinity);
  assert.deepEqual(c.keys(), ['a', 'c']);
  c.set('a', 4, Infinity);
  assert.deepEqual(c.keys(), ['c', 'a'], 'setting again refreshes too');
  assert.equal(c.get('a'), 4);
  c.delete('c');
  assert.deepEqual([c.size, c.keys()], [1, ['a']]);
});
