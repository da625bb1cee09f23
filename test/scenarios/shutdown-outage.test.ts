// A Redis outage must not hang shutdown (issue 15 hole 7): the API's services and a worker close within
// their bound when their Redis is frozen (connected, silent: SIGSTOP) or gone (killed), then disconnect.
// The worker is a real `worker` process (src/main.ts) stopped with SIGTERM: a close cut off by its bound
// leaves BullMQ's loops waiting on a Redis that is gone, which only the process's exit ends.
// A Redis of the test's own (test/support/private-redis.ts); the shared one is not touched.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createServices } from '../../src/api/services.js';
import { SERVICE_USER } from '../../cloudsim/embedded.js';
import { loadConfig } from '../../src/config.js';
import { newOperation, OperationRepo } from '../../src/db/repos/operations.js';
import { TEST_SECRET_KEY } from '../support/app.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { closedPort } from '../support/net.js';
import { privateRedis, type PrivateRedis } from '../support/private-redis.js';
import { createOperation } from '../../workers/cluster/create.js';

const BOUND_MS = 1000;

/** How long `close` took; fails the test (instead of hanging it) past `limitMs`. */
async function timed(close: () => Promise<void>, limitMs: number): Promise<number> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`close() still waiting after ${limitMs} ms`)), limitMs);
  });
  try {
    await Promise.race([close(), hung]);
  } finally {
    clearTimeout(timer);
  }
  return Date.now() - started;
}

describe('shutdown during a Redis outage', () => {
  let redis: PrivateRedis;
  let db: TestDatabase;

  before(async () => {
    redis = await privateRedis();
    db = await freshDatabase();
  });
  after(async () => {
    redis?.thaw();
    await redis?.close();
    await db?.drop();
  });

  const env = async (): Promise<Record<string, string>> => ({
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    KEYSTONE_URL: `http://127.0.0.1:${await closedPort()}/v3`,
    SERVICE_PASSWORD: SERVICE_USER.password,
    SECRET_KEYS: TEST_SECRET_KEY,
    QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`,
    SHUTDOWN_TIMEOUT_MS: String(BOUND_MS),
    LOG_LEVEL: 'silent',
  });
  const config = async () => loadConfig(await env());

  for (const outage of ['frozen', 'killed'] as const) {
    test(`API services close within SHUTDOWN_TIMEOUT_MS when Redis is ${outage}`, async () => {
      if (!(await redis.up())) await redis.start();
      const services = await createServices(await config(), { steps: createOperation.steps });
      const { cluster } = await insertCluster({ services } as never, { user: 'u', project: 'p', pki: false });
      outage === 'frozen' ? redis.freeze() : await redis.stop();
      try {
        // The relay is busy: a pending operation is being added to the queue (its row locked) when Redis is gone.
        await services.db.transaction((em) => new OperationRepo(services.db).insert(em, newOperation(cluster.uuid, 'delete')));
        void services.relay.kick();
        await new Promise((r) => setTimeout(r, 100));
        const took = await timed(() => services.close(), 8000);
        assert.ok(took < BOUND_MS + 1500, `closed in ${took} ms`);
      } finally {
        redis.thaw();
      }
    });

    test(`a worker process stopped with SIGTERM exits within its bound when Redis is ${outage}`, async () => {
      if (!(await redis.up())) await redis.start();
      const worker = await workerProcess(await env());
      outage === 'frozen' ? redis.freeze() : await redis.stop();
      try {
        const took = await worker.stop();
        assert.ok(took < BOUND_MS + 1500, `exited in ${took} ms`);
      } finally {
        redis.thaw();
      }
    });
  }

  test('with Redis up, both close at once (the bound is not waited out)', async () => {
    if (!(await redis.up())) await redis.start();
    const c = await config();
    const services = await createServices(c, { steps: createOperation.steps });
    const worker = await workerProcess({ ...(await env()), SHUTDOWN_TIMEOUT_MS: '5000' });
    assert.ok((await worker.stop()) < 2000);
    assert.ok((await timed(() => services.close(), 8000)) < 2000);
  });
});

/** A `worker` process of src/main.ts, once it says it started; `stop` sends SIGTERM and times the exit (killed past 8 s). */
async function workerProcess(env: Record<string, string>): Promise<{ stop(): Promise<number> }> {
  const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'worker'], { env: { ...process.env, ...env, WORKER_CONCURRENCY: '1', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr.on('data', (d) => (out += String(d)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += String(d);
      if (out.includes('"worker started"')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it started: ${out}`)));
  });
  return {
    async stop() {
      const started = Date.now();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 8000);
      await exited;
      clearTimeout(killer);
      return Date.now() - started;
    },
  };
}
