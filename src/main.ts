// Process entry: `node dist/src/main.js <mode>` (the image's entry point; `npm run build` makes
// dist/), or `tsx src/main.ts <mode>` from the sources. The modes are in src/process/modes.ts: api,
// worker, migrate, sim, and all (the default, what `npm start` runs). Each validates its
// configuration and reaches its dependencies before it serves; a start that fails ends with one
// line on stderr (src/process/startup-error.ts). Every mode that listens first checks all its ports
// (src/port-check.ts): a taken one is that line, before the migrations or anything else.
import { loadConfig, loadMigrateConfig } from './config.js';
import { createDataSource, MIGRATION_TIMEOUTS } from './db/data-source.js';
import { ensureDatabase } from './db/ensure-database.js';
import { migrate } from './db/migrate.js';
import { assertPortsFree } from './port-check.js';
import { isMode, MODES, usage } from './process/modes.js';
import { preflight, reaching } from './process/preflight.js';
import { exitOnStartupError } from './process/startup-error.js';
import { startAll, startApi, startSimProcess, startWorkerProcess } from './server.js';

const arg = process.argv[2] ?? 'all';
if (arg === '--help' || arg === '-h' || arg === 'help') {
  console.log(usage());
  process.exit(0);
}
if (!isMode(arg)) {
  console.error(`magnum-ts: unknown mode "${arg}": use one of ${Object.keys(MODES).join(', ')} (--help says more)`);
  process.exit(2);
}
const mode = arg;

async function runMigrations(): Promise<void> {
  const { databaseUrl, databaseAdminUrl } = loadMigrateConfig();
  const ran = await reaching('PostgreSQL', 'DATABASE_URL', databaseUrl, async () => {
    if (databaseAdminUrl) await ensureDatabase(databaseAdminUrl, databaseUrl);
    const ds = createDataSource(databaseUrl, 2, MIGRATION_TIMEOUTS);
    await ds.initialize();
    try {
      return await migrate(ds, databaseUrl);
    } finally {
      await ds.destroy();
    }
  });
  console.log(JSON.stringify({ level: 'info', msg: 'migrations applied', migrations: ran }));
}

try {
  if (mode !== 'migrate') await assertPortsFree(mode);
  switch (mode) {
    case 'migrate':
      await runMigrations();
      break;
    case 'api': {
      const config = loadConfig();
      await preflight(config);
      await startApi(config);
      break;
    }
    case 'worker':
      await preflight(loadConfig());
      await startWorkerProcess();
      break;
    case 'sim':
      await startSimProcess();
      break;
    case 'all':
      await runMigrations();
      await startAll();
      break;
  }
} catch (e) {
  exitOnStartupError(mode, e);
}
