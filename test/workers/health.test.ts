// The periodic health pass at scale: it walks the settled clusters a page at a time (a pass over
// 1,200 clusters checks all 1,200, never holding them at once), and only one pass runs in the
// deployment at a time. BullMQ's scheduler adds the next health job as soon as a worker takes the
// current one, so a pass longer than the interval met the next one on another worker: both walked
// every cluster, writing each twice.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { CloudFactory } from '../../src/steps/cloud.js';
import { healthPass } from '../../workers/health.js';
import { startWorker } from '../../workers/main.js';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
const N = 1200;

before(async () => {
  t = await testApp();
  const tpl = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true } });
  assert.equal(tpl.statusCode, 201, tpl.body);
  const project = t.keystone.state.findProjectByName('demo', 'default')!.id;
  // Settled clusters with an API address and no credential: each check ends at once, UNKNOWN.
  await t.app.services.db.query(
    `INSERT INTO cluster (uuid, name, project_id, user_id, cluster_template_id, status, api_address)
     SELECT gen_random_uuid(), 'c' || i, $1, 'u', $2, 'CREATE_COMPLETE', 'https://10.0.0.1:6443' FROM generate_series(1, $3::int) AS i`,
    [project, tpl.json().uuid, N],
  );
});
after(async () => {
  await t?.close();
});

test('a pass checks every settled cluster, a page at a time', async () => {
  assert.equal(await healthPass(t.app.services.db, new CloudFactory(t.config)), N);
  const [{ unchecked }] = await t.app.services.db.query(`SELECT count(*)::int AS unchecked FROM cluster WHERE health_checked_at IS NULL`);
  assert.equal(unchecked, 0);
});

test('a pass whose lock is lost stops', async () => {
  let asked = 0;
  assert.equal(await healthPass(t.app.services.db, new CloudFactory(t.config), () => ++asked <= 10), 10);
});

test('two health jobs at once on two workers: one pass, the other skips', async () => {
  const redis = process.env.REDIS_URL!;
  const opts = { redisUrl: redis, concurrency: 2, prefix: t.config.queuePrefix, db: t.app.services.db, config: t.config, healthIntervalMs: 0 };
  const workers = [await startWorker(opts), await startWorker(opts)];
  const connection = new Redis(redis, { maxRetriesPerRequest: null });
  const queue = new Queue(OPERATIONS_QUEUE, { connection, prefix: t.config.queuePrefix });
  const eventsConnection = new Redis(redis, { maxRetriesPerRequest: null });
  const events = new QueueEvents(OPERATIONS_QUEUE, { connection: eventsConnection, prefix: t.config.queuePrefix });
  await events.waitUntilReady();
  try {
    const jobs = await Promise.all([queue.add('health', {}), queue.add('health', {})]);
    const results = await Promise.all(jobs.map((j) => j.waitUntilFinished(events, 120_000)));
    assert.deepEqual(results.map((r) => JSON.stringify(r)).sort(), [JSON.stringify({ checked: N }), JSON.stringify({ skipped: 'a health pass is running' })].sort());
  } finally {
    await events.close();
    await queue.close();
    // Connections handed to BullMQ stay open after close().
    eventsConnection.disconnect();
    connection.disconnect();
    await Promise.all(workers.map((w) => w.close()));
  }
});
