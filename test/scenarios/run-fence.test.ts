// Two runs of one operation at once, as happens when the cluster's Redis lock is lost without the
// holder noticing yet (Redis restarted and lost the key, or was away past its expiry): the run
// started later owns the operation, and the earlier one stops at its next step instead of going on
// beside it. The operation row's run count is the fence (checked at every step, and by the write
// that ends the operation).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { OperationEntity, type OperationRow } from '../../src/db/entities/operation.js';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { CloudFactory } from '../../src/steps/cloud.js';
import { clusterLockKey } from '../../workers/lock.js';
import { dispatcher } from '../../workers/operations.js';
import { operationRunner } from '../../workers/runner.js';
import type { OperationSpec } from '../../src/steps/step.js';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let worker: Worker;
let queue: Queue;
const closing = new AbortController();
const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
/** Which run (the operation's attempt) did what. */
const did: string[] = [];
const gate = () => {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
};
const firstHeld = gate();
const firstInside = gate();
const secondHeld = gate();
const secondInside = gate();

before(async () => {
  t = await testApp({ config: (c) => { c.operationSweepMs = 3_600_000; } });
  const spec: OperationSpec = {
    kind: 'create',
    steps: [
      {
        name: 'slow',
        async run(ctx) {
          did.push(`run ${ctx.op.attempts}: slow`);
          if (ctx.op.attempts === 1) {
            firstInside.open();
            await firstHeld.p;
          }
        },
      },
      {
        name: 'effect',
        async run(ctx) {
          did.push(`run ${ctx.op.attempts}: effect`);
          if (ctx.op.attempts === 2) {
            secondInside.open();
            await secondHeld.p;
          }
        },
      },
    ],
  };
  // A lock lasting a minute: no renewal comes between the steps to tell the first run it lost it.
  const run = operationRunner({ ds: t.app.services.db, redis, prefix: t.config.queuePrefix, cloud: new CloudFactory(t.config), signal: closing.signal, pollMs: 5, lockRetryMs: 20, lockTtlMs: 60_000 }, spec);
  worker = new Worker(OPERATIONS_QUEUE, dispatcher(new Map([['create', run]])), { connection: redis, prefix: t.config.queuePrefix, concurrency: 2 });
  await worker.waitUntilReady();
  queue = new Queue(OPERATIONS_QUEUE, { connection: redis, prefix: t.config.queuePrefix });
});
after(async () => {
  closing.abort();
  firstHeld.open();
  secondHeld.open();
  await worker?.close();
  await queue?.close();
  redis.disconnect();
  await t?.close();
});

test('a run started while an earlier one still runs owns the operation: the earlier one stops at its next step', async () => {
  const tpl = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true } });
  assert.equal(tpl.statusCode, 201, tpl.body);
  const res = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: tpl.json().uuid, name: 'fenced' } });
  assert.equal(res.statusCode, 202, res.body);
  const cluster = res.json().uuid as string;
  await firstInside.p;
  const op = await t.app.services.db.getRepository(OperationEntity).findOneByOrFail({ cluster_id: cluster });
  // The lock is lost as a Redis restart loses it, and the job is delivered again.
  assert.equal(await redis.del(clusterLockKey(t.config.queuePrefix, cluster)), 1);
  await queue.add('create', { operationId: op.id, clusterId: cluster }, { jobId: `${op.id}-again` });
  await secondInside.p;
  // Both runs are under way; the first goes on while the second is in its last step.
  firstHeld.open();
  await sleep(500);
  assert.deepEqual(did, ['run 1: slow', 'run 2: slow', 'run 2: effect'], 'the first run did not go on to the next step');
  secondHeld.open();
  let ended: OperationRow | undefined;
  for (let i = 0; i < 200 && !ended; i++) {
    const o = await t.app.services.db.getRepository(OperationEntity).findOneByOrFail({ id: op.id });
    if (o.state !== 'running') ended = o;
    else await sleep(20);
  }
  assert.equal(ended?.state, 'succeeded');
  assert.equal(ended?.attempts, 2);
  assert.deepEqual(did, ['run 1: slow', 'run 2: slow', 'run 2: effect']);
});
