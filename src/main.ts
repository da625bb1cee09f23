// Process entry: `api` serves the API, `worker` runs the operations worker, `all` runs the API,
// a worker and the embedded simulator in one process (the default of `npm start`), `migrate`
// applies pending migrations and exits.
import { loadConfig } from './config.js';
import { createDataSource } from './db/data-source.js';
import { ensureDatabase } from './db/ensure-database.js';
import { migrate } from './db/migrate.js';
import { startAll, startApi, startWorkerProcess } from './server.js';

const mode = process.argv[2] ?? 'all';

async function runMigrations(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL must be set');
  if (process.env.DATABASE_ADMIN_URL) await ensureDatabase(process.env.DATABASE_ADMIN_URL, url);
  const ds = createDataSource(url, 2);
  await ds.initialize();
  try {
    const ran = await migrate(ds, url);
    console.log(JSON.stringify({ level: 'info', msg: 'migrations applied', migrations: ran }));
  } finally {
    await ds.destroy();
  }
}

switch (mode) {
  case 'migrate':
    await runMigrations();
    break;
  case 'api':
    await runMigrations();
    await startApi(loadConfig());
    break;
  case 'worker':
    await startWorkerProcess();
    break;
  case 'all':
    await runMigrations();
    await startAll();
    break;
  default:
    console.error(`unknown mode "${mode}": use api, worker, all or migrate`);
    process.exit(2);
}
