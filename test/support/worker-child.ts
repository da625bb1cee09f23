// A worker in its own process, for tests that kill it with SIGKILL: its configuration (the test's,
// secret keys as base64) arrives as JSON in WORKER_CHILD_CONFIG; "ready" on stdout once consuming.
import { createDataSource } from '../../src/db/data-source.js';
import type { Config } from '../../src/config.js';
import { startWorker, type WorkerOptions } from '../../workers/main.js';

const raw = JSON.parse(process.env.WORKER_CHILD_CONFIG ?? '{}') as { config: Omit<Config, 'secretKeys'> & { secretKeys: string[] }; options: Partial<WorkerOptions> };
const config: Config = { ...raw.config, secretKeys: raw.config.secretKeys.map((k: string) => Buffer.from(k, 'base64')) };
const db = createDataSource(config.databaseUrl, 8, config.db);
await db.initialize();
await startWorker({ redisUrl: config.redisUrl, concurrency: 4, prefix: config.queuePrefix, db, config, ...raw.options });
process.stdout.write('ready\n');
