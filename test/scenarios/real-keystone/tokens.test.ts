// The API against Debian's real Keystone (not the emulator), with both token providers: valid, expired,
// revoked and tampered tokens, the token cache, project isolation and the reader/member/admin roles.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { SignJWT, decodeJwt, generateKeyPair, importSPKI, jwtVerify } from 'jose';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { apiOn, issueToken, revokeToken, startRealKeystone, type KeystoneUser, type RealKeystone } from '../../support/real-keystone.js';
import { testApp, type TestApp } from '../../support/app.js';

/** Lifetime of every Keystone token in these instances (short, for the expiry test). */
const TOKEN_LIFETIME_S = 10;
/** How long the API trusts a validated token without asking Keystone again. */
const CACHE_TTL_S = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sleepUntil = (epochMs: number) => sleep(Math.max(0, epochMs - Date.now()));

const TEMPLATE = { image_id: 'fedora-coreos-38', coe: 'kubernetes', flavor_id: 'm1.small', external_network_id: 'public' };

for (const provider of ['fernet', 'jws'] as const) {
  describe(`API with the real Keystone (${provider} tokens)`, () => {
    let ks: RealKeystone;
    let t: TestApp;
    let pem: string | undefined;

    before(async () => {
      ks = await startRealKeystone({ provider, tokenExpirationSeconds: TOKEN_LIFETIME_S });
      pem = ks.jwsPublicKeyPath ? await readFile(ks.jwsPublicKeyPath, 'utf8') : undefined;
      t = await testApp({
        config: (c) => {
          apiOn(ks)(c);
          c.keystone.tokenCacheTtlSeconds = CACHE_TTL_S;
          c.keystone.jwsPublicKeys = pem ? [pem] : [];
        },
      });
    });

    after(async () => {
      await t?.close();
      await ks?.stop();
    });

    const call = (token: string | undefined, opts: InjectOptions): Promise<LightMyRequestResponse> =>
      t.app.inject({
        ...opts,
        headers: {
          'openstack-api-version': 'container-infra latest',
          ...(token !== undefined ? { 'x-auth-token': token } : {}),
          ...(opts.headers ?? {}),
        },
      });
    const list = (token: string) => call(token, { method: 'GET', url: '/v1/clustertemplates' });
    const tokenOf = async (who: KeystoneUser) => (await issueToken(ks, who)).token;

    /** Validation calls the API made to Keystone, from /metrics (cross-checked with the validator's counter). */
    async function keystoneValidations(): Promise<number> {
      const res = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      let n = 0;
      for (const line of res.body.split('\n')) {
        const m = /^keystone_request_duration_seconds_count\{([^}]*)\} (\d+)$/.exec(line);
        if (m && /operation="validate_token"/.test(m[1]!)) n += Number(m[2]);
      }
      assert.equal(n, t.app.services.validator.keystoneValidations, 'metric and validator counter agree');
      return n;
    }

    function assertUnauthorized(res: LightMyRequestResponse): void {
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.headers['www-authenticate'], `Keystone uri="${ks.authUrl}"`);
      assert.deepEqual(res.json(), {
        error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' },
      });
    }

    it('accepts a valid token (validated by Keystone once, then from the cache)', async () => {
      const token = await tokenOf('demo');
      const before = await keystoneValidations();
      const res = await list(token);
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(Array.isArray(res.json().clustertemplates));
      assert.equal(await keystoneValidations(), before + 1, 'one validation call on a cache miss');
      assert.equal((await list(token)).statusCode, 200);
      assert.equal(await keystoneValidations(), before + 1, 'the second request is served from the cache');
      assertUnauthorized(await call(undefined, { method: 'GET', url: '/v1/clustertemplates' }));
    });

    it('keeps accepting a revoked token while cached, refuses it once the cache entry ends', async () => {
      const token = await tokenOf('demo');
      const admin = await tokenOf('admin');
      assert.equal((await list(token)).statusCode, 200);
      const validated = Date.now();
      await revokeToken(ks, token, admin);
      const before = await keystoneValidations();
      const cached = await list(token);
      assert.ok(Date.now() - validated < CACHE_TTL_S * 1000, 'still inside the cache TTL');
      assert.equal(cached.statusCode, 200, 'revocation is not seen while the validation is cached');
      assert.equal(await keystoneValidations(), before, 'served from the cache');

      await sleepUntil(validated + CACHE_TTL_S * 1000 + 300);
      assertUnauthorized(await list(token));
      assert.equal(await keystoneValidations(), before + 1, 'Keystone was asked again and said 404');
      assertUnauthorized(await list(token));
      assert.equal(await keystoneValidations(), before + 2, 'failures are not cached');
    });

    it('isolates projects: a template created in demo is 404 for a token scoped to project other', async () => {
      const demo = await tokenOf('demo');
      const created = await call(demo, { method: 'POST', url: '/v1/clustertemplates', payload: { ...TEMPLATE, name: `demo-${provider}` } });
      assert.equal(created.statusCode, 201, created.body);
      const tpl = created.json();
      assert.equal(tpl.project_id, ks.projectIds.demo);

      const other = await issueToken(ks, 'other');
      assert.equal(other.body.token.project.id, ks.projectIds.other);
      const show = await call(other.token, { method: 'GET', url: `/v1/clustertemplates/${tpl.uuid}` });
      assert.equal(show.statusCode, 404, show.body);
      assert.equal(show.json().errors[0].status, 404);
      const byName = await call(other.token, { method: 'GET', url: `/v1/clustertemplates/demo-${provider}` });
      assert.equal(byName.statusCode, 404, byName.body);
      const otherList = await list(other.token);
      assert.equal(otherList.statusCode, 200);
      assert.deepEqual(otherList.json().clustertemplates.map((x: { uuid: string }) => x.uuid).filter((u: string) => u === tpl.uuid), []);
      const del = await call(other.token, { method: 'DELETE', url: `/v1/clustertemplates/${tpl.uuid}` });
      assert.equal(del.statusCode, 404, del.body);

      const mine = await call(demo, { method: 'GET', url: `/v1/clustertemplates/${tpl.uuid}` });
      assert.equal(mine.statusCode, 200, mine.body);
    });

    it('lets demo-reader list but not create (403 in Magnum envelope)', async () => {
      const reader = await issueToken(ks, 'demo-reader');
      assert.deepEqual(reader.body.token.roles.map((r: { name: string }) => r.name), ['reader']);
      const denied = await call(reader.token, { method: 'POST', url: '/v1/clustertemplates', payload: { ...TEMPLATE, name: 'by-reader' } });
      assert.equal(denied.statusCode, 403, denied.body);
      const body = denied.json();
      assert.equal(body.errors.length, 1);
      assert.equal(body.errors[0].status, 403);
      assert.equal(body.errors[0].code, 'client');
      assert.equal(body.errors[0].detail, "Policy doesn't allow clustertemplate:create to be performed.");

      const listed = await list(reader.token);
      assert.equal(listed.statusCode, 200, listed.body);
      const names = listed.json().clustertemplates.map((x: { name: string }) => x.name);
      assert.ok(names.includes(`demo-${provider}`), `reader sees the demo template: ${names.join(',')}`);
      assert.ok(!names.includes('by-reader'));
    });

    it('lets admin list the templates of all projects', async () => {
      const other = await tokenOf('other');
      const created = await call(other, { method: 'POST', url: '/v1/clustertemplates', payload: { ...TEMPLATE, name: `other-${provider}` } });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().project_id, ks.projectIds.other);

      const admin = await issueToken(ks, 'admin');
      assert.equal(admin.body.token.project.id, ks.projectIds.admin);
      const res = await list(admin.token);
      assert.equal(res.statusCode, 200, res.body);
      const projects = new Set(res.json().clustertemplates.map((x: { project_id: string }) => x.project_id));
      assert.ok(projects.has(ks.projectIds.demo) && projects.has(ks.projectIds.other), [...projects].join(','));
      const otherView = (await list(other)).json().clustertemplates.map((x: { project_id: string }) => x.project_id);
      assert.deepEqual([...new Set(otherView)], [ks.projectIds.other], 'a member sees only its own project');
    });

    if (provider === 'jws') {
      it('verifies JWS tokens offline and refuses a tampered or forged one without calling Keystone', async () => {
        const token = await tokenOf('demo');
        const { payload } = await jwtVerify(token, await importSPKI(pem!, 'ES256'), { algorithms: ['ES256'] });
        assert.equal(payload.openstack_project_id, ks.projectIds.demo);

        const before = await keystoneValidations();
        const [h, p, s] = token.split('.') as [string, string, string];
        const tampered = `${h}.${p}.${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
        assertUnauthorized(await list(tampered));
        // Same claims, signed by a key Keystone never had.
        const { privateKey } = await generateKeyPair('ES256');
        const forged = await new SignJWT(decodeJwt(token)).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(privateKey);
        assertUnauthorized(await list(forged));
        assert.equal(await keystoneValidations(), before, 'no Keystone call for a bad signature');

        // The genuine token still needs Keystone once (roles and revocation are not in a JWS).
        assert.equal((await list(token)).statusCode, 200);
        assert.equal(await keystoneValidations(), before + 1);
      });
    } else {
      it('asks Keystone about a tampered fernet token (opaque) and refuses it', async () => {
        const token = await tokenOf('demo');
        const before = await keystoneValidations();
        const tampered = `${token.slice(0, -6)}${token.slice(-6, -5) === 'A' ? 'B' : 'A'}${token.slice(-5)}`;
        assertUnauthorized(await list(tampered));
        assert.equal(await keystoneValidations(), before + 1, 'fernet tokens cannot be checked offline');
      });
    }

    it('refuses a token once it has expired', async () => {
      const issued = await issueToken(ks, 'demo');
      const expiresAt = Date.parse(issued.body.token.expires_at);
      const before = await keystoneValidations();
      assert.equal((await list(issued.token)).statusCode, 200);
      assert.equal(await keystoneValidations(), before + 1);
      // The cache entry lives min(TTL, expiry); past expiry the API must ask again and be refused.
      await sleepUntil(expiresAt + 1000);
      assertUnauthorized(await list(issued.token));
      if (provider === 'fernet') {
        assert.equal(await keystoneValidations(), before + 2, 'Keystone said 404 for the expired token');
      } else {
        // Inside the offline check's clock tolerance (5 s) Keystone is asked and says 404; past it the API
        // refuses an expired JWS without asking Keystone.
        const count = await keystoneValidations();
        assert.equal(count, before + 2, 'Keystone said 404 for the expired token');
        await sleepUntil(expiresAt + 6500);
        assertUnauthorized(await list(issued.token));
        assert.equal(await keystoneValidations(), count, 'no Keystone call for an expired JWS');
      }
    });
  });
}
