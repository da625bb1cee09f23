// migrate() under its advisory lock: processes starting together on an empty database apply each
// migration exactly once, and a later run has nothing to do.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { migrations } from '../../migrations/index.js';
import { createDataSource } from '../../src/db/data-source.js';
import { migrate } from '../../src/db/migrate.js';

const adminUrl = (): string => {
  const u = process.env.TEST_DATABASE_ADMIN_URL ?? process.env.DATABASE_URL;
  if (!u) throw new Error('TEST_DATABASE_ADMIN_URL is not set: run the tests with `npm test`');
  return u;
};

const name = `t_migrate_${process.pid}_${randomBytes(4).toString('hex')}`;
let url: string;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

before(async () => {
  // An empty database (template0: not even what template1 may hold), not the tests' migrated template.
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE template0`));
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  url = u.toString();
});

after(async () => {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
});

test('the database starts empty', async () => {
  const tables = await query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
  assert.deepEqual(tables, []);
});

test('two processes migrating the same empty database at once: each migration runs once', async () => {
  const sources: DataSource[] = [createDataSource(url, 2), createDataSource(url, 2)];
  try {
    await Promise.all(sources.map((ds) => ds.initialize()));
    const ran = await Promise.all(sources.map((ds) => migrate(ds, url)));
    const names = migrations.map((m) => new m().name ?? m.name);
    // Whoever got the lock first applied everything; the other found nothing left to do.
    assert.deepEqual([...ran].sort((a, b) => b.length - a.length), [names, []]);

    const rows = await query<{ name: string; n: string }>('SELECT name, count(*) AS n FROM migrations GROUP BY name ORDER BY name');
    assert.deepEqual(
      rows.map((r) => [r.name, Number(r.n)]),
      [...names].sort().map((n) => [n, 1]),
    );
    const tables = await query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
    for (const t of ['cluster_template', 'migrations']) assert.ok(tables.some((r) => r.table_name === t), `table ${t} exists`);

    // A later run (e.g. the next deploy without new migrations) applies nothing.
    assert.deepEqual(await migrate(sources[0]!, url), []);
    assert.equal((await query('SELECT * FROM migrations')).length, names.length);
  } finally {
    await Promise.all(sources.filter((ds) => ds.isInitialized).map((ds) => ds.destroy()));
  }
});

test('a later run from a fresh process applies nothing', async () => {
  const ds = createDataSource(url, 1);
  await ds.initialize();
  try {
    assert.deepEqual(await migrate(ds, url), []);
  } finally {
    await ds.destroy();
  }
});
