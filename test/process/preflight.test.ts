// Before a process starts its work (src/process/preflight.ts): PostgreSQL with the build's schema and Redis
// must answer; a failure names the dependency, its host and the variable that points at it, while a schema
// behind the build keeps its own message.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SchemaBehindError } from '../../src/db/schema-check.js';
import { pingRedis, preflight, reaching } from '../../src/process/preflight.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { closedPort } from '../support/net.js';

let db: TestDatabase;
const empty = `t_preflight_${process.pid}_${randomBytes(4).toString('hex')}`;
const adminUrl = () => process.env.TEST_DATABASE_ADMIN_URL ?? process.env.DATABASE_URL!;
const admin = async (sql: string) => {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  await c.query(sql);
  await c.end();
};
before(async () => {
  db = await freshDatabase();
  await admin(`CREATE DATABASE ${empty}`);
});
after(async () => {
  await db.drop();
  await admin(`DROP DATABASE IF EXISTS ${empty} WITH (FORCE)`);
});

test('a migrated database and a Redis that answers: the start goes on', async () => {
  await preflight({ databaseUrl: db.url, redisUrl: process.env.REDIS_URL! });
  await pingRedis(process.env.REDIS_URL!);
});

test('an unreachable PostgreSQL or Redis: one line naming it, its host and variable; the cause kept', async () => {
  const pgPort = await closedPort();
  const down = new URL(db.url);
  down.port = String(pgPort);
  await assert.rejects(preflight({ databaseUrl: down.toString(), redisUrl: process.env.REDIS_URL! }), (e: unknown) => {
    assert.match((e as Error).message, new RegExp(`^PostgreSQL at ${down.host} \\(DATABASE_URL\\): .*ECONNREFUSED`));
    assert.ok((e as Error).cause);
    return true;
  });
  const redisPort = await closedPort();
  await assert.rejects(preflight({ databaseUrl: db.url, redisUrl: `redis://127.0.0.1:${redisPort}` }), new RegExp(`^Error: Redis at 127\\.0\\.0\\.1:${redisPort} \\(REDIS_URL\\): .*ECONNREFUSED`));
});

test('a schema behind the build is its own error, not wrapped', async () => {
  const u = new URL(adminUrl());
  u.pathname = `/${empty}`;
  await assert.rejects(preflight({ databaseUrl: u.toString(), redisUrl: process.env.REDIS_URL! }), (e: unknown) => e instanceof SchemaBehindError);
});

test('reaching: the value when it works', async () => {
  assert.equal(await reaching('X', 'X_URL', 'http://x:1', async () => 42), 42);
});
