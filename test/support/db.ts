// A fresh PostgreSQL database per test file, cloned from a migrated template database that is
// made once per set of migrations (test files run in parallel processes: an advisory lock
// serialises the template's creation).
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDataSource, MIGRATION_TIMEOUTS } from '../../src/db/data-source.js';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../migrations/index.js';

const adminUrl = (): string => {
  const u = process.env.TEST_DATABASE_ADMIN_URL ?? process.env.DATABASE_URL;
  if (!u) throw new Error('TEST_DATABASE_ADMIN_URL is not set: run the tests with `npm test`');
  return u;
};

const withDb = (url: string, db: string): string => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
};

async function ensureTemplate(admin: pg.Client): Promise<string> {
  const tag = createHash('sha256').update(migrations.map((m) => m.name).join(',')).digest('hex').slice(0, 12);
  const name = `magnum_tpl_${tag}`;
  await admin.query('SELECT pg_advisory_lock(7337)');
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${name}`);
      const ds = createDataSource(withDb(adminUrl(), name), 2, MIGRATION_TIMEOUTS);
      await ds.initialize();
      try {
        await migrate(ds, withDb(adminUrl(), name));
      } finally {
        await ds.destroy();
      }
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock(7337)');
  }
  return name;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function freshDatabase(): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    const template = await ensureTemplate(admin);
    const name = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    return {
      url: withDb(adminUrl(), name),
      async drop() {
        const c = new pg.Client({ connectionString: adminUrl() });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  } finally {
    await admin.end();
  }
}
