// The simulators' indexed maps: lookups by project, tag or parent id that follow set, delete,
// clear and refile, and stale() naming an in-place change that was not refiled.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { IndexedMap, staleEntries } from '../../cloudsim/common/indexed-map.js';

interface Item {
  id: string;
  project: string;
  tags: string[];
  parent: string | null;
}

const items = () =>
  new IndexedMap<Item, 'project' | 'tag' | 'parent'>({ project: (i) => i.project, tag: (i) => i.tags, parent: (i) => i.parent });

const ids = (xs: Item[]) => xs.map((x) => x.id);

describe('IndexedMap', () => {
  test('files each item under its keys, in the order filed; none for null', () => {
    const m = items();
    m.set('a', { id: 'a', project: 'p1', tags: ['x', 'y'], parent: null });
    m.set('b', { id: 'b', project: 'p2', tags: ['y'], parent: 'a' });
    m.set('c', { id: 'c', project: 'p1', tags: [], parent: 'a' });
    assert.deepEqual(ids(m.by('project', 'p1')), ['a', 'c']);
    assert.deepEqual(ids(m.by('tag', 'y')), ['a', 'b']);
    assert.deepEqual(ids(m.by('parent', 'a')), ['b', 'c']);
    assert.deepEqual(m.by('parent', 'nothing'), []);
    assert.equal(m.count('tag', 'x'), 1);
    assert.equal(m.first('project', 'p2')?.id, 'b');
    assert.deepEqual(ids(m.byAny('tag', ['x', 'y'])), ['a', 'b']);
    assert.equal(m.size, 3);
    assert.deepEqual([...m.keys()], ['a', 'b', 'c']);
  });

  test('delete and clear unfile; replacing an id files the new item only', () => {
    const m = items();
    m.set('a', { id: 'a', project: 'p1', tags: ['x'], parent: null });
    m.set('b', { id: 'b', project: 'p1', tags: ['x'], parent: null });
    assert.equal(m.delete('a'), true);
    assert.equal(m.delete('a'), false);
    assert.deepEqual(ids(m.by('project', 'p1')), ['b']);
    m.set('b', { id: 'b', project: 'p2', tags: [], parent: null });
    assert.deepEqual(m.by('project', 'p1'), []);
    assert.deepEqual(m.by('tag', 'x'), []);
    assert.deepEqual(ids(m.by('project', 'p2')), ['b']);
    m.clear();
    assert.deepEqual(m.by('project', 'p2'), []);
    assert.equal(m.size, 0);
  });

  test('an in-place change is stale until refiled; unchanged keys keep their place', () => {
    const m = items();
    const a: Item = { id: 'a', project: 'p1', tags: ['x'], parent: null };
    m.set('a', a);
    m.set('b', { id: 'b', project: 'p1', tags: ['x'], parent: null });
    a.tags = ['x', 'z'];
    a.parent = 'b';
    assert.deepEqual(m.stale(), ['a']);
    assert.deepEqual(staleEntries({ things: m, other: new Map() }), ['things:a']);
    m.refile('a');
    assert.deepEqual(m.stale(), []);
    assert.deepEqual(ids(m.by('tag', 'x')), ['a', 'b']);
    assert.deepEqual(ids(m.by('tag', 'z')), ['a']);
    assert.deepEqual(ids(m.by('parent', 'b')), ['a']);
  });

  test("an item's own list changed in place (a tag pushed) is found under its new keys once refiled", () => {
    const m = items();
    const a: Item = { id: 'a', project: 'p1', tags: ['x'], parent: null };
    m.set('a', a);
    a.tags.push('y');
    assert.deepEqual(m.stale(), ['a']);
    m.refile('a');
    assert.deepEqual(ids(m.by('tag', 'y')), ['a']);
    a.tags.splice(0, 1);
    m.refile('a');
    assert.deepEqual(m.by('tag', 'x'), []);
    assert.deepEqual(m.stale(), []);
  });

  test('an unknown index is a programming error', () => {
    assert.throws(() => items().by('nope' as 'tag', 'x'), /no index nope/);
  });
});
