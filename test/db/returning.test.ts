// The rows of an UPDATE … RETURNING through TypeORM's query() (src/db/returning.ts), against real PostgreSQL:
// the driver's [rows, count] for an UPDATE, a bare list for a SELECT.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { returnedRows } from '../../src/db/returning.js';
import { openDb, type Db } from '../support/database.js';

let db: Db;
before(async () => {
  db = await openDb();
});
after(() => db.close());

test('an UPDATE … RETURNING: its rows, none when nothing matched; a SELECT: its rows', async () => {
  const { cluster: c } = await db.cluster();
  const hit = returnedRows<{ uuid: string }>(await db.ds.query(`UPDATE cluster SET updated_at = now() WHERE uuid = $1 RETURNING uuid`, [c.uuid]));
  assert.deepEqual(hit, [{ uuid: c.uuid }]);
  const miss = returnedRows(await db.ds.query(`UPDATE cluster SET updated_at = now() WHERE uuid = $1 RETURNING uuid`, ['00000000-0000-0000-0000-000000000000']));
  assert.deepEqual(miss, []);
  assert.deepEqual(returnedRows(await db.ds.query(`SELECT uuid FROM cluster WHERE uuid = $1`, [c.uuid])), [{ uuid: c.uuid }]);
});
