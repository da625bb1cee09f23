// Quotas (src/db/repos/quotas.ts) on real PostgreSQL: one row per (project, resource), its limit set and
// removed, pages with a marker among the rows the list covers, and the cluster limit with the usage a bill
// reads and the check the create runs in its transaction.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterQuotaReached, clusterUsageOf, CLUSTER_RESOURCE, QuotaRepo } from '../../../src/db/repos/quotas.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
let quotas: QuotaRepo;
before(async () => {
  db = await openDb(2);
  quotas = new QuotaRepo(db.ds);
});
after(() => db.close());

const page = { sortKey: 'id', sortDir: 'asc' as const, limit: 10 };

test('insert, a duplicate, find, setLimit and remove', async () => {
  const row = await quotas.insert({ project_id: 'p-a', resource: CLUSTER_RESOURCE, hard_limit: 3 });
  assert.ok(row !== 'duplicate');
  assert.deepEqual([row.hard_limit, row.updated_at], [3, null]);
  assert.equal(await quotas.insert({ project_id: 'p-a', resource: CLUSTER_RESOURCE, hard_limit: 9 }), 'duplicate');
  assert.equal((await quotas.find('p-a', CLUSTER_RESOURCE))?.hard_limit, 3);
  const set = await quotas.setLimit('p-a', CLUSTER_RESOURCE, 7);
  assert.equal(set?.hard_limit, 7);
  assert.ok(set?.updated_at);
  assert.equal(await quotas.setLimit('p-none', CLUSTER_RESOURCE, 1), null);
  assert.equal(await quotas.remove('p-a', CLUSTER_RESOURCE), true);
  assert.equal(await quotas.remove('p-a', CLUSTER_RESOURCE), false);
  assert.equal(await quotas.find('p-a', CLUSTER_RESOURCE), null);
});

test('lists: one project’s or every project’s; a marker of a row the list does not cover is bad', async () => {
  const a = await quotas.insert({ project_id: 'p-list-a', resource: CLUSTER_RESOURCE, hard_limit: 1 });
  const b = await quotas.insert({ project_id: 'p-list-b', resource: CLUSTER_RESOURCE, hard_limit: 1 });
  assert.ok(a !== 'duplicate' && b !== 'duplicate');
  const mine = await quotas.list('p-list-a', page, undefined);
  assert.ok(mine !== 'bad-marker');
  assert.deepEqual(mine.map((r) => r.project_id), ['p-list-a']);
  assert.equal(await quotas.list('p-list-a', page, b.id), 'bad-marker');
  const after = await quotas.list(undefined, page, a.id);
  assert.ok(after !== 'bad-marker' && after.some((r) => r.id === b.id) && !after.some((r) => r.id === a.id));
});

test('the cluster limit: the row’s, else the default; the usage counts the project’s clusters only', async () => {
  await db.cluster({ project: 'p-use' });
  await db.cluster({ project: 'p-use' });
  await db.cluster({ project: 'p-other' });
  assert.deepEqual(await clusterUsageOf(db.ds.manager, 'p-use', 20), { limit: 20, used: 2 });
  await quotas.insert({ project_id: 'p-use', resource: CLUSTER_RESOURCE, hard_limit: 2 });
  assert.deepEqual(await quotas.clusterUsage('p-use', 20), { limit: 2, used: 2 });
});

test('clusterQuotaReached: the limit when the project has as many clusters, undefined while there is room', async () => {
  await db.cluster({ project: 'p-full' });
  assert.equal(await db.ds.transaction((em) => clusterQuotaReached(em, 'p-full', 1)), 1);
  assert.equal(await db.ds.transaction((em) => clusterQuotaReached(em, 'p-full', 2)), undefined);
  await quotas.insert({ project_id: 'p-full', resource: CLUSTER_RESOURCE, hard_limit: 0 });
  assert.equal(await db.ds.transaction((em) => clusterQuotaReached(em, 'p-full', 5)), 0, 'the row wins over the default');
});
