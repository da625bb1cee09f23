// The token validator against the Keystone emulator listening on loopback (openstack-apis §1.2–§1.4):
// cache (SHA-256 keys, min(expiry, TTL) lifetime, LRU bound, no negative caching), coalescing, the
// service token, Keystone failures, and the offline JWS pre-filter.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { BUILTIN_USERS, SERVICE_USER } from '../../cloudsim/embedded.js';
import { createKeystoneSim, type KeystoneSim, type KeystoneSimOptions } from '../../cloudsim/keystone/index.js';
import type { Config } from '../../src/config.js';
import { ServiceToken } from '../../src/keystone/service-token.js';
import { InvalidTokenError, KeystoneUnavailableError, TokenValidator, tokenHash } from '../../src/keystone/token-validator.js';
import { passwordToken } from '../support/app.js';
import { closedPort } from '../support/net.js';

type User = keyof typeof BUILTIN_USERS;

interface Sim {
  ks: KeystoneSim;
  authUrl: string;
  /** Password logins of the service user seen by the emulator. */
  serviceLogins: number;
  /** Lifetimes of the service tokens issued, epoch ms. */
  serviceTokens: { issuedAt: number; expiresAt: number }[];
  /** When set, answers matching requests with this HTTP status instead of handling them. */
  failWith: { status: number; match: (method: string, url: string) => boolean } | undefined;
  token(user: User): Promise<string>;
}

const sims: KeystoneSim[] = [];
afterEach(async () => {
  for (const ks of sims.splice(0)) await ks.app.close();
});

async function startSim(opts: Partial<KeystoneSimOptions> = {}): Promise<Sim> {
  const ks = await createKeystoneSim({ publicUrl: 'http://127.0.0.1', passwords: { magnum: SERVICE_USER.password }, ...opts });
  const sim: Sim = {
    ks,
    authUrl: '',
    serviceLogins: 0,
    serviceTokens: [],
    failWith: undefined,
    token: (user) => passwordToken(ks, user, BUILTIN_USERS[user].password, BUILTIN_USERS[user].project),
  };
  ks.app.addHook('onRequest', async (request, reply) => {
    if (sim.failWith?.match(request.method, request.url)) {
      return reply.code(sim.failWith.status).send({ error: { code: sim.failWith.status, title: 'Error', message: 'injected failure' } });
    }
  });
  ks.app.addHook('preHandler', async (request) => {
    const body = request.body as { auth?: { identity?: { password?: { user?: { name?: string } } } } } | undefined;
    if (request.method === 'POST' && request.url.startsWith('/v3/auth/tokens') && body?.auth?.identity?.password?.user?.name === SERVICE_USER.username) {
      sim.serviceLogins++;
    }
  });
  ks.app.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'POST' && reply.statusCode === 201 && typeof payload === 'string') {
      const t = (JSON.parse(payload) as { token: { user: { name: string }; issued_at: string; expires_at: string } }).token;
      if (t.user.name === SERVICE_USER.username) sim.serviceTokens.push({ issuedAt: Date.parse(t.issued_at), expiresAt: Date.parse(t.expires_at) });
    }
    return payload;
  });
  const address = await ks.app.listen({ host: '127.0.0.1', port: 0 });
  ks.setPublicUrl(address);
  sim.authUrl = `${address}/v3`;
  sims.push(ks);
  return sim;
}

function keystoneConfig(authUrl: string, overrides: Partial<Config['keystone']> = {}): Config['keystone'] {
  return {
    authUrl,
    service: {
      username: SERVICE_USER.username,
      password: SERVICE_USER.password,
      projectName: SERVICE_USER.project,
      userDomainName: 'Default',
      projectDomainName: 'Default',
    },
    tokenCacheTtlSeconds: 300,
    tokenCacheSize: 1000,
    jwsPublicKeys: [],
    timeoutMs: 5000,
    ...overrides,
  };
}

function validator(authUrl: string, overrides: Partial<Config['keystone']> = {}): TokenValidator {
  const cfg = keystoneConfig(authUrl, overrides);
  return new TokenValidator(cfg, new ServiceToken(cfg.authUrl, cfg.service, cfg.timeoutMs));
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Sleeps until `epochMs` has passed (plus a little). */
const sleepUntil = (epochMs: number): Promise<void> => sleep(Math.max(0, epochMs - Date.now()) + 50);

describe('cache', () => {
  test('a validated token is cached: the second validation makes no Keystone call', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl);
    const tok = await sim.token('demo');
    const first = await v.validate(tok);
    assert.equal(first.userId, sim.ks.state.userId('demo'));
    assert.equal(first.projectId, sim.ks.state.projectId('demo'));
    assert.equal(first.projectName, 'demo');
    assert.ok(first.roles.includes('member') && first.roles.includes('reader'), `roles ${first.roles}`);
    assert.equal(first.isAdmin, false);
    assert.equal(sim.ks.state.validations, 1);
    assert.equal(v.keystoneValidations, 1);
    const second = await v.validate(tok);
    assert.deepEqual(second, first);
    assert.equal(sim.ks.state.validations, 1);
    assert.equal(v.keystoneValidations, 1);
  });

  test('the cache key is the SHA-256 of the token, never the token', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl);
    const tokens = [await sim.token('demo'), await sim.token('admin')];
    for (const tok of tokens) await v.validate(tok);
    const keys = v.cachedTokenHashes();
    assert.deepEqual(keys, tokens.map(sha256));
    assert.deepEqual(keys, tokens.map(tokenHash));
    for (const tok of tokens) assert.ok(keys.every((k) => !k.includes(tok)));
  });

  test('an entry lives no longer than its token (TTL larger): the expired token is refused', async () => {
    const sim = await startSim({ tokenTtlSeconds: 2 });
    const v = validator(sim.authUrl, { tokenCacheTtlSeconds: 300 });
    const tok = await sim.token('demo');
    const ctx = await v.validate(tok);
    await v.validate(tok);
    assert.equal(v.keystoneValidations, 1, 'cached while valid');
    await sleepUntil(ctx.expiresAt);
    await assert.rejects(v.validate(tok), InvalidTokenError);
    assert.deepEqual(v.cachedTokenHashes(), []);
  });

  test('expiry is enforced locally too, even when Keystone still accepts the token', async () => {
    // The emulator's clock runs an hour late: it keeps accepting a token whose real expiry is in 2 s.
    const sim = await startSim({ now: () => Date.now() - 3_600_000, tokenTtlSeconds: 3602 });
    const v = validator(sim.authUrl, { tokenCacheTtlSeconds: 300 });
    const tok = await sim.token('demo');
    const ctx = await v.validate(tok);
    assert.ok(ctx.expiresAt - Date.now() <= 2000);
    await sleepUntil(ctx.expiresAt);
    const check = await sim.ks.app.inject({ method: 'GET', url: '/v3/auth/tokens', headers: { 'x-auth-token': tok, 'x-subject-token': tok } });
    assert.equal(check.statusCode, 200, 'Keystone (late clock) still accepts it');
    await assert.rejects(v.validate(tok), InvalidTokenError);
    assert.deepEqual(v.cachedTokenHashes(), []);
  });

  test('an entry lives no longer than the TTL (TTL smaller): a revoked token is accepted until then, refused after', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl, { tokenCacheTtlSeconds: 2 });
    const tok = await sim.token('demo');
    await v.validate(tok);
    const cachedAt = Date.now();
    assert.ok(sim.ks.state.revokeToken(tok));
    // Revocation is not re-checked while cached (keystonemiddleware's behaviour).
    await v.validate(tok);
    assert.equal(v.keystoneValidations, 1);
    await sleepUntil(cachedAt + 2000);
    await assert.rejects(v.validate(tok), InvalidTokenError);
    assert.equal(v.keystoneValidations, 2);
  });

  test('TTL 0 disables the cache', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl, { tokenCacheTtlSeconds: 0 });
    const tok = await sim.token('demo');
    await v.validate(tok);
    await v.validate(tok);
    assert.equal(v.keystoneValidations, 2);
    assert.deepEqual(v.cachedTokenHashes(), []);
  });

  test('the cache is bounded: a third token evicts the least recently used', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl, { tokenCacheSize: 2 });
    const [a, b, c] = [await sim.token('demo'), await sim.token('admin'), await sim.token('other')] as [string, string, string];
    await v.validate(a);
    await v.validate(b);
    await v.validate(a); // a is now the most recently used
    assert.equal(v.keystoneValidations, 2);
    await v.validate(c); // evicts b
    assert.equal(v.keystoneValidations, 3);
    assert.deepEqual(v.cachedTokenHashes(), [sha256(a), sha256(c)]);
    await v.validate(a);
    assert.equal(v.keystoneValidations, 3, 'a is still cached');
    await v.validate(b);
    assert.equal(v.keystoneValidations, 4, 'b was evicted');
    assert.deepEqual(v.cachedTokenHashes(), [sha256(a), sha256(b)]);
  });

  test('failures are not cached: an invalid token costs a Keystone call every time', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl);
    for (let i = 1; i <= 3; i++) {
      await assert.rejects(v.validate('not-a-token'), InvalidTokenError);
      assert.equal(v.keystoneValidations, i);
    }
    assert.deepEqual(v.cachedTokenHashes(), []);
  });

  test('20 concurrent validations of one token make exactly one Keystone call', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl);
    const tok = await sim.token('demo');
    const results = await Promise.all(Array.from({ length: 20 }, () => v.validate(tok)));
    assert.equal(sim.ks.state.validations, 1);
    assert.equal(v.keystoneValidations, 1);
    assert.equal(sim.serviceLogins, 1);
    for (const r of results) assert.deepEqual(r, results[0]);
  });

  test('concurrent validations of one invalid token share one Keystone call and all fail', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => v.validate('bogus-token')));
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof InvalidTokenError);
    }
    assert.equal(sim.ks.state.validations, 1);
  });
});

describe('service token', () => {
  test('obtained once for many validations', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl);
    const users: User[] = ['demo', 'admin', 'other', 'demo-reader', 'demo'];
    for (const u of users) await v.validate(await sim.token(u));
    assert.equal(sim.serviceLogins, 1);
    assert.equal(sim.ks.state.validations, users.length);
  });

  test('renewed before it expires (short Keystone token lifetime)', async () => {
    const sim = await startSim({ tokenTtlSeconds: 3 });
    const v = validator(sim.authUrl);
    await v.validate(await sim.token('demo'));
    assert.equal(sim.serviceLogins, 1);
    // Renewal is due after 80% of a short lifetime (2.4 s of 3 s), before the token is dead.
    const [first] = sim.serviceTokens as [{ issuedAt: number; expiresAt: number }];
    await sleepUntil(first.expiresAt - (first.expiresAt - first.issuedAt) / 5 + 50);
    await v.validate(await sim.token('other'));
    assert.equal(sim.serviceLogins, 2);
    assert.equal(sim.ks.state.validations, 2, 'no validation was refused for a stale service token');
  });

  test('a service token Keystone no longer accepts is replaced once and the validation retried', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl);
    await v.validate(await sim.token('demo'));
    assert.equal(sim.serviceLogins, 1);
    // A password change revokes every token the service user had (same password, new tokens work).
    sim.ks.state.setUserPassword(sim.ks.state.userId(SERVICE_USER.username), SERVICE_USER.password);
    const ctx = await v.validate(await sim.token('admin'));
    assert.equal(ctx.isAdmin, true);
    assert.equal(sim.serviceLogins, 2);
    assert.equal(v.keystoneValidations, 3, 'the refused call and its retry');
  });

  test('a service login Keystone refuses → KeystoneUnavailableError', async () => {
    const sim = await startSim();
    const cfg = keystoneConfig(sim.authUrl);
    const v = new TokenValidator(cfg, new ServiceToken(cfg.authUrl, { ...cfg.service, password: 'wrong' }, cfg.timeoutMs));
    await assert.rejects(v.validate(await sim.token('demo')), KeystoneUnavailableError);
    assert.equal(sim.ks.state.validations, 0);
  });
});

describe('Keystone failures', () => {
  test('Keystone unreachable → KeystoneUnavailableError', async () => {
    const v = validator(`http://127.0.0.1:${await closedPort()}/v3`);
    await assert.rejects(v.validate('some-token'), KeystoneUnavailableError);
  });

  for (const status of [500, 502, 503]) {
    test(`token validation answered ${status} → KeystoneUnavailableError; not cached, works again afterwards`, async () => {
      const sim = await startSim();
      const v = validator(sim.authUrl);
      const tok = await sim.token('demo');
      sim.failWith = { status, match: (method, url) => method === 'GET' && url.startsWith('/v3/auth/tokens') };
      await assert.rejects(v.validate(tok), KeystoneUnavailableError);
      sim.failWith = undefined;
      const ctx = await v.validate(tok);
      assert.equal(ctx.projectName, 'demo');
    });
  }

  test('service login answered 500 → KeystoneUnavailableError', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl);
    const tok = await sim.token('demo');
    sim.failWith = { status: 500, match: (method) => method === 'POST' };
    await assert.rejects(v.validate(tok), KeystoneUnavailableError);
    sim.failWith = undefined;
    await v.validate(tok);
    assert.equal(sim.serviceLogins, 1);
  });

  test('Keystone stopped: cached tokens keep working, new ones → KeystoneUnavailableError', async () => {
    const sim = await startSim();
    const v = validator(sim.authUrl);
    const cached = await sim.token('demo');
    const fresh = await sim.token('admin');
    await v.validate(cached);
    await sim.ks.app.close();
    assert.equal((await v.validate(cached)).projectName, 'demo');
    await assert.rejects(v.validate(fresh), KeystoneUnavailableError);
  });
});

describe('JWS tokens', () => {
  async function jwsSetup(opts: Partial<KeystoneSimOptions> = {}) {
    const sim = await startSim({ tokenFormat: 'jws', ...opts });
    const pem = sim.ks.jwsPublicKeyPem();
    assert.ok(pem, 'the emulator exports its public key');
    return { sim, pem, v: validator(sim.authUrl, { jwsPublicKeys: [pem] }) };
  }

  const assertRefusedOffline = async (sim: Sim, v: TokenValidator, token: string) => {
    await assert.rejects(v.validate(token), InvalidTokenError);
    assert.equal(sim.ks.state.validations, 0, 'Keystone was not asked');
    assert.equal(v.keystoneValidations, 0);
    assert.equal(sim.serviceLogins, 0);
  };

  test('a valid token passes (and still goes to Keystone once, for roles and revocation)', async () => {
    const { sim, v } = await jwsSetup();
    const tok = await sim.token('demo');
    assert.match(tok, /^eyJ/);
    const ctx = await v.validate(tok);
    assert.equal(ctx.projectName, 'demo');
    assert.ok(ctx.roles.includes('member'));
    assert.equal(sim.ks.state.validations, 1);
  });

  test('several public keys: each is tried (Keystone sets no kid)', async () => {
    const { sim, pem } = await jwsSetup();
    const other = await generateKeyPair('ES256', { extractable: true });
    const v = validator(sim.authUrl, { jwsPublicKeys: [await exportSPKI(other.publicKey), pem] });
    assert.equal((await v.validate(await sim.token('demo'))).projectName, 'demo');
  });

  test('a tampered signature is refused offline', async () => {
    const { sim, v } = await jwsSetup();
    const tok = await sim.token('demo');
    const [h, p, s] = tok.split('.') as [string, string, string];
    const i = 10; // a character inside the signature (the last one may only carry padding bits)
    const tampered = `${h}.${p}.${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
    assert.notEqual(tampered, tok);
    await assertRefusedOffline(sim, v, tampered);
  });

  test('a tampered payload is refused offline', async () => {
    const { sim, v } = await jwsSetup();
    const tok = await sim.token('demo');
    const [h, , s] = tok.split('.') as [string, string, string];
    const claims = { ...decodeJwt(tok), openstack_project_id: sim.ks.state.projectId('admin') };
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    await assertRefusedOffline(sim, v, forged);
  });

  test('a token signed by another ES256 key is refused offline', async () => {
    const { sim, v } = await jwsSetup();
    const real = decodeJwt(await sim.token('admin'));
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT(real).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(other.privateKey);
    await assertRefusedOffline(sim, v, forged);
  });

  test('other algorithms and unsigned tokens are refused offline', async () => {
    const { sim, v } = await jwsSetup();
    const claims = decodeJwt(await sim.token('admin'));
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode('k'.repeat(32)));
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    for (const tok of [hs256, unsigned, 'gAAAAABopaque-fernet-like-token', 'eyJ.garbage']) await assertRefusedOffline(sim, v, tok);
  });

  test('an expired token is refused offline, even though Keystone would accept it', async () => {
    // The emulator's clock runs two hours late: its one-hour tokens expired an hour ago in real time.
    const { sim, v } = await jwsSetup({ now: () => Date.now() - 7_200_000 });
    const tok = await sim.token('demo');
    assert.ok((decodeJwt(tok).exp ?? 0) * 1000 < Date.now() - 3_000_000);
    const check = await sim.ks.app.inject({ method: 'GET', url: '/v3/auth/tokens', headers: { 'x-auth-token': tok, 'x-subject-token': tok } });
    assert.equal(check.statusCode, 200, 'the emulator (late clock) accepts it');
    sim.ks.state.validations = 0;
    await assertRefusedOffline(sim, v, tok);
  });

  test('a correctly signed but revoked token still needs Keystone to be refused', async () => {
    const { sim, v } = await jwsSetup();
    const tok = await sim.token('demo');
    assert.ok(sim.ks.state.revokeToken(tok));
    await assert.rejects(v.validate(tok), InvalidTokenError);
    assert.equal(sim.ks.state.validations, 1);
  });
});
