// The worker process: heartbeat in Redis, dispatch by operation name, unknown operations
// failing at once instead of being retried. Real Redis, real BullMQ.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { SERVICES_KEY, OPERATIONS_QUEUE, type Heartbeat } from '../../src/queue/names.js';
import { startWorker } from '../../workers/main.js';
import { operations } from '../../workers/operations.js';

const redisUrl = process.env.REDIS_URL!;
const prefix = `test-${randomBytes(4).toString('hex')}`;
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
    const raw = await redis.hget(SERVICES_KEY, worker.id);
    return raw ? (JSON.parse(raw) as Heartbeat) : undefined;
  };
  const first = await read();
  assert.ok(first, 'heartbeat present');
  assert.equal(first.binary, 'magnum-conductor');
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

test('closing the worker removes its heartbeat', async () => {
  const w = await startWorker({ redisUrl, concurrency: 1, heartbeatMs: 50, prefix });
  await new Promise((r) => setTimeout(r, 120));
  assert.notEqual(await redis.hget(SERVICES_KEY, w.id), null);
  await w.close();
  assert.equal(await redis.hget(SERVICES_KEY, w.id), null);
  assert.notEqual(await redis.hget(SERVICES_KEY, worker.id), null, 'the other worker is still listed');
});
