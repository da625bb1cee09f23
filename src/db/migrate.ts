// Applies pending migrations under a PostgreSQL advisory lock, so processes that start
// together run them once, one after the other.
import pg from 'pg';
import type { DataSource } from 'typeorm';

/** Arbitrary constant naming this service's migration lock. */
const LOCK_KEY = 0x6d61676e; // "magn"

export async function migrate(ds: DataSource, url: string): Promise<string[]> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    const ran = await ds.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await lock.end();
  }
}
