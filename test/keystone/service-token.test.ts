// The service's own Keystone token (src/keystone/service-token.ts) against the Keystone emulator: one
// password login shared by concurrent callers, kept until shortly before it expires, forgotten when
// refused (and only that token), a refused login a ServiceTokenError.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SERVICE_USER } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import type { ServiceCredentials } from '../../src/config.js';
import { ServiceToken, ServiceTokenError } from '../../src/keystone/service-token.js';
import { startKeystone } from '../support/app.js';

let ks: KeystoneSim;
let authUrl: string;
let logins = 0;
const creds: ServiceCredentials = { username: SERVICE_USER.username, password: SERVICE_USER.password, projectName: SERVICE_USER.project, userDomainName: 'Default', projectDomainName: 'Default' };

before(async () => {
  ks = await startKeystone({}, (app) =>
    app.addHook('onRequest', async (req) => {
      if (req.method === 'POST' && req.url.startsWith('/v3/auth/tokens')) logins++;
    }),
  );
  authUrl = `http://127.0.0.1:${(ks.app.server.address() as AddressInfo).port}/v3`;
});
after(() => ks.app.close());

test('concurrent callers share one login; the token is kept; invalidate forgets only that token', async () => {
  const st = new ServiceToken(authUrl, creds, 5000);
  logins = 0;
  const tokens = await Promise.all(Array.from({ length: 10 }, () => st.get()));
  assert.equal(new Set(tokens).size, 1);
  assert.equal(logins, 1);
  assert.equal(await st.get(), tokens[0]);
  assert.equal(logins, 1);
  st.invalidate('some other token');
  assert.equal(await st.get(), tokens[0], 'another token’s refusal changes nothing');
  const source = st.source();
  source.invalidate(tokens[0]!);
  const fresh = await source.token();
  assert.notEqual(fresh, tokens[0]);
  assert.equal(logins, 2);
});

test('a short-lived token is renewed before it expires (after 80% of its life)', async () => {
  const short = await startKeystone({ tokenTtlSeconds: 1 });
  try {
    const st = new ServiceToken(`http://127.0.0.1:${(short.app.server.address() as AddressInfo).port}/v3`, creds, 5000);
    const first = await st.get();
    assert.equal(await st.get(), first);
    await new Promise((r) => setTimeout(r, 900));
    assert.notEqual(await st.get(), first);
  } finally {
    await short.app.close();
  }
});

test('a refused login: ServiceTokenError naming the user and the status', async () => {
  const st = new ServiceToken(authUrl, { ...creds, password: 'wrong' }, 5000);
  await assert.rejects(st.get(), (e: unknown) => e instanceof ServiceTokenError && e.message === 'service login as magnum refused by Keystone (HTTP 401)');
});
