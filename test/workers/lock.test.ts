// The per-cluster lock (workers/lock.ts) on a Redis of its own that the test stops: held while its
// renewals are answered, lost when the key is gone or taken, and lost when Redis stops answering
// for as long as the key lives (then the key may expire and another run take it: two runs of one
// cluster at once). A run checks `held` at every step.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { acquireClusterLock, clusterLockKey } from '../../workers/lock.js';
import { privateRedis, type PrivateRedis } from '../support/private-redis.js';

let server: PrivateRedis;
let redis: Redis;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  server = await privateRedis();
  // As the worker connects: commands wait while Redis is away.
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  redis.on('error', () => undefined); // while the test has Redis stopped
});
after(async () => {
  redis.disconnect();
  await server.close();
});

test('held while renewed past its expiry; a second taker is refused until it is released', async () => {
  const key = clusterLockKey('t', 'renewed');
  const lock = await acquireClusterLock(redis, key, 600);
  assert.ok(lock);
  assert.equal(await acquireClusterLock(redis, key, 600), undefined);
  await sleep(1500);
  assert.equal(lock.held, true, 'renewals keep it');
  assert.equal(await acquireClusterLock(redis, key, 600), undefined);
  await lock.release();
  assert.equal(lock.held, false);
  const next = await acquireClusterLock(redis, key, 600);
  assert.ok(next);
  await next.release();
});

test('lost when the key is taken by another run', async () => {
  const key = clusterLockKey('t', 'taken');
  const lock = await acquireClusterLock(redis, key, 600);
  assert.ok(lock);
  await redis.set(key, 'someone-else');
  await sleep(400);
  assert.equal(lock.held, false);
  await lock.release();
  assert.equal(await redis.get(key), 'someone-else', 'release leaves the other run its lock');
  await redis.del(key);
});

test('lost when Redis stops answering for as long as the key lives, though no renewal was refused', async () => {
  const key = clusterLockKey('t', 'silent');
  const lock = await acquireClusterLock(redis, key, 1500);
  assert.ok(lock);
  await server.stop();
  try {
    assert.equal(lock.held, true, 'still within its expiry');
    await sleep(1600);
    // Before the fix `held` stayed true: errors of renewals were ignored.
    assert.equal(lock.held, false, 'the key may have expired: another run may hold the cluster now');
  } finally {
    await server.start();
  }
  await lock.release();
});
