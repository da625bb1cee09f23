// Whether the database has every migration of this build (src/db/schema-check.ts): none pending on a
// migrated database; every one on an empty database; the one a migrations table lacks; the error naming them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrations } from '../../migrations/index.js';
import { assertSchemaCurrent, pendingMigrations, SchemaBehindError } from '../../src/db/schema-check.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';

let migrated: TestDatabase;
const emptyName = `t_schema_${process.pid}_${randomBytes(4).toString('hex')}`;
let emptyUrl: string;
const adminUrl = () => process.env.TEST_DATABASE_ADMIN_URL ?? process.env.DATABASE_URL!;
const admin = async (sql: string) => {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  await c.query(sql);
  await c.end();
};

before(async () => {
  migrated = await freshDatabase();
  await admin(`CREATE DATABASE ${emptyName}`);
  const u = new URL(adminUrl());
  u.pathname = `/${emptyName}`;
  emptyUrl = u.toString();
});
after(async () => {
  await migrated.drop();
  await admin(`DROP DATABASE IF EXISTS ${emptyName} WITH (FORCE)`);
});

const names = migrations.map((M) => new M().name ?? M.name);

test('a migrated database: nothing pending, the assertion passes', async () => {
  assert.deepEqual(await pendingMigrations(migrated.url), []);
  await assertSchemaCurrent(migrated.url);
});

test('an empty database: every migration pending, oldest first; the error names them and the fix', async () => {
  assert.deepEqual(await pendingMigrations(emptyUrl), names);
  await assert.rejects(assertSchemaCurrent(emptyUrl), (e: unknown) => {
    assert.ok(e instanceof SchemaBehindError);
    assert.deepEqual(e.pending, names);
    assert.match(e.message, new RegExp(`^the database schema is behind this build \\(${names.length} pending migrations: .*\\): run the migrate mode first$`));
    return true;
  });
});

test('a database one migration behind: that one, in the singular', async () => {
  const last = names.at(-1)!;
  const c = new pg.Client({ connectionString: migrated.url });
  await c.connect();
  await c.query('DELETE FROM migrations WHERE name = $1', [last]);
  await c.end();
  assert.deepEqual(await pendingMigrations(migrated.url), [last]);
  await assert.rejects(assertSchemaCurrent(migrated.url), new RegExp(`\\(1 pending migration: ${last}\\)`));
});
