// Browser sessions in Redis (src/api/portal/session-store.ts): found only by their opaque id, expiring with
// the login's token, every field sealed and bound to its key and field, one token per project kept first
// come (HSETNX), replaced, destroyed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { SessionStore, type SessionCore } from '../../../src/api/portal/session-store.js';
import { SecretBox } from '../../../src/security/secret-box.js';

let redis: Redis;
let store: SessionStore;
const prefix = `test-${randomBytes(4).toString('hex')}`;
before(() => {
  redis = new Redis(process.env.REDIS_URL!);
  store = new SessionStore(redis, new SecretBox([randomBytes(32)]), prefix);
});
after(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const core = (over: Partial<SessionCore> = {}): SessionCore => ({
  user: { id: 'u', name: 'demo', domainId: 'default' },
  method: 'password',
  csrf: 'csrf-token',
  projects: [{ id: 'p1', name: 'demo', domain_id: 'default' }],
  defaultProject: 'p1',
  createdAt: Date.now(),
  expiresAt: Date.now() + 60_000,
  ...over,
});

test('created and found by its id; its hash expires with the login; nothing readable in Redis', async () => {
  const sid = await store.create(core(), { p1: { token: 'secret-token-p1', expiresAt: Date.now() + 60_000 } });
  assert.match(sid, /^[\w-]{43}$/);
  const s = await store.find(sid);
  assert.deepEqual(s?.core.csrf, 'csrf-token');
  assert.equal((await store.token(s!, 'p1'))?.token, 'secret-token-p1');
  const raw = await redis.hgetall(s!.key);
  assert.ok(!JSON.stringify(raw).includes('secret-token') && !JSON.stringify(raw).includes('csrf-token') && !s!.key.includes(sid));
  const ttl = await redis.pttl(s!.key);
  assert.ok(ttl > 0 && ttl <= 60_000, String(ttl));
});

test('not found: an id of another shape, an unknown one, an expired core, a field moved to another session', async () => {
  assert.equal(await store.find('short'), undefined);
  assert.equal(await store.find('A'.repeat(43)), undefined);
  const old = await store.create(core({ expiresAt: Date.now() + 200 }), {});
  const s = await store.find(old);
  await redis.pexpire(s!.key, 60_000);
  await new Promise((r) => setTimeout(r, 250));
  assert.equal(await store.find(old), undefined, 'the core says it expired');
  const a = (await store.find(await store.create(core(), { p1: { token: 'a-token', expiresAt: Date.now() + 60_000 } })))!;
  const b = (await store.find(await store.create(core(), {})))!;
  await redis.hset(b.key, 't:p1', (await redis.hget(a.key, 't:p1'))!);
  assert.equal(await store.token(b, 'p1'), undefined, 'a sealed field opens only under its own key');
  await redis.hset(a.key, 't:p2', (await redis.hget(a.key, 't:p1'))!);
  assert.equal(await store.token(a, 'p2'), undefined, 'nor under another field');
});

test('tokens: the first stored for a project is kept (the spare reported), replaced on renewal, all listed; destroyed', async () => {
  const s = (await store.find(await store.create(core(), { '*': { token: 'unscoped', expiresAt: Date.now() + 60_000 } })))!;
  const first = await store.addToken(s, 'p1', { token: 'first', expiresAt: Date.now() + 60_000 });
  const second = await store.addToken(s, 'p1', { token: 'second', expiresAt: Date.now() + 60_000 });
  assert.deepEqual([first.stored, second.stored, second.kept.token], [true, false, 'first']);
  await store.replaceToken(s, 'p1', { token: 'renewed', expiresAt: Date.now() + 60_000 });
  assert.deepEqual((await store.tokens(s)).map((t) => t.token).sort(), ['renewed', 'unscoped']);
  await store.destroy(s);
  assert.equal(await redis.exists(s.key), 0);
  assert.deepEqual(await store.tokens(s), []);
});
