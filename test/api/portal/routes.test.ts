// The portal's session endpoints (src/api/portal/routes.ts), by inject(): login (CSRF-protected,
// rate-limited), the cookie standing for X-Auth-Token on /v1 only with its CSRF token from the same
// origin, the project switch by rescoping, and a logout that leaves the old cookie and the old tokens
// useless.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { SessionStore } from '../../../src/api/portal/session-store.js';
import { testApp, type TestApp } from '../../support/app.js';

let t: TestApp;
let dist: string;
const ORIGIN = 'http://localhost:80';
const same = { origin: ORIGIN, 'sec-fetch-site': 'same-origin' };

before(async () => {
  dist = await mkdtemp(join(tmpdir(), 'portal-dist-'));
  await mkdir(join(dist, 'assets'));
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>Magnum</title><script type="module" src="/ui/assets/app-ABCD1234.js"></script>');
  await writeFile(join(dist, 'assets', 'app-ABCD1234.js'), 'console.log(1)');
  t = await testApp({
    config: (c) => {
      c.portal = { perClient: 50, perUser: 4, windowSeconds: 60 };
      // inject()'s peer stands for a TLS-terminating proxy: its X-Forwarded-Proto counts (TRUSTED_PROXIES).
      c.api.trustedProxies = ['127.0.0.1'];
    },
    portal: { distDir: dist },
  });
});
after(async () => {
  await t?.close();
  await rm(dist, { recursive: true, force: true });
});

const setCookies = (r: LightMyRequestResponse): string[] => {
  const h = r.headers['set-cookie'];
  return Array.isArray(h) ? h : h ? [h] : [];
};
const cookieValue = (r: LightMyRequestResponse, name: string) => setCookies(r).find((c) => c.startsWith(`${name}=`))?.split(';')[0]!.slice(name.length + 1);

async function loginForm(): Promise<{ cookie: string; csrf: string }> {
  const r = await t.app.inject({ method: 'GET', url: '/portal/login' });
  assert.equal(r.statusCode, 200);
  return { cookie: `magnum_login=${cookieValue(r, 'magnum_login')}`, csrf: r.json().csrf_token };
}

interface Sess {
  cookie: string;
  csrf: string;
  sid: string;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function login(body: Record<string, unknown>): Promise<Sess> {
  const form = await loginForm();
  const r = await t.app.inject({ method: 'POST', url: '/portal/login', headers: { ...same, cookie: form.cookie, 'x-csrf-token': form.csrf }, payload: body });
  assert.equal(r.statusCode, 200, r.body);
  const sid = cookieValue(r, 'magnum_session')!;
  return { cookie: `magnum_session=${sid}`, csrf: r.json().csrf_token, sid, body: r.json() };
}

const demo = { method: 'password', username: 'demo', password: 'demo-secret', user_domain: 'Default', project: 'demo' };

const v1 = (s: Sess, url: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET', payload?: unknown) =>
  t.app.inject({ method, url, headers: { ...same, cookie: s.cookie, 'x-csrf-token': s.csrf, 'openstack-api-version': 'container-infra latest', ...headers }, ...(payload ? { payload } : {}) });

test('login needs the form cookie, its token and the same origin; the session cookie is HttpOnly, SameSite=Strict, Secure over TLS', async () => {
  const form = await loginForm();
  const post = (headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/portal/login', headers, payload: demo });
  assert.equal((await post({ ...same, cookie: form.cookie })).statusCode, 403, 'no token');
  assert.equal((await post({ ...same, 'x-csrf-token': form.csrf })).statusCode, 403, 'no cookie');
  assert.equal((await post({ origin: 'https://evil.example', cookie: form.cookie, 'x-csrf-token': form.csrf })).statusCode, 403, 'cross origin');
  assert.equal((await post({ 'sec-fetch-site': 'cross-site', cookie: form.cookie, 'x-csrf-token': form.csrf })).statusCode, 403, 'cross site');
  const wrong = await t.app.inject({ method: 'POST', url: '/portal/login', headers: { ...same, cookie: form.cookie, 'x-csrf-token': form.csrf }, payload: { ...demo, password: 'nope' } });
  assert.equal(wrong.statusCode, 401);
  assert.equal(setCookies(wrong).length, 0);
  const ok = await post({ ...same, cookie: form.cookie, 'x-csrf-token': form.csrf });
  assert.equal(ok.statusCode, 200, ok.body);
  const cookie = setCookies(ok).find((c) => c.startsWith('magnum_session='))!;
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  assert.doesNotMatch(cookie, /Secure/);
  const body = ok.json();
  assert.equal(body.user.name, 'demo');
  assert.ok(Date.parse(body.expires_at) > Date.now());
  assert.doesNotMatch(ok.body, /gAAAA|"token"/, 'no Keystone token in the answer');
  const tls = await loginForm();
  const secure = await t.app.inject({
    method: 'POST', url: '/portal/login', payload: demo,
    headers: { origin: 'https://localhost:80', 'x-forwarded-proto': 'https', cookie: tls.cookie, 'x-csrf-token': tls.csrf },
  });
  assert.equal(secure.statusCode, 200, secure.body);
  assert.match(setCookies(secure).find((c) => c.startsWith('magnum_session='))!, /; Secure/);
});

test('on /v1 the cookie counts only with the session’s CSRF token, from the same origin, and never beside X-Auth-Token', async () => {
  const s = await login(demo);
  assert.equal((await v1(s, '/v1/clusters')).statusCode, 200);
  const noCsrf = await t.app.inject({ method: 'GET', url: '/v1/clusters', headers: { ...same, cookie: s.cookie } });
  assert.equal(noCsrf.statusCode, 403);
  assert.match(noCsrf.body, /Cross-site request refused/);
  const wrongCsrf = await v1(s, '/v1/clusters', { 'x-csrf-token': 'x'.repeat(43) });
  assert.equal(wrongCsrf.statusCode, 403);
  // A cross-site POST with the cookie: refused before anything happens, with or without a guessed token.
  const crossSite = await t.app.inject({
    method: 'POST', url: '/v1/clustertemplates', headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', cookie: s.cookie, 'content-type': 'application/json' },
    payload: { name: 'evil', image_id: 'ubuntu-24.04', external_network_id: 'public', coe: 'kubernetes' },
  });
  assert.equal(crossSite.statusCode, 403);
  const noOrigin = await t.app.inject({ method: 'POST', url: '/v1/clustertemplates', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf }, payload: { name: 'evil2' } });
  assert.equal(noOrigin.statusCode, 403, 'a POST without Origin or Sec-Fetch-Site');
  assert.equal((await t.as('demo', { method: 'GET', url: '/v1/clustertemplates' })).json().clustertemplates.length, 0, 'nothing was created');
  const both = await v1(s, '/v1/clusters', { 'x-auth-token': await t.token('demo') });
  assert.equal(both.statusCode, 400);
  assert.match(both.body, /either the portal session cookie or X-Auth-Token/);
  // The CSRF token in the query counts only for streams.
  const inQuery = await t.app.inject({ method: 'GET', url: `/v1/clusters?csrf=${s.csrf}`, headers: { ...same, cookie: s.cookie } });
  assert.equal(inQuery.statusCode, 403);
  const stranger = await t.app.inject({ method: 'GET', url: '/v1/clusters', headers: { ...same, cookie: 'magnum_session=' + 'A'.repeat(43), 'x-csrf-token': s.csrf } });
  assert.equal(stranger.statusCode, 401);
  assert.equal(stranger.headers['x-portal-session'], 'expired');
});

test('the login is rate-limited per user after failures (and says when to retry)', async () => {
  let last: LightMyRequestResponse | undefined;
  for (let i = 0; i < 5; i++) {
    const form = await loginForm();
    last = await t.app.inject({ method: 'POST', url: '/portal/login', headers: { ...same, cookie: form.cookie, 'x-csrf-token': form.csrf }, payload: { ...demo, username: 'ghost', password: 'wrong' } });
  }
  assert.equal(last!.statusCode, 429, last!.body);
  assert.ok(Number(last!.headers['retry-after']) > 0);
  // Another user from the same client is not blocked by it.
  await login({ ...demo, username: 'other', password: 'other-secret', project: 'other' });
});

test('the project is chosen per request: rescoped tokens, projects of the user only; the reader sees its roles', async () => {
  const ks = t.keystone.state;
  const staging = ks.createProject('demo-staging');
  ks.assignRole(ks.findUserByName('demo', 'default')!.id, staging, 'member');
  const s = await login(demo);
  const projects = s.body.projects.map((p: { name: string }) => p.name).sort();
  assert.deepEqual(projects, ['demo', 'demo-staging']);
  const demoId = s.body.default_project;
  const made = await v1(s, '/v1/clustertemplates', { 'x-portal-project': staging, 'content-type': 'application/json' }, 'POST', {
    name: 'staging-only', image_id: 'ubuntu-24.04', external_network_id: 'public', coe: 'kubernetes',
  });
  assert.equal(made.statusCode, 201, made.body);
  assert.equal(made.json().project_id, staging);
  const inStaging = (await v1(s, '/v1/clustertemplates', { 'x-portal-project': staging })).json().clustertemplates.map((x: { name: string }) => x.name);
  const inDemo = (await v1(s, '/v1/clustertemplates', { 'x-portal-project': demoId })).json().clustertemplates.map((x: { name: string }) => x.name);
  assert.deepEqual(inStaging, ['staging-only']);
  assert.deepEqual(inDemo, []);
  const otherProject = ks.findProjectByName('other', 'default')!.id;
  const refused = await v1(s, '/v1/clustertemplates', { 'x-portal-project': otherProject });
  assert.equal(refused.statusCode, 403);
  const scoped = await t.app.inject({ method: 'GET', url: `/portal/session?project=${staging}`, headers: { ...same, cookie: s.cookie } });
  assert.equal(scoped.json().scope.can_write, true);
  const reader = await login({ ...demo, username: 'demo-reader', password: 'reader-secret' });
  const rs = await t.app.inject({ method: 'GET', url: `/portal/session?project=${reader.body.default_project}`, headers: { ...same, cookie: reader.cookie } });
  assert.deepEqual(rs.json().scope.roles, ['reader']);
  assert.equal(rs.json().scope.can_write, false);
});

test('an application credential logs in to its own project only', async () => {
  const token = await t.token('demo');
  const user = t.keystone.state.findUserByName('demo', 'default')!.id;
  const res = await t.keystone.app.inject({ method: 'POST', url: `/v3/users/${user}/application_credentials`, headers: { 'x-auth-token': token }, payload: { application_credential: { name: 'portal-test' } } });
  assert.equal(res.statusCode, 201, res.body);
  const cred = res.json().application_credential;
  const s = await login({ method: 'application_credential', application_credential_id: cred.id, application_credential_secret: cred.secret });
  assert.equal(s.body.method, 'application_credential');
  assert.equal(s.body.projects.length, 1);
  assert.equal((await v1(s, '/v1/clusters')).statusCode, 200);
});

test('logout revokes every token in Keystone, destroys the session and clears the cookie; the old cookie and tokens are useless', async () => {
  const ks = t.keystone.state;
  const s = await login(demo);
  const staging = ks.findProjectByName('demo-staging', 'default')!.id;
  assert.equal((await v1(s, '/v1/clusters', { 'x-portal-project': staging })).statusCode, 200, 'a second token by rescoping');
  const store = new SessionStore(t.app.services.redis, t.app.services.secretBox, t.config.queuePrefix);
  const session = (await store.find(s.sid))!;
  const tokens = (await store.tokens(session)).map((x) => x.token);
  assert.equal(tokens.length, 2);
  for (const tok of tokens) assert.equal((await t.app.inject({ method: 'GET', url: '/v1/clusters', headers: { 'x-auth-token': tok } })).statusCode, 200);
  const noCsrf = await t.app.inject({ method: 'POST', url: '/portal/logout', headers: { ...same, cookie: s.cookie } });
  assert.equal(noCsrf.statusCode, 403, 'logout is CSRF-protected');
  const out = await t.app.inject({ method: 'POST', url: '/portal/logout', headers: { ...same, cookie: s.cookie, 'x-csrf-token': s.csrf } });
  assert.equal(out.statusCode, 204);
  assert.match(setCookies(out).find((c) => c.startsWith('magnum_session='))!, /Max-Age=0/);
  assert.equal((await v1(s, '/v1/clusters')).statusCode, 401, 'the old cookie');
  const service = await t.token('admin');
  for (const tok of tokens) {
    const check = await t.keystone.app.inject({ method: 'GET', url: '/v3/auth/tokens', headers: { 'x-auth-token': service, 'x-subject-token': tok } });
    assert.equal(check.statusCode, 404, 'revoked in Keystone');
    const api = await t.app.inject({ method: 'GET', url: '/v1/clusters', headers: { 'x-auth-token': tok } });
    assert.equal(api.statusCode, 401, 'refused by the API at once (its validation cache forgot it)');
  }
  assert.equal(await store.find(s.sid), undefined);
});
