// An operation outlives its job: when a queued or running operation's job has ended without ending
// it (stalled out, a closing worker's run stopped, removed), the relay's sweep queues it again; an
// operation that did end is left alone, and a job that is still waiting is not touched.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let template: string;
let redis: Redis;
let queue: Queue;

before(async () => {
  // No sweep during the tests: each calls recover() itself.
  t = await testApp({ config: (c) => { c.operationSweepMs = 3_600_000; } });
  const res = await t.as('demo', {
    method: 'POST',
    url: '/v1/clustertemplates',
    payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true },
  });
  assert.equal(res.statusCode, 201, res.body);
  template = res.json().uuid;
  redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  queue = new Queue(OPERATIONS_QUEUE, { connection: redis, prefix: t.config.queuePrefix });
});
after(async () => {
  await queue.close();
  redis.disconnect();
  await t.close();
});

const ops = () => t.app.services.db.getRepository(OperationEntity);

/** A cluster create relayed to the queue: its operation row, state queued. */
async function queuedCreate(name: string): Promise<string> {
  const res = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, name } });
  assert.equal(res.statusCode, 202, res.body);
  await t.services.relay.kick();
  const op = await ops().findOneByOrFail({ cluster_id: res.json().uuid });
  assert.equal(op.state, 'queued');
  return op.id;
}

/** Ends a test's operations and removes their jobs, so the next test starts with none active. */
async function forget(...ids: string[]): Promise<void> {
  for (const id of ids) {
    await queue.remove(id);
    await ops().update({ id }, { state: 'cancelled', finished_at: new Date() });
  }
}

/** Runs the waiting jobs with a processor that ends them without touching their operations. */
async function drain(outcome: 'complete' | 'fail'): Promise<void> {
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const worker = new Worker(
    OPERATIONS_QUEUE,
    async () => {
      if (outcome === 'fail') throw new Error('job stalled more than allowable limit');
      return { stopped: 'worker closing' };
    },
    { connection, prefix: t.config.queuePrefix, autorun: false },
  );
  worker.on('error', () => undefined);
  void worker.run();
  const end = Date.now() + 10_000;
  while ((await queue.getWaitingCount()) > 0 || (await queue.getActiveCount()) > 0) {
    assert.ok(Date.now() < end, 'the jobs ran');
    await new Promise((r) => setTimeout(r, 20));
  }
  await worker.close();
  connection.disconnect();
}

test('a job that completed or failed while its operation was still active is queued again, once', async () => {
  const completed = await queuedCreate('completed-job');
  await drain('complete');
  assert.equal(await queue.getJobState(completed), 'completed');
  const failed = await queuedCreate('failed-job');
  await drain('fail');
  assert.equal(await queue.getJobState(failed), 'failed');

  assert.equal(await t.services.relay.recover(), 2);
  for (const id of [completed, failed]) {
    const job = await queue.getJob(id);
    assert.equal(await job?.getState(), 'waiting');
    assert.equal(job?.data.operationId, id, 'the job points at its operation again');
    assert.equal((await ops().findOneByOrFail({ id })).state, 'queued', 'the row is left as it was');
  }
  assert.equal(await t.services.relay.recover(), 0, 'a waiting job is not touched');
  await forget(completed, failed);
});

test('a removed job of a running operation is queued again; an ended operation is not', async () => {
  const running = await queuedCreate('removed-job');
  await ops().update({ id: running }, { state: 'running' });
  await queue.remove(running);
  assert.equal(await queue.getJobState(running), 'unknown');

  const finished = await queuedCreate('finished');
  await drain('complete');
  await ops().update({ id: finished }, { state: 'succeeded', finished_at: new Date() });

  assert.equal(await t.services.relay.recover(), 1);
  assert.equal(await queue.getJobState(running), 'waiting');
  assert.equal(await queue.getJobState(finished), 'completed', 'an ended operation keeps its ended job');
  await forget(running, finished);
});

test('finished jobs are removed after a while: the relay sets a retention on every job', async () => {
  const id = await queuedCreate('retention');
  const job = await queue.getJob(id);
  assert.deepEqual(job?.opts.removeOnComplete, { age: 3600, count: 5000 });
  assert.deepEqual(job?.opts.removeOnFail, { age: 7 * 86400 });
  await forget(id);
});
