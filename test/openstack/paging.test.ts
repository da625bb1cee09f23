// Following a list's pages to the end (src/openstack/paging.ts): absolute or relative links, their query
// replayed on our own endpoint, a repeated link or an empty page ends it, more than 1000 pages is an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectPages, linkQuery } from '../../src/openstack/paging.js';
import { OpenStackError } from '../../src/openstack/http.js';

test('linkQuery: the query of an absolute or a relative link', () => {
  assert.equal(linkQuery('http://internal.host:9696/v2.0/networks?limit=2&marker=m').toString(), 'limit=2&marker=m');
  assert.equal(linkQuery('/v2/images?marker=x').get('marker'), 'x');
  assert.equal(linkQuery('/v2/images').toString(), '');
});

test('pages are followed until no next link; each next’s query is what is asked next', async () => {
  const asked: string[] = [];
  const pages: Record<string, { items: number[]; next?: string }> = {
    'limit=2': { items: [1, 2], next: 'http://elsewhere/v2.0/x?limit=2&marker=2' },
    'limit=2&marker=2': { items: [3, 4], next: '/v2.0/x?limit=2&marker=4' },
    'limit=2&marker=4': { items: [5] },
  };
  const items = await collectPages('network', new URLSearchParams('limit=2'), async (q) => {
    asked.push(q.toString());
    const p = pages[q.toString()]!;
    return { items: p.items, next: p.next };
  });
  assert.deepEqual(items, [1, 2, 3, 4, 5]);
  assert.deepEqual(asked, ['limit=2', 'limit=2&marker=2', 'limit=2&marker=4']);
});

test('a full last page links to an empty one: the end; a link seen before ends it too', async () => {
  let n = 0;
  const empty = await collectPages('image', new URLSearchParams(), async () => (n++ === 0 ? { items: ['a'], next: '/x?marker=a' } : { items: [], next: '/x?marker=z' }));
  assert.deepEqual([empty, n], [['a'], 2]);
  let loops = 0;
  const looping = await collectPages('image', new URLSearchParams(), async () => (loops++, { items: ['a'], next: '/x?marker=same' }));
  assert.deepEqual([looping.length, loops], [2, 2]);
});

test('more than 1000 pages: an OpenStackError naming the service', async () => {
  let i = 0;
  await assert.rejects(
    collectPages('compute', new URLSearchParams(), async () => ({ items: [i], next: `/x?marker=${i++}` })),
    (e: unknown) => e instanceof OpenStackError && e.service === 'compute' && /more than 1000 pages/.test(e.message),
  );
});
