// Whether the database has every migration this build knows: `api` and `worker` refuse to start on
// an older schema (the `migrate` mode, run once per release, brings it up to date).
import pg from 'pg';
import { migrations } from '../../migrations/index.js';

export class SchemaBehindError extends Error {
  constructor(readonly pending: string[]) {
    super(`the database schema is behind this build (${pending.length} pending migration${pending.length === 1 ? '' : 's'}: ${pending.join(', ')}): run the migrate mode first`);
  }
}

/** The migrations of this build not recorded in the database (TypeORM's `migrations` table), oldest first. */
export async function pendingMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, application_name: 'magnum-ts', connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const table = await client.query<{ t: string | null }>(`SELECT to_regclass('migrations') AS t`);
    const applied = new Set<string>();
    if (table.rows[0]?.t) for (const r of (await client.query<{ name: string }>('SELECT name FROM migrations')).rows) applied.add(r.name);
    return migrations.map((M) => new M().name ?? M.name).filter((name) => !applied.has(name));
  } finally {
    await client.end();
  }
}

export async function assertSchemaCurrent(url: string): Promise<void> {
  const pending = await pendingMigrations(url);
  if (pending.length > 0) throw new SchemaBehindError(pending);
}
