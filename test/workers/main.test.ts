// The worker process: heartbeat in Redis, dispatch by operation name, unknown operations
// failing at once instead of being retried. Real Redis, real BullMQ.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { servicesKey, OPERATIONS_QUEUE, type Heartbeat } from '../../src/operations/queue.js';
import { startWorker } from '../../workers/main.js';
import { operations } from '../../workers/operations.js';

const redisUrl = process.env.REDIS_URL!;
const prefix = `test-${randomBytes(4).toString('hex')}`;
const key = servicesKey(prefix);
let redis: Redis;
let queue: Queue;
let events: QueueEvents;
let worker: Awaited<ReturnType<typeof startWorker>>;

// BullMQ does not close connections it is handed: keep them to close them.
const connections: Redis[] = [];
const connect = () => {
  const c = new Redis(redisUrl, { maxRetriesPerRequest: null });
  connections.push(c);
  return c;
};

before(async () => {
  redis = connect();
  queue = new Queue(OPERATIONS_QUEUE, { connection: connect(), prefix });
  events = new QueueEvents(OPERATIONS_QUEUE, { connection: connect(), prefix });
  await events.waitUntilReady();
  worker = await startWorker({ redisUrl, concurrency: 2, heartbeatMs: 100, prefix });
});
after(async () => {
  await worker.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  for (const c of connections) c.disconnect();
});

test('the worker reports a heartbeat that keeps counting', async () => {
  const read = async () => {
    const raw = await redis.hget(key, worker.id);
    return raw ? (JSON.parse(raw) as Heartbeat) : undefined;
  };
  const first = await read();
  assert.ok(first, 'heartbeat present as soon as the worker has started');
  assert.equal(first.binary, 'magnum-conductor');
  assert.equal(first.id, 1, 'the first worker under this prefix');
  await new Promise((r) => setTimeout(r, 350));
  const later = await read();
  assert.ok(later && later.report_count > first.report_count);
});

test('a registered operation runs and returns its result', async () => {
  operations.set('echo', async (job) => ({ echoed: job.data }));
  const job = await queue.add('echo', { n: 1 });
  const result = await job.waitUntilFinished(events, 10_000);
  assert.deepEqual(result, { echoed: { n: 1 } });
});

test('an unknown operation fails once, without retries', async () => {
  const job = await queue.add('no-such-operation', {}, { attempts: 5, backoff: { type: 'fixed', delay: 10 } });
  await assert.rejects(job.waitUntilFinished(events, 10_000), /no operation named "no-such-operation"/);
  const failed = await queue.getJob(job.id!);
  assert.equal(failed?.attemptsMade, 1);
});

test('closing the worker removes its heartbeat; ids stay put and the lowest free one is reused', async () => {
  const w = await startWorker({ redisUrl, concurrency: 1, heartbeatMs: 50, prefix });
  const idOf = async (field: string) => (JSON.parse((await redis.hget(key, field)) ?? 'null') as Heartbeat | null)?.id;
  assert.equal(await idOf(w.id), 2);
  const w3 = await startWorker({ redisUrl, concurrency: 1, heartbeatMs: 50, prefix });
  assert.equal(await idOf(w3.id), 3);
  await new Promise((r) => setTimeout(r, 120));
  await w.close();
  assert.equal(await redis.hget(key, w.id), null);
  assert.equal(await idOf(worker.id), 1, 'the other workers are still listed, with their ids');
  assert.equal(await idOf(w3.id), 3);
  const again = await startWorker({ redisUrl, concurrency: 1, heartbeatMs: 50, prefix });
  assert.equal(await idOf(again.id), 2, 'a new worker takes the lowest free id');
  await Promise.all([w3.close(), again.close()]);
});

test('heartbeats live under the queue prefix: other deployments on the same Redis do not see them', async () => {
  const other = `test-${randomBytes(4).toString('hex')}`;
  const w = await startWorker({ redisUrl, concurrency: 1, heartbeatMs: 50, prefix: other });
  try {
    assert.deepEqual(await redis.hkeys(servicesKey(other)), [w.id]);
    const theirs = JSON.parse((await redis.hget(servicesKey(other), w.id))!) as Heartbeat;
    assert.equal(theirs.id, 1);
    // Both are their host's first worker, each in its own deployment's hash.
    assert.deepEqual(await redis.hkeys(key), [worker.id]);
    assert.notEqual((JSON.parse((await redis.hget(key, worker.id))!) as Heartbeat).instance, theirs.instance);
  } finally {
    await w.close();
  }
  assert.equal(await redis.exists(servicesKey(other)), 0, 'nothing left behind');
});
