// The checks a cookie-borne request must pass (src/api/portal/guards.ts): cookies read as the browser sends
// them, session cookies HttpOnly and SameSite=Strict (Secure over TLS), the same origin, secrets compared in
// constant time, the login form's token, and the login rate limits counted in Redis.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { checkLoginAllowed, cookieHeader, cookies, countLoginFailure, loginToken, requireSameOrigin, sameSecret } from '../../../src/api/portal/guards.js';
import { ApiError } from '../../../src/domain/errors.js';

const req = (over: { headers?: Record<string, string>; protocol?: string; host?: string; method?: string } = {}) =>
  ({ headers: { host: 'portal.example', ...over.headers }, protocol: 'http', hostname: 'portal.example', method: 'GET', server: { services: { config: { api: { publicUrl: undefined } } } }, ...over, ...(over.headers ? { headers: { host: 'portal.example', ...over.headers } } : {}) }) as unknown as FastifyRequest;
const refused = (status: number, message: RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && message.test(e.message);

test('cookies: name=value pairs, trimmed; the first of a repeated name wins; parts without = are skipped', () => {
  assert.deepEqual(cookies(req({ headers: { cookie: ' a=1; b = two ; a=3; junk; c=x=y' } })), { a: '1', b: 'two', c: 'x=y' });
  assert.deepEqual(cookies(req()), {});
});

test('cookieHeader: HttpOnly, SameSite=Strict, its path and age; Secure only over https', () => {
  assert.equal(cookieHeader('s', 'v', req(), { maxAge: 60 }), 's=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=60');
  assert.equal(cookieHeader('l', 'v', req({ protocol: 'https' }), { path: '/portal' }), 'l=v; Path=/portal; HttpOnly; SameSite=Strict; Secure');
});

test('requireSameOrigin: the page’s own origin; a write must say where it comes from', () => {
  requireSameOrigin(req({ headers: { origin: 'http://portal.example', 'sec-fetch-site': 'same-origin' }, method: 'POST' }));
  requireSameOrigin(req({ headers: { 'sec-fetch-site': 'same-origin' }, method: 'POST' }));
  requireSameOrigin(req());
  assert.throws(() => requireSameOrigin(req({ headers: { 'sec-fetch-site': 'cross-site' } })), refused(403, /^Cross-site request refused: Sec-Fetch-Site is cross-site\.$/));
  assert.throws(() => requireSameOrigin(req({ headers: { origin: 'https://evil.example' } })), refused(403, /Origin https:\/\/evil\.example is not http:\/\/portal\.example/));
  assert.throws(() => requireSameOrigin(req({ method: 'POST' })), refused(403, /neither Origin nor Sec-Fetch-Site is sent/));
});

test('sameSecret and loginToken: equal secrets only; the form token bound to its cookie and the key', () => {
  assert.equal(sameSecret('abc', 'abc'), true);
  assert.equal(sameSecret('abc', 'abd'), false);
  assert.equal(sameSecret('', ''), false, 'an empty secret never matches');
  assert.equal(sameSecret(undefined, 'x'), false);
  const key = randomBytes(32);
  assert.equal(loginToken(key, 'cookie-1'), loginToken(key, 'cookie-1'));
  assert.notEqual(loginToken(key, 'cookie-1'), loginToken(key, 'cookie-2'));
  assert.notEqual(loginToken(key, 'cookie-1'), loginToken(randomBytes(32), 'cookie-1'));
  assert.match(loginToken(key, 'c'), /^[\w-]{43}$/);
});

let redis: Redis;
before(() => {
  redis = new Redis(process.env.REDIS_URL!);
});
after(() => redis.disconnect());

test('login limits: attempts per client; failures per user (any case) slow only the clients that failed, with a 429 saying when to retry; keys hashed and expiring', async () => {
  const prefix = `test-${randomBytes(4).toString('hex')}`;
  const limits = { perClient: 3, perUser: 2, windowSeconds: 60 };
  for (let i = 0; i < 3; i++) await checkLoginAllowed(redis, prefix, limits, 'client-a', `u${i}`);
  await assert.rejects(checkLoginAllowed(redis, prefix, limits, 'client-a', 'u9'), (e: unknown) => refused(429, /^Too many login attempts; try again in \d+ seconds\.$/)(e) && Number((e as ApiError).headers['retry-after']) > 0);
  await checkLoginAllowed(redis, prefix, limits, 'client-b', 'Demo');
  await countLoginFailure(redis, prefix, limits, 'client-b', 'Demo');
  await checkLoginAllowed(redis, prefix, limits, 'client-b', 'demo');
  await countLoginFailure(redis, prefix, limits, 'client-b', 'DEMO');
  await assert.rejects(checkLoginAllowed(redis, prefix, limits, 'client-b', 'demo'), refused(429, /Too many login attempts|try again/), 'the client that failed waits');
  await checkLoginAllowed(redis, prefix, limits, 'client-c', 'demo');
  const keys = await redis.keys(`${prefix}:portal:login:*`);
  assert.ok(keys.length >= 3);
  for (const k of keys) assert.ok((await redis.pttl(k)) > 0, `${k} expires`);
  assert.ok(keys.every((k) => !/demo/i.test(k)), 'user names are hashed in the keys');
  await redis.del(...keys);
});
