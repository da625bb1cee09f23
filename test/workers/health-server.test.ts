// A worker's probes (workers/health-server.ts): liveness answers while the process runs and checks nothing
// outside; readiness runs every check (one that fails or takes over 3 s is `unavailable`) and fails from the start
// of a shutdown; other methods and paths are refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startHealthServer, WORKER_PROBES, type HealthServer } from '../../workers/health-server.js';

let redisUp = true;
let server: HealthServer;
before(async () => {
  server = await startHealthServer({
    host: '127.0.0.1',
    port: 0,
    checks: {
      redis: async () => {
        if (!redisUp) throw new Error('ECONNREFUSED');
      },
      postgres: async () => undefined,
    },
  });
});
after(async () => {
  await server.close();
});

const get = async (path: string, method = 'GET') => {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { method });
  return { status: res.status, body: method === 'HEAD' ? null : await res.json(), cache: res.headers.get('cache-control') };
};

test('liveness answers 200 whatever the checks say', async () => {
  redisUp = false;
  assert.deepEqual(await get(WORKER_PROBES.liveness), { status: 200, body: { status: 'ok' }, cache: 'no-store' });
  redisUp = true;
});

test('readiness: 200 with every check ok; 503 naming the one that fails', async () => {
  assert.deepEqual((await get(WORKER_PROBES.readiness)).body, { status: 'ok', checks: { redis: 'ok', postgres: 'ok' } });
  redisUp = false;
  const down = await get('/readyz?verbose=1');
  assert.deepEqual([down.status, down.body], [503, { status: 'unavailable', checks: { redis: 'unavailable', postgres: 'ok' } }]);
  redisUp = true;
});

test('other methods and paths are refused', async () => {
  assert.equal((await get('/readyz', 'POST')).status, 405);
  assert.equal((await get('/metrics')).status, 404);
  assert.equal((await get('/healthz', 'HEAD')).status, 200);
});

test('a check that does not answer within 3 s is unavailable', { timeout: 10_000 }, async () => {
  const slow = await startHealthServer({ host: '127.0.0.1', port: 0, checks: { stuck: () => new Promise(() => undefined) } });
  try {
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${slow.port}/readyz`);
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { status: 'unavailable', checks: { stuck: 'unavailable' } });
    assert.ok(Date.now() - started >= 2900);
  } finally {
    await slow.close();
  }
});

test('from the start of a shutdown readiness fails; liveness still answers', async () => {
  server.draining();
  assert.deepEqual(await get(WORKER_PROBES.readiness), { status: 503, body: { status: 'draining' }, cache: 'no-store' });
  assert.equal((await get(WORKER_PROBES.liveness)).status, 200);
});
