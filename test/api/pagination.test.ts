// Magnum's list parameters and `next` link (src/api/pagination.ts, spec §2.1–§2.2), on the cluster templates'
// list: views, visibility, limit/marker/sort and the `next` link; and a marker the caller cannot see (another
// project's row, another cluster's node group) is a 404 naming it, never a page boundary (issue 15, hole 5).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { nextLink, parseIdPage, parsePage } from '../../src/api/pagination.js';
import { ClusterTemplateEntity } from '../../src/db/entities/cluster-template.js';
import { ApiError } from '../../src/domain/errors.js';
import { QuotaEntity } from '../../src/db/entities/quota.js';
import { testApp, type TestApp } from '../support/app.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

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

describe('list markers of another project', () => {
  let t: TestApp;
  let other: string;
  before(async () => {
    t = await testApp();
    other = t.keystone.state.projectId('other');
  });
  after(() => t.close());

  const detail = (r: { json(): unknown }) => (r.json() as { errors: { detail: string }[] }).errors[0]!.detail;

  test('clusters, templates, node groups and quotas: 404 naming the marker, whatever the sort', async () => {
    const theirs = await insertCluster(t.app, { user: t.keystone.state.userId('other'), project: other, nodegroups: true, pki: false });
    const mine = await nodegroupCluster(t);
    for (const sort of ['', '&sort_key=name', '&sort_key=created_at&sort_dir=desc']) {
      const c = await t.as('demo', { method: 'GET', url: `/v1/clusters?marker=${theirs.cluster.uuid}${sort}` });
      assert.equal(c.statusCode, 404, c.body);
      assert.equal(detail(c), `Cluster ${theirs.cluster.uuid} could not be found.`);
      const ct = await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/detail?marker=${theirs.template.uuid}${sort}` });
      assert.equal(ct.statusCode, 404, ct.body);
      assert.equal(detail(ct), `ClusterTemplate ${theirs.template.uuid} could not be found.`);
    }
    // Another cluster's node group (of the caller's own project too) is no page boundary of this cluster's list.
    const elsewhere = await nodegroupCluster(t);
    const ng = await t.as('demo', { method: 'GET', url: `/v1/clusters/${mine.cluster.uuid}/nodegroups?marker=${elsewhere.worker.uuid}` });
    assert.equal(ng.statusCode, 404, ng.body);
    // The caller's own markers still page.
    const own = await t.as('demo', { method: 'GET', url: `/v1/clusters?marker=${mine.cluster.uuid}` });
    assert.equal(own.statusCode, 200, own.body);
    // An admin's public template is a boundary for everyone (it is listed to them).
    const { id: _id, ...copy } = theirs.template;
    const pub = { ...copy, uuid: randomUUID(), public: true };
    await t.app.services.db.getRepository(ClusterTemplateEntity).insert(pub);
    assert.equal((await t.as('demo', { method: 'GET', url: `/v1/clustertemplates?marker=${pub.uuid}` })).statusCode, 200);
  });

  test('quotas: an admin without all_tenants pages its own project only', async () => {
    const quotas = t.app.services.db.getRepository(QuotaEntity);
    const theirs = await quotas.save({ project_id: other, resource: 'Cluster', hard_limit: 3, created_at: new Date(), updated_at: null });
    const mine = await quotas.save({ project_id: t.keystone.state.projectId('admin'), resource: 'Cluster', hard_limit: 3, created_at: new Date(), updated_at: null });
    const r = await t.as('admin', { method: 'GET', url: `/v1/quotas?marker=${theirs.id}` });
    assert.equal(r.statusCode, 404, r.body);
    assert.equal(detail(r), `Quota could not be found: quota id ${theirs.id} .`);
    assert.equal((await t.as('admin', { method: 'GET', url: `/v1/quotas?marker=${mine.id}` })).statusCode, 200);
    assert.equal((await t.as('admin', { method: 'GET', url: `/v1/quotas?all_tenants=true&marker=${theirs.id}` })).statusCode, 200);
  });
});

describe('parsePage, parseIdPage and nextLink', () => {
  const sortable = new Set(['id', 'name']);
  const refused = (message: RegExp) => (e: unknown) => e instanceof ApiError && e.status === 400 && message.test(e.message);

  test('defaults: max_limit, no marker, by id ascending; a limit above max_limit is cut to it', () => {
    assert.deepEqual(parsePage({}, 50, sortable), { limit: 50, marker: undefined, sortKey: 'id', sortDir: 'asc' });
    assert.equal(parsePage({ limit: 500 }, 50, sortable).limit, 50);
    assert.deepEqual(parsePage({ limit: 2, sort_key: 'name', sort_dir: 'desc', marker: '6F1D7F4E2C524F0E9A3E1B1F0B6F2A10' }, 50, sortable), { limit: 2, marker: '6F1D7F4E2C524F0E9A3E1B1F0B6F2A10', sortKey: 'name', sortDir: 'desc' });
  });

  test('refused: a limit of 0 or less, a marker that is no uuid, an unknown sort key or direction', () => {
    assert.throws(() => parsePage({ limit: 0 }, 50, sortable), refused(/^Limit must be positive$/));
    assert.throws(() => parsePage({ marker: 'abc' }, 50, sortable), refused(/^Invalid input for field\/attribute marker\. Value: 'abc'\. Expected a uuid but received abc\.$/));
    assert.throws(() => parsePage({ sort_key: 'secret' }, 50, sortable), refused(/^The sort_key value "secret" is an invalid field for sorting$/));
    assert.throws(() => parsePage({ sort_dir: 'up' } as never, 50, sortable), refused(/^Invalid sort direction: up/));
  });

  test('parseIdPage keeps an integer marker', () => {
    assert.deepEqual(parseIdPage({ marker: 7, limit: 3 }, 50, sortable), { limit: 3, marker: 7, sortKey: 'id', sortDir: 'asc' });
  });

  test('nextLink: only for a full page with a marker, the query in Magnum’s order', () => {
    const page = { limit: 2, sortKey: 'name', sortDir: 'desc' as const };
    assert.deepEqual(nextLink('https://api.example', 'clusters', page, 2, 'm-1'), { next: 'https://api.example/v1/clusters?sort_key=name&sort_dir=desc&limit=2&marker=m-1' });
    assert.deepEqual(nextLink('h', 'clusters', page, 1, 'm-1'), {});
    assert.deepEqual(nextLink('h', 'clusters', page, 0, undefined), {});
    assert.deepEqual(nextLink('h', 'clusters', page, 2, undefined), {});
  });
});
