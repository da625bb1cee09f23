// The listening side of the process modes (src/server.ts): the API started by the entry serves its probes
// and stops on SIGTERM, logging both, exit 0; a worker started with its own environment registers its
// heartbeat under the deployment's prefix and closes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { SERVICE_USER } from '../cloudsim/embedded.js';
import type { KeystoneSim } from '../cloudsim/keystone/index.js';
import { servicesKey } from '../src/operations/queue.js';
import { startWorkerProcess } from '../src/server.js';
import { startKeystone, TEST_SECRET_KEY } from './support/app.js';
import { freshDatabase, type TestDatabase } from './support/db.js';
import { waitFor } from './support/http.js';
import { closedPort } from './support/net.js';

const root = fileURLToPath(new URL('..', import.meta.url));
let db: TestDatabase;
let ks: KeystoneSim;
let env: Record<string, string>;
before(async () => {
  db = await freshDatabase();
  ks = await startKeystone();
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: process.env.REDIS_URL!,
    KEYSTONE_URL: `http://127.0.0.1:${(ks.app.server.address() as AddressInfo).port}/v3`,
    SERVICE_PASSWORD: SERVICE_USER.password,
    SECRET_KEYS: TEST_SECRET_KEY,
    QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: 'warn',
  };
});
after(async () => {
  await ks.app.close();
  await db.drop();
});

test('the API: its probes answer, then SIGTERM stops it cleanly (logged), exit 0', { timeout: 120_000 }, async () => {
  const port = await closedPort();
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|REDIS_URL|KEYSTONE_URL|API_|SIM_|TEST_)/.test(k)));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'api'], { cwd: root, env: { ...clean, ...env, API_PORT: String(port) } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    const ready = await waitFor(() => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0), (s) => s !== 0, 60_000);
    assert.equal(ready, 200, stderr);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    const lines = stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; signal?: string });
    assert.ok(lines.some((l) => l.msg === 'api stopping' && l.signal === 'SIGTERM'), stdout);
    assert.ok(lines.some((l) => l.msg === 'api stopped'), stdout);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`), 'no longer listening');
  } finally {
    child.kill('SIGKILL');
  }
});

test('a worker with its own environment: its heartbeat under the deployment’s prefix, then it closes', { timeout: 120_000 }, async () => {
  const redis = new Redis(env.REDIS_URL!);
  const worker = await startWorkerProcess({ ...env, WORKER_CONCURRENCY: '1' });
  try {
    const beat = await waitFor(() => redis.hgetall(servicesKey(env.QUEUE_PREFIX!)), (h) => Object.keys(h).length > 0, 10_000);
    const hb = JSON.parse(Object.values(beat)[0]!) as { pid: number; binary: string };
    assert.equal(hb.pid, process.pid);
  } finally {
    await worker.close();
    redis.disconnect();
  }
});
