// GET /v1/mservices (spec §3.9): the real worker processes, from their Redis heartbeats, under
// this deployment's queue prefix; admin only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { servicesKey, type Heartbeat } from '../../../../src/operations/queue.js';
import { startWorker } from '../../../../workers/main.js';
import { testApp, type TestApp, type User } from '../../../support/app.js';

let t: TestApp;
let worker: Awaited<ReturnType<typeof startWorker>>;
const redisUrl = process.env.REDIS_URL!;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/;

before(async () => {
  t = await testApp();
  worker = await startWorker({ redisUrl, concurrency: 1, prefix: t.config.queuePrefix, heartbeatMs: 100 });
});
after(async () => {
  await worker.close();
  await t.app.services.redis.del(servicesKey(t.config.queuePrefix));
  await t.close();
});

type MService = { id: number; host: string; binary: string; state: string; report_count: number; disabled: boolean; disabled_reason: string | null; created_at: string; updated_at: string };
const list = async (user: User = 'admin', headers: Record<string, string> = {}) => {
  const r = await t.as(user, { method: 'GET', url: '/v1/mservices', headers });
  assert.equal(r.statusCode, 200, r.body);
  return (r.json() as { mservices: MService[] }).mservices;
};
const err = (r: { json(): unknown }) => (r.json() as { errors: { detail: string }[] }).errors[0]!;
/** A heartbeat written as a worker last seen `ageSeconds` ago would have left it. */
const ghost = (id: number, ageSeconds: number): Heartbeat => {
  const at = new Date(Date.now() - ageSeconds * 1000).toISOString();
  return { id, host: 'gone-host', pid: 1, binary: 'magnum-conductor', started_at: at, updated_at: at, report_count: 5 };
};

test('the running worker, as tempest expects it: one entry, id 1, up, counting reports', async () => {
  const [s, ...rest] = await list();
  assert.deepEqual(rest, []);
  assert.deepEqual(Object.keys(s!).sort(), ['binary', 'created_at', 'disabled', 'disabled_reason', 'host', 'id', 'report_count', 'state', 'updated_at']);
  assert.equal(s!.id, 1);
  assert.equal(s!.host, hostname());
  assert.equal(s!.binary, 'magnum-conductor');
  assert.equal(s!.state, 'up');
  assert.ok(s!.report_count > 0);
  assert.equal(s!.disabled, false);
  assert.equal(s!.disabled_reason, null);
  assert.match(s!.created_at, TIMESTAMP);
  assert.match(s!.updated_at, TIMESTAMP);
  await new Promise((r) => setTimeout(r, 350));
  const [later] = await list();
  assert.equal(later!.id, 1, 'the id is stable');
  assert.ok(later!.report_count > s!.report_count);
});

for (const user of ['demo', 'demo-reader', 'other'] as const) {
  test(`${user} may not list services: 403`, async () => {
    const r = await t.as(user, { method: 'GET', url: '/v1/mservices' });
    assert.equal(r.statusCode, 403);
    assert.equal(err(r).detail, "Policy doesn't allow magnum-service:get_all to be performed.");
  });
}

test('takes no parameters', async () => {
  const r = await t.as('admin', { method: 'GET', url: '/v1/mservices?limit=1' });
  assert.equal(r.statusCode, 400);
  assert.equal(err(r).detail, 'Unknown argument: "limit"');
});

test('a second worker gets the next id; when it stops it is gone and the first keeps its id', async () => {
  const second = await startWorker({ redisUrl, concurrency: 1, prefix: t.config.queuePrefix, heartbeatMs: 100 });
  assert.deepEqual((await list()).map((s) => [s.id, s.state]), [[1, 'up'], [2, 'up']]);
  await second.close();
  assert.deepEqual((await list()).map((s) => s.id), [1]);
});

test('workers of another deployment (queue prefix) on the same Redis are not listed', async () => {
  const elsewhere = await startWorker({ redisUrl, concurrency: 1, prefix: `test-${randomBytes(4).toString('hex')}`, heartbeatMs: 100 });
  try {
    assert.deepEqual((await list()).map((s) => s.id), [1]);
  } finally {
    await elsewhere.close();
  }
});

test('a silent worker is down after SERVICE_DOWN_TIME and dropped after ten times that', async () => {
  const redis = t.app.services.redis;
  const key = servicesKey(t.config.queuePrefix);
  const downTime = t.config.serviceDownTime;
  await redis.hset(key, 'gone-host:1:aaaaaa', JSON.stringify(ghost(7, downTime + 5)));
  await redis.hset(key, 'gone-host:2:bbbbbb', JSON.stringify(ghost(3, downTime * 10 + 5)));
  await redis.hset(key, 'garbage', 'not json');
  const services = await list();
  assert.deepEqual(services.map((s) => [s.id, s.state]), [[1, 'up'], [7, 'down']]);
  assert.equal(services[1]!.host, 'gone-host');
  assert.deepEqual((await redis.hkeys(key)).sort(), ['gone-host:1:aaaaaa', worker.id].sort(), 'the long-gone and the unreadable are pruned');
  await redis.hdel(key, 'gone-host:1:aaaaaa');
});

test('not gated by microversion: works at 1.1', async () => {
  assert.equal((await list('admin', { 'openstack-api-version': 'container-infra 1.1' })).length, 1);
});
