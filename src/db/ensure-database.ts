// Creates the service's database on a server where we hold an admin connection (local setups).
import pg from 'pg';

export async function ensureDatabase(adminUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unexpected database name "${name}"`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const r = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  } catch (e) {
    // Another process created it at the same moment.
    if ((e as { code?: string }).code !== '42P04') throw e;
  } finally {
    await admin.end();
  }
}
