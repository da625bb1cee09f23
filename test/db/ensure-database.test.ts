// Creating the service's database on a local server (src/db/ensure-database.ts): made when missing, left
// alone when there, and a name that is no plain identifier is refused. (Two processes creating it at the same
// moment can still fail: PostgreSQL may answer 23505 on pg_database_datname_index rather than the 42P04 the
// code forgives — reported, not tested here.)
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ensureDatabase } from '../../src/db/ensure-database.js';

const adminUrl = (): string => {
  const u = process.env.TEST_DATABASE_ADMIN_URL ?? process.env.DATABASE_URL;
  if (!u) throw new Error('TEST_DATABASE_ADMIN_URL is not set: run the tests with `npm test`');
  return u;
};
const name = `t_ensure_${process.pid}_${randomBytes(4).toString('hex')}`;
const urlOf = (db: string) => {
  const u = new URL(adminUrl());
  u.pathname = `/${db}`;
  return u.toString();
};
async function exists(db: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try {
    return ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount ?? 0) > 0;
  } finally {
    await c.end();
  }
}

after(async () => {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.end();
});

test('made when missing; again a no-op', async () => {
  assert.equal(await exists(name), false);
  await ensureDatabase(adminUrl(), urlOf(name));
  assert.equal(await exists(name), true);
  await ensureDatabase(adminUrl(), urlOf(name));
  const c = new pg.Client({ connectionString: urlOf(name) });
  await c.connect();
  await c.end();
});

test('a name that is no plain identifier is refused before any connection', async () => {
  await assert.rejects(ensureDatabase('postgres://nowhere.invalid/x', 'postgres://nowhere.invalid/x;DROP'), /unexpected database name/);
  await assert.rejects(ensureDatabase('postgres://nowhere.invalid/x', 'postgres://nowhere.invalid/Upper'), /unexpected database name/);
});
