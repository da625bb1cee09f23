// Where a client's sessions come from (src/openstack/auth.ts): the caller's token and its catalog, and the
// worker's session built from an application credential: login with id and secret, the token kept and
// shared, renewed before expiry, logged in again once after a 401, and failures that no retry can fix
// surfaced as they are.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppCredentialAuth, tokenSessions } from '../../src/openstack/auth.js';
import type { CallRecord } from '../../src/openstack/http.js';
import { KeystoneClient } from '../../src/openstack/keystone.js';
import { NeutronClient } from '../../src/openstack/neutron.js';
import { failure } from '../support/openstack.js';
import { FAST_RETRY, startCloud, statuses, type Cloud } from './cloud.js';

let cloud: Cloud;
before(async () => {
  cloud = await startCloud();
});
after(() => cloud.close());

/** The keystone client of `demo`, with the user's own token (what the API does for a cluster). */
async function demoKeystone(calls?: CallRecord[]): Promise<{ keystone: KeystoneClient; userId: string; projectId: string }> {
  const { token, context } = await cloud.login('demo');
  const sessions = tokenSessions(context.catalog, token, { timeoutMs: 5000, ...(calls ? { log: (c) => calls.push(c) } : {}) });
  return { keystone: new KeystoneClient(await sessions.session('identity'), context.userId), userId: context.userId, projectId: context.projectId! };
}

describe('application credential sessions', () => {
  async function credential(): Promise<{ id: string; secret: string; keystone: KeystoneClient }> {
    const { keystone } = await demoKeystone();
    const cred = await keystone.createApplicationCredential({ name: randomUUID() });
    return { id: cred.id, secret: cred.secret, keystone };
  }

  test('logs in once, scoped to the credential\'s project, and shares the token between sessions and callers', async () => {
    const calls: CallRecord[] = [];
    const { id, secret } = await credential();
    const auth = new AppCredentialAuth({ authUrl: cloud.authUrl, id, secret, timeoutMs: 5000, retry: FAST_RETRY, log: (c) => calls.push(c) });
    const [a, b] = await Promise.all([auth.token(), auth.token()]);
    assert.equal(a, b);
    const ctx = await auth.context();
    assert.equal(ctx.projectId, cloud.projectId('demo'));
    assert.deepEqual(ctx.applicationCredential, { id, restricted: true, accessRules: null });
    const neutron = new NeutronClient(await auth.session('network'));
    assert.equal((await neutron.listNetworks({ name: 'public' })).length, 1);
    await new NeutronClient(await auth.session('network', { globalRequestId: 'req-00000000-0000-4000-8000-000000000001' })).listNetworks({ name: 'public' });
    assert.equal(calls.filter((c) => c.operation === 'auth.tokens.create').length, 1, 'one login');
    assert.equal(calls.at(-1)?.globalRequestId, 'req-00000000-0000-4000-8000-000000000001');
  });

  test('renews the token before it expires (5 minutes before, at most half its life)', async () => {
    const calls: CallRecord[] = [];
    const { id, secret } = await credential();
    let now = Date.now();
    const auth = new AppCredentialAuth({ authUrl: cloud.authUrl, id, secret, timeoutMs: 5000, log: (c) => calls.push(c), now: () => now });
    const first = await auth.token();
    now += 54 * 60_000; // 54 min into a 60 min token: kept
    assert.equal(await auth.token(), first);
    now += 2 * 60_000; // 56 min: less than 5 min left, renewed
    const second = await auth.token();
    assert.notEqual(second, first);
    assert.deepEqual(statuses(calls, 'auth.tokens.create'), [201, 201]);
  });

  test('Keystone down at renewal: the held token serves until it expires, then the failure surfaces', async () => {
    const calls: CallRecord[] = [];
    const { id, secret } = await credential();
    let down = false;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (down) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":503,"title":"Service Unavailable","message":"down"}}');
        const body = Buffer.concat(chunks);
        fetch(`${cloud.authUrl.replace(/\/v3$/, '')}${req.url}`, { method: req.method!, headers: { 'content-type': 'application/json' }, ...(body.length ? { body } : {}) })
          .then(async (r) => res.writeHead(r.status, Object.fromEntries(r.headers)).end(Buffer.from(await r.arrayBuffer())))
          .catch(() => res.writeHead(502).end());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      let now = Date.now();
      const authUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v3`;
      const auth = new AppCredentialAuth({ authUrl, id, secret, timeoutMs: 5000, log: (c) => calls.push(c), now: () => now });
      const first = await auth.token();
      down = true;
      now += 56 * 60_000;
      assert.equal(await auth.token(), first, 'renewal failed: the token still has minutes to live');
      now += 5 * 60_000;
      const e = await failure(() => auth.token());
      assert.deepEqual([e.status, e.kind], [503, 'server']);
      assert.deepEqual(statuses(calls, 'auth.tokens.create'), [201, 503, 503]);
    } finally {
      proxy.close();
    }
  });

  test('a 401 from a service (token revoked) logs in again once and repeats the call', async () => {
    const calls: CallRecord[] = [];
    const { id, secret } = await credential();
    const auth = new AppCredentialAuth({ authUrl: cloud.authUrl, id, secret, timeoutMs: 5000, log: (c) => calls.push(c) });
    const neutron = new NeutronClient(await auth.session('network'));
    const token = await auth.token();
    const revoke = await cloud.keystone.app.inject({ method: 'DELETE', url: '/v3/auth/tokens', headers: { 'x-auth-token': token, 'x-subject-token': token } });
    assert.equal(revoke.statusCode, 204);
    assert.equal((await neutron.listNetworks({ name: 'public' })).length, 1);
    assert.deepEqual(
      calls.map((c) => `${c.operation} ${c.status}`),
      ['auth.tokens.create 201', 'networks.list 401', 'auth.tokens.create 201', 'networks.list 200'],
    );
    assert.notEqual(await auth.token(), token);
  });

  test('a deleted credential or a wrong secret is a 401 at login, not retried; a restricted credential cannot make credentials', async () => {
    const calls: CallRecord[] = [];
    const { id, secret, keystone } = await credential();
    const wrong = new AppCredentialAuth({ authUrl: cloud.authUrl, id, secret: 'not-the-secret', timeoutMs: 5000, retry: FAST_RETRY, log: (c) => calls.push(c) });
    const e = await failure(() => wrong.session('network'));
    assert.deepEqual([e.status, e.kind, e.service], [401, 'unauthorized', 'identity']);
    assert.deepEqual(statuses(calls), [401]);

    const auth = new AppCredentialAuth({ authUrl: cloud.authUrl.replace(/\/v3$/, ''), id, secret, timeoutMs: 5000 });
    const ctx = await auth.context();
    const own = new KeystoneClient(await auth.session('identity'), ctx.userId);
    assert.equal((await failure(() => own.createApplicationCredential({ name: randomUUID() }))).status, 403);

    assert.equal(await keystone.deleteApplicationCredential(id), true);
    const gone = new AppCredentialAuth({ authUrl: cloud.authUrl, id, secret, timeoutMs: 5000 });
    assert.equal((await failure(() => gone.token())).status, 401);
  });

  test('Keystone down: the login is retried (it is idempotent) and then surfaces as unreachable', async () => {
    const calls: CallRecord[] = [];
    const down = new AppCredentialAuth({ authUrl: 'http://127.0.0.1:1/v3', id: 'x', secret: 'y', timeoutMs: 500, retry: { ...FAST_RETRY, maxAttempts: 3 }, log: (c) => calls.push(c) });
    const e = await failure(() => down.token());
    assert.deepEqual([e.kind, e.service], ['unreachable', 'identity']);
    assert.deepEqual(calls.map((c) => c.attempt), [1, 2, 3]);
  });
});
