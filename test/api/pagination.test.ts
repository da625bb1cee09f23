// Listing cluster templates: views, visibility, limit/marker/sort and the `next` link (spec §2.1–§2.2).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
const mine: { uuid: string; name: string; docker_volume_size: number | null }[] = [];

before(async () => {
  t = await testApp({ config: (c) => (c.maxLimit = 5) });
  // Seven templates in project demo; sizes repeat and one is null, to exercise the secondary key.
  const sizes = [30, 10, 20, 10, null, 20, 10];
  for (const [i, size] of sizes.entries()) {
    const r = await t.as('demo', {
      method: 'POST',
      url: '/v1/clustertemplates',
      payload: { name: `tpl-${i}`, coe: 'kubernetes', image_id: 'img', docker_volume_size: size },
    });
    assert.equal(r.statusCode, 201, r.body);
    mine.push(r.json());
  }
  const o = await t.as('other', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'others', coe: 'kubernetes', image_id: 'img' } });
  assert.equal(o.statusCode, 201);
});
after(() => t.close());

type Listing = { clustertemplates: { uuid: string; name: string; docker_volume_size: number | null }[]; next?: string };

async function all(path: string, user: 'demo' | 'admin' = 'demo'): Promise<{ pages: Listing[]; items: Listing['clustertemplates'] }> {
  const pages: Listing[] = [];
  let url: string | undefined = path;
  while (url) {
    const r = await t.as(user, { method: 'GET', url });
    assert.equal(r.statusCode, 200, r.body);
    const page = r.json() as Listing;
    pages.push(page);
    url = page.next ? new URL(page.next).pathname + new URL(page.next).search : undefined;
  }
  return { pages, items: pages.flatMap((p) => p.clustertemplates) };
}

describe('list', () => {
  test('list and detail return full templates of the caller’s project only', async () => {
    for (const path of ['/v1/clustertemplates?limit=100', '/v1/clustertemplates/detail?limit=100']) {
      const { items } = await all(path);
      assert.deepEqual(items.map((i) => i.uuid), mine.map((m) => m.uuid));
      assert.ok('labels' in items[0]! && 'links' in items[0]!, 'lists are not reduced');
    }
  });

  test('pages are capped by max_limit; next only on a full page, in Magnum’s format', async () => {
    const r = await t.as('demo', { method: 'GET', url: '/v1/clustertemplates' });
    const body = r.json() as Listing;
    assert.equal(body.clustertemplates.length, 5);
    assert.equal(body.next, `http://localhost:80/v1/clustertemplates?sort_key=id&sort_dir=asc&limit=5&marker=${mine[4]!.uuid}`);
    const { pages, items } = await all('/v1/clustertemplates');
    assert.equal(pages.length, 2);
    assert.equal('next' in pages[1]!, false, 'a partial page has no next key at all');
    assert.equal(items.length, 7);
  });

  test('a page exactly full still links to a final empty page', async () => {
    const { pages } = await all('/v1/clustertemplates/detail?limit=7');
    assert.equal(pages[0]!.next?.includes('/v1/clustertemplates/detail?sort_key=id&sort_dir=asc&limit=5&marker='), true);
  });

  test('sort by a column with ties and NULLs, both directions, across pages', async () => {
    const byAsc = [...mine].sort((a, b) => {
      const av = a.docker_volume_size ?? Infinity;
      const bv = b.docker_volume_size ?? Infinity;
      return av - bv || mine.indexOf(a) - mine.indexOf(b);
    });
    const asc = await all('/v1/clustertemplates?limit=2&sort_key=docker_volume_size&sort_dir=asc');
    assert.deepEqual(asc.items.map((i) => i.name), byAsc.map((i) => i.name));
    const desc = await all('/v1/clustertemplates?limit=3&sort_key=docker_volume_size&sort_dir=desc');
    assert.deepEqual(desc.items.map((i) => i.name), [...byAsc].reverse().map((i) => i.name));
    const byName = await all('/v1/clustertemplates?limit=4&sort_key=name&sort_dir=desc');
    assert.deepEqual(byName.items.map((i) => i.name), mine.map((m) => m.name).sort().reverse());
  });

  test('admin sees every project', async () => {
    const { items } = await all('/v1/clustertemplates', 'admin');
    assert.ok(items.some((i) => i.name === 'others'));
    assert.ok(mine.every((m) => items.some((i) => i.uuid === m.uuid)));
  });

  const bad: [string, number, RegExp][] = [
    ['limit=0', 400, /^Limit must be positive$/],
    ['limit=-3', 400, /^Limit must be positive$/],
    ['limit=abc', 400, /field\/attribute limit/],
    ['sort_key=bogus', 400, /^The sort_key value "bogus" is an invalid field for sorting$/],
    ['sort_dir=up', 400, /^Invalid sort direction: up\. Acceptable values are 'asc' or 'desc'$/],
    ['marker=not-a-uuid', 400, /field\/attribute marker/],
    [`marker=${randomUUID()}`, 404, /^ClusterTemplate [0-9a-f-]{36} could not be found\.$/],
    ['name=x', 400, /^Unknown argument: "name"$/],
  ];
  for (const [qs, status, message] of bad) {
    test(`${status} for ?${qs}`, async () => {
      const r = await t.as('demo', { method: 'GET', url: `/v1/clustertemplates?${qs}` });
      assert.equal(r.statusCode, status, r.body);
      assert.match(r.json().errors[0].detail, message);
    });
  }
});
