// The bounded read cache with its generation counter (src/api/read-cache.ts): nothing read before an
// invalidation is kept, the weight bound evicts the least recently used, and it is bypassed while unusable.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadCache } from '../../src/db/read-cache.js';

describe('ReadCache', () => {
  test('a value read before an invalidation is not stored', () => {
    const c = new ReadCache<string>(10, () => 1, () => true);
    const gen = c.generation;
    c.invalidate();
    c.set('k', 'stale', gen);
    assert.equal(c.get('k'), undefined);
    c.set('k', 'fresh', c.generation);
    assert.equal(c.get('k'), 'fresh');
  });

  test('weight-bounded, least recently used out first', () => {
    const c = new ReadCache<string>(10, (s) => s.length, () => true);
    c.set('a', 'xxxx', 0);
    c.set('b', 'xxxx', 0);
    c.get('a');
    c.set('c', 'xxxx', 0);
    assert.equal(c.get('b'), undefined);
    assert.equal(c.get('a'), 'xxxx');
    assert.equal(c.get('c'), 'xxxx');
    c.set('huge', 'x'.repeat(11), 0);
    assert.equal(c.get('huge'), undefined);
  });

  test('bypassed entirely when not usable', () => {
    let ok = true;
    const c = new ReadCache<string>(10, () => 1, () => ok);
    c.set('k', 'v', 0);
    ok = false;
    assert.equal(c.get('k'), undefined);
    c.set('j', 'v', 0);
    ok = true;
    assert.equal(c.get('j'), undefined);
  });
});
