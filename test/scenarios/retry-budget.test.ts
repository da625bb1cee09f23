// The retry budget of an operation counts retryable failures in a row, not over its whole life: a
// long operation that meets a passing fault now and then (a 503, a dropped answer) between runs
// that get somewhere must not end as failed because the faults added up (the soak's upgrades at a
// tenth of the cloud's calls failing did, after 15 faults in all). Failures in a row still end it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { CloudFactory } from '../../src/steps/cloud.js';
import { Wait } from '../../src/steps/errors.js';
import { dispatcher } from '../../workers/operations.js';
import { operationRunner } from '../../workers/runner.js';
import type { OperationSpec } from '../../src/steps/step.js';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let template: string;
let worker: Worker;
const closing = new AbortController();
const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
/** Per cluster name: what the step does on its n-th run. */
const behaviour = new Map<string, (n: number) => void>();
const runs = new Map<string, number>();
const fault = () => new OpenStackError('compute', 503, 'req-x', {}, 'server', 'compute GET /servers: HTTP 503');

before(async () => {
  t = await testApp();
  const res = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true } });
  assert.equal(res.statusCode, 201, res.body);
  template = res.json().uuid;
  const spec: OperationSpec = {
    kind: 'create',
    steps: [{
      name: 'flaky',
      condition: 'network',
      async run(ctx) {
        const name = ctx.cluster.name!;
        const n = (runs.get(name) ?? 0) + 1;
        runs.set(name, n);
        behaviour.get(name)?.(n);
      },
    }],
  };
  const run = operationRunner({ ds: t.app.services.db, redis, prefix: t.config.queuePrefix, cloud: new CloudFactory(t.config), signal: closing.signal, pollMs: 5, lockRetryMs: 20, backoff: { baseMs: 5, maxMs: 20, maxRetries: 3 } }, spec);
  worker = new Worker(OPERATIONS_QUEUE, dispatcher(new Map([['create', run]])), { connection: redis, prefix: t.config.queuePrefix, concurrency: 2 });
  await worker.waitUntilReady();
});
after(async () => {
  closing.abort();
  await worker?.close();
  redis.disconnect();
  await t?.close();
});

async function run(name: string): Promise<{ state: string; error: string | null }> {
  const res = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, name } });
  assert.equal(res.statusCode, 202, res.body);
  const uuid = res.json().uuid as string;
  for (let i = 0; i < 600; i++) {
    const op = await t.app.services.db.getRepository(OperationEntity).findOneByOrFail({ cluster_id: uuid });
    if (['succeeded', 'failed', 'cancelled'].includes(op.state)) return op;
    await sleep(20);
  }
  assert.fail('the operation did not end');
}

test('ten faults over an operation, each followed by a run that reaches its wait: it succeeds (budget 3)', async () => {
  // Odd runs meet a fault, even ones wait for the cloud; the 21st completes.
  behaviour.set('patient', (n) => {
    if (n > 20) return;
    if (n % 2 === 1) throw fault();
    throw new Wait(5, 'the cloud is building');
  });
  const op = await run('patient');
  assert.equal(op.state, 'succeeded', op.error ?? '');
  assert.equal(runs.get('patient'), 21);
});

test('four faults in a row end it (budget 3), with the reason of the last', async () => {
  behaviour.set('broken', () => {
    throw fault();
  });
  const op = await run('broken');
  assert.equal(op.state, 'failed');
  assert.match(op.error ?? '', /^CloudUnavailable: /);
  assert.equal(runs.get('broken'), 4);
});
