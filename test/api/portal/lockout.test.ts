// Issue 26 item 4: nobody can lock a user out of the portal. Wrong passwords for a user from many addresses
// never make the right password from another address fail; the addresses that failed are slowed by a delay
// growing with the user's failures (429, Retry-After), not locked out; and the per-client limit counts the
// real peer (a client's own X-Forwarded-For is no new address: TRUSTED_PROXIES).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { userDelayMs } from '../../../src/api/portal/guards.js';
import { testApp, type TestApp } from '../../support/app.js';

const LIMITS = { perClient: 6, perUser: 3, windowSeconds: 60 };
let t: TestApp;

before(async () => {
  t = await testApp({ config: (c) => (c.portal = { ...LIMITS }) });
});
after(() => t.close());

const same = { origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' };
const setCookie = (r: LightMyRequestResponse) => [r.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('magnum_login='))!.split(';')[0]!;

/** One login attempt from `peer` (the socket's address), through the form as the portal makes it. */
async function attempt(peer: string, username: string, password: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const form = await t.app.inject({ method: 'GET', url: '/portal/login', remoteAddress: peer });
  return t.app.inject({
    method: 'POST',
    url: '/portal/login',
    remoteAddress: peer,
    headers: { ...same, cookie: setCookie(form), 'x-csrf-token': form.json().csrf_token, ...headers },
    payload: { method: 'password', username, password, user_domain: 'Default', project: username === 'admin' ? 'admin' : 'demo' },
  });
}

describe('a user attacked from rotating addresses', () => {
  test('eleven wrong passwords from eleven addresses: the right one from a twelfth is let in, admin too', async () => {
    for (const [user, password] of [['demo', 'demo-secret'], ['admin', 'admin-secret']] as const) {
      for (let i = 1; i <= 11; i++) {
        const r = await attempt(`198.51.100.${i}`, user, 'guess');
        assert.equal(r.statusCode, 401, `${user} guess ${i}: ${r.body}`);
      }
      const ok = await attempt('192.0.2.50', user, password);
      assert.equal(ok.statusCode, 200, `${user}: ${ok.body}`);
    }
  });

  test('an address that failed is slowed, not locked out: it waits out a delay growing with the user’s failures', async () => {
    // demo has 11 failures from the test above: an address that failed waits 2^(11-3) s at most the window after the last.
    const slowed = await attempt('198.51.100.1', 'demo', 'demo-secret');
    assert.equal(slowed.statusCode, 429, slowed.body);
    const wait = Number(slowed.headers['retry-after']);
    assert.ok(wait > 50 && wait <= 60, `Retry-After ${wait}`);
    assert.match(slowed.json().errors[0].detail, /Too many login attempts; try again in \d+ seconds\./);
    // The delays grow with the failures, 1 s at the threshold, never more than the window.
    assert.deepEqual([2, 3, 4, 5, 11, 40].map((n) => userDelayMs(LIMITS, n)), [0, 1000, 2000, 4000, 60_000, 60_000]);
  });

  test('past the threshold a failing address gets one more guess per delay; the delay passed, the right password works', async () => {
    const user = 'other';
    for (let i = 1; i <= LIMITS.perUser; i++) assert.equal((await attempt('203.0.113.9', user, 'guess')).statusCode, 401);
    const early = await attempt('203.0.113.9', user, 'other-secret');
    assert.equal(early.statusCode, 429, 'within the 1 s delay');
    assert.equal(early.headers['retry-after'], '1');
    await new Promise((r) => setTimeout(r, 1100));
    const ok = await t.app.inject({ method: 'GET', url: '/portal/login', remoteAddress: '203.0.113.9' }).then(async (form) =>
      t.app.inject({
        method: 'POST', url: '/portal/login', remoteAddress: '203.0.113.9',
        headers: { ...same, cookie: setCookie(form), 'x-csrf-token': form.json().csrf_token },
        payload: { method: 'password', username: 'other', password: 'other-secret', user_domain: 'Default', project: 'other' },
      }),
    );
    assert.equal(ok.statusCode, 200, ok.body);
  });
});

describe('the per-client limit', () => {
  test('counts the real peer: X-Forwarded-For from a client that is no configured proxy is no new address', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= LIMITS.perClient + 1; i++) {
      const r = await attempt('198.51.100.200', `nobody-${i}`, 'guess', { 'x-forwarded-for': `203.0.113.${i}` });
      statuses.push(r.statusCode);
    }
    assert.deepEqual(statuses, [...Array(LIMITS.perClient).fill(401), 429]);
    // Another address is not held back by it.
    assert.equal((await attempt('198.51.100.201', 'nobody-x', 'guess')).statusCode, 401);
  });
});
