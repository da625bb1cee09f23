// The runner (workers/runner.ts) and a step meeting PostgreSQL failing for a moment (issue 15 hole 7): the
// step is run again with backoff instead of failing its operation with InternalError, and a failure that
// outlasts the retries ends the operation as ServiceUnavailable. (The classification itself:
// test/steps/errors.test.ts.) And an operation naming a step it lacks is refused when its runner is made.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { CloudFactory } from '../../src/steps/cloud.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { transientInfraError, Wait } from '../../src/steps/errors.js';
import { dispatcher } from '../../workers/operations.js';
import { operationRunner } from '../../workers/runner.js';
import type { OperationSpec } from '../../src/steps/step.js';
import { testApp, type TestApp } from '../support/app.js';

test('an operation whose step comes after a step it does not have is refused when the runner is made (it would be skipped for ever)', () => {
  const spec: OperationSpec = { kind: 'create', steps: [{ name: 'a', run: async () => undefined }, { name: 'b', after: ['a', 'missing'], run: async () => undefined }] };
  assert.throws(() => operationRunner({} as Parameters<typeof operationRunner>[0], spec), /create: step b comes after missing, which the operation does not have/);
  assert.equal(typeof operationRunner({} as Parameters<typeof operationRunner>[0], { ...spec, steps: spec.steps.slice(0, 1) }), 'function');
});

describe('a worker step meeting a PostgreSQL failure', () => {
  let t: TestApp;
  let template: string;
  let worker: Worker;
  const closing = new AbortController();
  const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  /** What the step does on each run of the test's operation (by cluster name). */
  const behaviour = new Map<string, (ds: DataSource, run: number) => Promise<void>>();
  const runs = new Map<string, number>();

  before(async () => {
    t = await testApp({ config: (c) => { c.operationSweepMs = 100; } });
    const res = await t.as('demo', {
      method: 'POST',
      url: '/v1/clustertemplates',
      payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true },
    });
    assert.equal(res.statusCode, 201, res.body);
    template = res.json().uuid;
    // A graph as the create's: `held` comes after `flaky`, `boot` after nothing.
    const spec: OperationSpec = {
      kind: 'create',
      parallel: true,
      steps: [
        {
          name: 'flaky',
          condition: 'network',
          async run(ctx) {
            const name = ctx.cluster.name!;
            const n = (runs.get(name) ?? 0) + 1;
            runs.set(name, n);
            await behaviour.get(name)?.(ctx.ds, n);
          },
        },
        { name: 'held', after: ['flaky'], run: async (ctx) => void runs.set(`${ctx.cluster.name}/held`, (runs.get(`${ctx.cluster.name}/held`) ?? 0) + 1) },
        { name: 'boot', run: async (ctx) => void runs.set(`${ctx.cluster.name}/boot`, (runs.get(`${ctx.cluster.name}/boot`) ?? 0) + 1) },
        // Cluster 'due': one step waits 400 ms at a time (a load balancer building), another 20 ms until its 30th look.
        {
          name: 'slow-wait',
          async run(ctx) {
            if (ctx.cluster.name !== 'due') return;
            runs.set('due/slow', (runs.get('due/slow') ?? 0) + 1);
            if ((runs.get('due/fast') ?? 0) < 30) throw new Wait(400, 'building');
          },
        },
        {
          name: 'fast-wait',
          async run(ctx) {
            if (ctx.cluster.name !== 'due') return;
            runs.set('due/fast', (runs.get('due/fast') ?? 0) + 1);
            if (runs.get('due/fast')! < 30) throw new Wait(20, 'joining');
          },
        },
      ],
    };
    const deps = { ds: t.app.services.db, redis, prefix: t.config.queuePrefix, cloud: new CloudFactory(t.config), signal: closing.signal, pollMs: 20, lockRetryMs: 20 };
    // Wired as startWorker wires the runner: one connection for BullMQ and the cluster locks.
    const run = operationRunner({ ...deps, backoff: { baseMs: 20, maxMs: 100, maxRetries: 3 } }, spec);
    worker = new Worker(OPERATIONS_QUEUE, dispatcher(new Map([['create', run]])), { connection: redis, prefix: t.config.queuePrefix, concurrency: 2 });
    await worker.waitUntilReady();
  });
  after(async () => {
    closing.abort();
    await worker?.close();
    redis.disconnect();
    await t?.close();
  });

  async function create(name: string): Promise<string> {
    const res = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, name } });
    assert.equal(res.statusCode, 202, res.body);
    return res.json().uuid;
  }

  async function ended(cluster: string): Promise<{ state: string; error: string | null }> {
    for (let i = 0; i < 400; i++) {
      // The pool may hand out a connection that died with the terminated backend's: ask again, as the worker does.
      const op = await t.app.services.db.getRepository(OperationEntity).findOneByOrFail({ cluster_id: cluster }).catch((e: unknown) => {
        if (transientInfraError(e)) return undefined;
        throw e;
      });
      if (op && ['succeeded', 'failed', 'cancelled'].includes(op.state)) return op;
      await sleep(25);
    }
    assert.fail('the operation did not end');
  }

  /** Runs `SELECT pg_sleep(10)` on the step's connection and terminates that backend from outside. */
  async function terminatedMidStatement(ds: DataSource): Promise<void> {
    const marker = `flaky-${Math.random().toString(36).slice(2)}`;
    const running = ds.query(`SELECT pg_sleep(10) AS "${marker}"`);
    running.catch(() => undefined);
    const killer = new pg.Client({ connectionString: t.config.databaseUrl });
    await killer.connect();
    try {
      for (let i = 0; i < 100; i++) {
        const r = await killer.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`, [`%${marker}%`]);
        if (r.rowCount) break;
        await sleep(20);
      }
    } finally {
      await killer.end();
    }
    await running;
  }

  test('a backend terminated under a step: the step runs again and the operation succeeds', async () => {
    behaviour.set('pg-restart', async (ds, run) => {
      if (run === 1) await terminatedMidStatement(ds);
    });
    const uuid = await create('pg-restart');
    const op = await ended(uuid);
    assert.equal(op.state, 'succeeded', op.error ?? '');
    assert.equal(runs.get('pg-restart'), 2, 'retried once');
  });

  test('a cloud error while the step retries: its condition names the call, Nova\'s message, the tries and the next one; one timeline event for the storm; gone once the step goes through (issue 28)', async () => {
    const seen: unknown[] = [];
    behaviour.set('nova-500', async (ds, run) => {
      if (run > 1) {
        const [row] = await ds.query(`SELECT conditions FROM cluster WHERE name = 'nova-500'`);
        seen.push(row.conditions.network);
      }
      if (run <= 2) throw new OpenStackError('compute', 500, 'req-5', { computeFault: { code: 500, message: 'Unexpected API Error.' } }, 'server', 'compute POST /servers: HTTP 500 (req-5)');
    });
    const uuid = await create('nova-500');
    const op = await ended(uuid);
    assert.equal(op.state, 'succeeded', op.error ?? '');
    const [second, third] = seen as { status: string; reason: string; message: string }[];
    assert.equal(second?.reason, 'CloudErrorRetrying');
    assert.equal(second?.status, 'Unknown');
    assert.match(second!.message, /^Retrying after an error: compute POST \/servers: HTTP 500 \(req-5\): Unexpected API Error\. \(try 1 of 3; the next at \d{4}-\d\d-\d\dT[\d:.]+Z\)\.$/);
    assert.match(third!.message, /\(try 2 of 3;/, 'the same condition, updated');
    const events = (await t.app.services.events.latest(uuid, 100)).filter((e) => e.reason === 'CloudErrorRetrying');
    assert.equal(events.length, 1, 'one event for the storm, not one a try');
    const [row] = await t.app.services.db.query(`SELECT conditions FROM cluster WHERE uuid = $1`, [uuid]);
    assert.notEqual(row.conditions.network?.reason, 'CloudErrorRetrying', 'no longer says it retries');
  });

  test('a failure that lasts past the retries ends the operation as ServiceUnavailable, not InternalError', async () => {
    behaviour.set('pg-down', async (ds) => {
      await terminatedMidStatement(ds);
    });
    const uuid = await create('pg-down');
    const op = await ended(uuid);
    assert.equal(op.state, 'failed');
    assert.match(op.error ?? '', /^ServiceUnavailable: /);
    // The first run and three retries; more when recording the failure meets a connection that died with the
    // terminated backend (the job then fails and the relay queues the operation again).
    assert.ok(runs.get('pg-down')! >= 4, `${runs.get('pg-down')} runs`);
  });

  test('a step failing retryably holds back only what comes after it: the independent branch runs; the same 409 in a row ends the operation with its reason', async () => {
    // Octavia Zed without the jobboard: the pool stays PENDING_CREATE, every POST under it is refused.
    behaviour.set('immutable', async () => {
      throw new OpenStackError('load-balancer', 409, 'req-x', { faultstring: 'Pool 4c1e is immutable and cannot be updated.' }, 'conflict', 'load-balancer POST /v2/lbaas/healthmonitors: HTTP 409');
    });
    const uuid = await create('immutable');
    const op = await ended(uuid);
    assert.equal(op.state, 'failed');
    assert.match(op.error ?? '', /^Conflict: .*Pool 4c1e is immutable/);
    assert.equal(runs.get('immutable'), 4, 'the first try and three retries, not for ever');
    assert.equal(runs.get('immutable/boot'), 1, 'the independent branch ran once, on the first run');
    assert.equal(runs.get('immutable/held'), undefined, 'what comes after the failing step waited for it');
  });

  test('a step that waited looks again when its own wait is over, not at every run another step\'s shorter wait brings', async () => {
    const started = Date.now();
    const op = await ended(await create('due'));
    assert.equal(op.state, 'succeeded', op.error ?? '');
    const elapsed = Date.now() - started;
    const slow = runs.get('due/slow')!;
    assert.equal(runs.get('due/fast'), 30);
    assert.ok(slow <= Math.ceil(elapsed / 400) + 2, `the 400 ms step ran ${slow} times in ${elapsed} ms, not once per 20 ms run`);
  });
});
