// Keyset pagination (src/db/repos/keyset.ts) on real PostgreSQL: pages after a marker row ordered by
// (sort key, id) in both directions, ties broken by id, NULLs last ascending and first descending; walking
// the pages meets every row once, in the order one query would give.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { QuotaEntity, type QuotaRow } from '../../../src/db/entities/quota.js';
import { orderAndPage, type Keyset } from '../../../src/db/repos/keyset.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
before(async () => {
  db = await openDb(2);
  // Limits repeat and one project id sorts with them: ties, and every row distinct by id.
  for (const limit of [3, 1, 2, 1, 3, 2, 1]) {
    await db.ds.getRepository(QuotaEntity).save({ project_id: randomUUID(), resource: 'Cluster', hard_limit: limit, created_at: new Date(), updated_at: null });
  }
  // Two rows with no updated_at and the rest with one: NULLs to place. Whole milliseconds, as the service
  // writes its timestamps from JavaScript dates (a marker read back into a Date keeps no more).
  await db.ds.query(`UPDATE quota SET updated_at = date_trunc('milliseconds', now()) - (id || ' minutes')::interval WHERE id % 3 <> 0`);
});
after(() => db.close());

const qb = () => db.ds.getRepository(QuotaEntity).createQueryBuilder('q');
const page = (p: Keyset, marker?: QuotaRow) => orderAndPage(qb(), 'q', p, marker).getMany();

/** Every page of `limit` rows after the previous page's last row. */
async function walk(sortKey: string, sortDir: 'asc' | 'desc', limit: number): Promise<number[]> {
  const seen: number[] = [];
  let marker: QuotaRow | undefined;
  for (;;) {
    const rows = await page({ sortKey, sortDir, limit }, marker);
    seen.push(...rows.map((r) => r.id));
    if (rows.length < limit) return seen;
    marker = rows.at(-1);
  }
}

for (const sortKey of ['id', 'hard_limit', 'updated_at']) {
  for (const sortDir of ['asc', 'desc'] as const) {
    test(`by ${sortKey} ${sortDir}: pages of 2 meet every row once, in one query’s order`, async () => {
      const all = (await page({ sortKey, sortDir, limit: 100 })).map((r) => r.id);
      assert.equal(all.length, 7);
      assert.deepEqual(await walk(sortKey, sortDir, 2), all);
    });
  }
}

test('ties go by id in the sort’s direction; NULLs come last ascending and first descending', async () => {
  const asc = await page({ sortKey: 'hard_limit', sortDir: 'asc', limit: 100 });
  assert.deepEqual(asc.map((r) => r.hard_limit), [1, 1, 1, 2, 2, 3, 3]);
  const ones = asc.filter((r) => r.hard_limit === 1).map((r) => r.id);
  assert.deepEqual(ones, [...ones].sort((a, b) => a - b));
  const byUpdated = await page({ sortKey: 'updated_at', sortDir: 'asc', limit: 100 });
  assert.equal(byUpdated.at(-1)!.updated_at, null);
  assert.equal((await page({ sortKey: 'updated_at', sortDir: 'desc', limit: 100 }))[0]!.updated_at, null);
});

test('a page holds at most `limit` rows', async () => {
  assert.equal((await page({ sortKey: 'id', sortDir: 'asc', limit: 3 })).length, 3);
});
