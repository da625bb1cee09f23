// Heartbeat rows (workers/heartbeat.ts) as `openstack coe service list` shows them: one row per
// worker process, named by host; a worker started again after a crash takes back its
// predecessor's row (id, creation time and count kept) instead of a new row beside a ghost left
// "up"; a row whose process still runs is never taken; two processes never trade one row.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { servicesKey, type Heartbeat } from '../../src/operations/queue.js';
import { startHeartbeat, type HeartbeatHandle } from '../../workers/heartbeat.js';

const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
const prefix = `hb-${randomBytes(4).toString('hex')}`;
const key = servicesKey(prefix);
const handles: HeartbeatHandle[] = [];
after(async () => {
  await Promise.all(handles.map((h) => h.stop()));
  await redis.del(key);
  redis.disconnect();
});

const start = async (host: string, staleMs = 180_000): Promise<HeartbeatHandle> => {
  const h = startHeartbeat(redis, { prefix, intervalMs: 50, host, staleMs });
  handles.push(h);
  await h.ready;
  return h;
};
const row = async (field: string) => JSON.parse((await redis.hget(key, field)) ?? 'null') as Heartbeat | null;
/** The pid of a process that has ended. */
const deadPid = async (): Promise<number> => {
  const p = spawn(process.execPath, ['-e', '0']);
  await once(p, 'exit');
  return p.pid!;
};
/** A row as a worker on `host` with `pid` last wrote it, `ageMs` ago. */
const predecessor = async (field: string, host: string, pid: number, id: number, ageMs = 0): Promise<void> => {
  const at = new Date(Date.now() - ageMs).toISOString();
  const b: Heartbeat = { id, host, pid, instance: 'gone', binary: 'magnum-conductor', started_at: '2026-01-01T00:00:00.000Z', updated_at: at, report_count: 40 };
  await redis.hset(key, field, JSON.stringify(b));
};

test("a worker started again on a host takes back its crashed predecessor's row: same id, creation time, the count goes on", async () => {
  await predecessor('node-a', 'node-a', await deadPid(), 5);
  const h = await start('node-a');
  assert.equal(h.id, 'node-a');
  const b = await row('node-a');
  assert.equal(b?.id, 5);
  assert.equal(b?.pid, process.pid);
  assert.equal(b?.started_at, '2026-01-01T00:00:00.000Z');
  assert.ok(b!.report_count > 40);
});

test("a row whose process still runs is not taken: the host's second worker gets <host>#2, the lowest free id", async () => {
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  try {
    await predecessor('node-b', 'node-b', sleeper.pid!, 7);
    const h = await start('node-b');
    assert.equal(h.id, 'node-b#2');
    assert.equal((await row('node-b'))?.id, 7, 'the live one keeps its row');
    // Rows so far hold ids 5 (node-a) and 7: the lowest free is 1.
    assert.equal((await row('node-b#2'))?.id, 1);
    // Two workers of one process on one host: two rows.
    const second = await start('node-b');
    assert.equal(second.id, 'node-b#3');
    assert.equal((await row('node-b#3'))?.host, 'node-b#3', 'the row name is the host coe service list shows');
    assert.equal((await row('node-b#3'))?.id, 2);
  } finally {
    sleeper.kill('SIGKILL');
  }
});

test('a row silent for SERVICE_DOWN_TIME is taken whatever its host said', async () => {
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  try {
    await predecessor('node-c', 'node-c', sleeper.pid!, 9, 5000);
    const h = await start('node-c', 1000);
    assert.equal(h.id, 'node-c');
    assert.equal((await row('node-c'))?.id, 9);
  } finally {
    sleeper.kill('SIGKILL');
  }
});

test('a worker whose row another process took gets a row of its own and never takes one back', async () => {
  const h = await start('node-d');
  assert.equal(h.id, 'node-d');
  // Another process (another pid on this host, alive) writes the row over, as after a silence.
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  try {
    const other: Heartbeat = { id: (await row('node-d'))!.id, host: 'node-d', pid: sleeper.pid!, instance: 'other', binary: 'magnum-conductor', started_at: new Date().toISOString(), updated_at: new Date().toISOString(), report_count: 1 };
    await redis.hset(key, 'node-d', JSON.stringify(other));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(h.id, 'node-d#2');
    assert.equal((await row('node-d'))?.instance, 'other', 'the row stays with its new holder');
    assert.ok((await row('node-d#2'))!.report_count >= 1);
  } finally {
    sleeper.kill('SIGKILL');
  }
});

test('stopping removes only its own row', async () => {
  const h = await start('node-e');
  await h.stop();
  assert.equal(await row('node-e'), null);
  const again = await start('node-e');
  await redis.hset(key, 'node-e', JSON.stringify({ ...(await row('node-e'))!, instance: 'someone-else' }));
  await again.stop();
  assert.equal((await row('node-e'))?.instance, 'someone-else');
});
