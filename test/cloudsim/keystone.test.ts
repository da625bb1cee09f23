// Keystone v3 emulator: version documents, request ids, password/token auth, scopes and auth errors.
// Entry point of the suite: it also loads the grouped cases under ./keystone/ (catalog and admin API,
// application credentials, JWS tokens, validation/revocation/expiry, the real openstack CLI), so this runs all:
//   node --import tsx --test test/cloudsim/keystone.test.ts
import assert from 'node:assert/strict';
import { test } from 'node:test';
import './keystone/admin.cases.js';
import './keystone/appcreds.cases.js';
import './keystone/jws.cases.js';
import './keystone/validation.cases.js';
import './keystone/cli.cases.js';
import {
  api,
  assertKeystoneError,
  Clock,
  ISO_MICRO,
  issueRaw,
  login,
  passwordIdentity,
  PUBLIC_URL,
  projectScope,
  roleNames,
  sim,
} from './keystone/helpers.js';

test('version documents are served unauthenticated (GET / is 300, GET /v3 is v3.14 stable)', async () => {
  const ks = await sim();
  const root = await ks.app.inject({ method: 'GET', url: '/' });
  assert.equal(root.statusCode, 300);
  const values = root.json().versions.values;
  assert.equal(values.length, 1);
  assert.equal(values[0].id, 'v3.14');
  assert.deepEqual(values[0].links, [{ rel: 'self', href: `${PUBLIC_URL}/v3/` }]);

  for (const url of ['/v3', '/v3/']) {
    const v3 = await ks.app.inject({ method: 'GET', url });
    assert.equal(v3.statusCode, 200);
    const { version } = v3.json();
    assert.equal(version.id, 'v3.14');
    assert.equal(version.status, 'stable');
    assert.equal(version['media-types'][0].type, 'application/vnd.openstack.identity-v3+json');
  }
  assert.equal((await ks.app.inject({ method: 'HEAD', url: '/v3' })).statusCode, 200);
});

test('every response carries x-openstack-request-id: req-<uuid4>', async () => {
  const ks = await sim();
  const responses = [
    await ks.app.inject({ method: 'GET', url: '/v3' }),
    await ks.app.inject({ method: 'GET', url: '/v3/nowhere' }),
    await api(ks, undefined, 'GET', '/v3/projects'),
    (await login(ks, 'demo', projectScope('demo'))).res,
  ];
  const seen = new Set<string>();
  for (const res of responses) {
    const id = res.headers['x-openstack-request-id'];
    assert.match(String(id), /^req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    seen.add(String(id));
  }
  assert.equal(seen.size, responses.length);
});

test('password auth (name + domain name, name + domain id, user id) issues a project token', async () => {
  const ks = await sim();
  const demoId = ks.state.userId('demo');
  const identities = [
    passwordIdentity('demo', 'demo-secret'),
    { methods: ['password'], password: { user: { name: 'demo', domain: { id: 'default' }, password: 'demo-secret' } } },
    { methods: ['password'], password: { user: { id: demoId, password: 'demo-secret' } } },
  ];
  for (const identity of identities) {
    const res = await issueRaw(ks, { identity, scope: projectScope('demo') });
    assert.equal(res.statusCode, 201, res.body);
    const token = res.headers['x-subject-token'] as string;
    assert.match(token, /^gAAAAAB[A-Za-z0-9_-]+$/);
    assert.ok(!res.body.includes(token), 'the token id appears only in X-Subject-Token');
    const body = res.json().token;
    assert.deepEqual(body.methods, ['password']);
    assert.deepEqual(body.user, { domain: { id: 'default', name: 'Default' }, id: demoId, name: 'demo', password_expires_at: null });
    assert.deepEqual(body.project, { domain: { id: 'default', name: 'Default' }, id: ks.state.projectId('demo'), name: 'demo' });
    assert.equal(body.is_domain, false);
    assert.equal(body.audit_ids.length, 1);
    assert.match(body.audit_ids[0], /^[A-Za-z0-9_-]{22}$/);
    assert.match(body.issued_at, ISO_MICRO);
    assert.match(body.expires_at, ISO_MICRO);
    assert.equal(Date.parse(body.expires_at) - Date.parse(body.issued_at), 3600_000);
    assert.deepEqual(roleNames({ token: body }), ['member', 'reader'], 'implied roles are listed');
    assert.ok(Array.isArray(body.catalog));
  }
  const admin = await login(ks, 'admin', projectScope('admin'));
  assert.deepEqual(roleNames(admin.body), ['admin', 'member', 'reader']);
  const magnum = await login(ks, 'magnum', projectScope('service'));
  assert.deepEqual(roleNames(magnum.body), ['admin', 'member', 'reader', 'service']);
});

test('auth failures are generic 401s with WWW-Authenticate; malformed bodies are 400', async () => {
  const ks = await sim();
  const demo = (password: string) => ({ identity: passwordIdentity('demo', password), scope: projectScope('demo') });
  const wrong = await issueRaw(ks, demo('nope'));
  assertKeystoneError(wrong, 401);
  const unknown = await issueRaw(ks, { identity: passwordIdentity('ghost', 'demo-secret') });
  assertKeystoneError(unknown, 401);
  assert.deepEqual(unknown.json(), wrong.json(), 'no hint which part was wrong');
  assert.equal(wrong.json().error.message, 'The request you have made requires authentication.');

  // No role on the project, unknown project, unsupported method, trust scope.
  assertKeystoneError(await issueRaw(ks, { identity: passwordIdentity('demo', 'demo-secret'), scope: projectScope('other') }), 401);
  assertKeystoneError(await issueRaw(ks, { identity: passwordIdentity('demo', 'demo-secret'), scope: { project: { id: 'nope' } } }), 401);
  assertKeystoneError(await issueRaw(ks, { identity: { methods: ['totp'], totp: {} } }), 401);
  assertKeystoneError(await issueRaw(ks, { identity: passwordIdentity('demo', 'demo-secret'), scope: { 'OS-TRUST:trust': { id: 'x' } } }), 401);

  ks.state.setUserEnabled(ks.state.userId('demo'), false);
  assertKeystoneError(await issueRaw(ks, demo('demo-secret')), 401);

  const bad = [
    { identity: {} },
    { identity: { methods: [] } },
    { identity: { methods: ['password'] } },
    { identity: { methods: ['password'], password: { user: { name: 'demo', password: 'demo-secret' } } } },
    { identity: passwordIdentity('admin', 'admin-secret'), scope: { project: { id: 'x' }, domain: { id: 'default' } } },
    { identity: passwordIdentity('admin', 'admin-secret'), scope: { project: { name: 'admin' } } },
  ];
  for (const auth of bad) assertKeystoneError(await issueRaw(ks, auth), 400);
  const notJson = await ks.app.inject({
    method: 'POST',
    url: '/v3/auth/tokens',
    headers: { 'content-type': 'application/json' },
    payload: '{"auth": ',
  });
  assertKeystoneError(notJson, 400);
  assertKeystoneError(await ks.app.inject({ method: 'POST', url: '/v3/auth/tokens' }), 400);
});

test('scope: default project when omitted, unscoped, domain and system scope, nocatalog', async () => {
  const ks = await sim();
  const { state } = ks;

  const byDefault = await login(ks, 'demo');
  assert.equal(byDefault.body.token.project.name, 'demo');

  const loner = state.createUser('loner', 'loner-pw');
  const unscopedDefault = await login(ks, 'loner', undefined, { password: 'loner-pw' });
  for (const key of ['project', 'domain', 'system', 'roles', 'catalog']) assert.ok(!(key in unscopedDefault.body.token), key);

  for (const scope of ['unscoped', { unscoped: {} }]) {
    const explicit = await login(ks, 'demo', scope);
    assert.ok(!('project' in explicit.body.token) && !('catalog' in explicit.body.token));
  }

  const byId = await login(ks, 'demo', { project: { id: state.projectId('demo') } });
  assert.equal(byId.body.token.project.name, 'demo');

  // Domain scope needs a role on the domain.
  assertKeystoneError(await issueRaw(ks, { identity: passwordIdentity('demo', 'demo-secret'), scope: { domain: { id: 'default' } } }), 401);
  state.grant(loner, { kind: 'domain', id: 'default' }, state.roleId('reader'));
  const domain = await login(ks, 'loner', { domain: { name: 'Default' } }, { password: 'loner-pw' });
  assert.deepEqual(domain.body.token.domain, { id: 'default', name: 'Default' });
  assert.deepEqual(roleNames(domain.body), ['reader']);

  const system = await login(ks, 'admin', { system: { all: true } });
  assert.deepEqual(system.body.token.system, { all: true });
  assert.deepEqual(roleNames(system.body), ['admin', 'member', 'reader']);
  assertKeystoneError(await issueRaw(ks, { identity: passwordIdentity('demo', 'demo-secret'), scope: { system: { all: true } } }), 401);

  const noCatalog = await login(ks, 'demo', projectScope('demo'), { query: '?nocatalog' });
  assert.ok(!('catalog' in noCatalog.body.token));
});

test('token method rescopes, keeps expires_at, prepends methods and chains audit ids', async () => {
  const clock = new Clock();
  const ks = await sim({ now: clock.now });
  const unscoped = await login(ks, 'admin', 'unscoped');
  clock.advance(600);
  const res = await issueRaw(ks, { identity: { methods: ['token'], token: { id: unscoped.token } }, scope: projectScope('demo') });
  assertKeystoneError(res, 401); // admin has no role on demo
  const rescoped = await issueRaw(ks, { identity: { methods: ['token'], token: { id: unscoped.token } }, scope: projectScope('admin') });
  assert.equal(rescoped.statusCode, 201, rescoped.body);
  const body = rescoped.json().token;
  assert.deepEqual(body.methods, ['token', 'password']);
  assert.equal(body.expires_at, unscoped.body.token.expires_at);
  assert.notEqual(body.issued_at, unscoped.body.token.issued_at);
  assert.equal(body.audit_ids.length, 2);
  assert.equal(body.audit_ids[1], unscoped.body.token.audit_ids[0]);
  assert.equal(body.project.name, 'admin');

  assertKeystoneError(await issueRaw(ks, { identity: { methods: ['token'], token: { id: 'gAAAAABnope' } } }), 401);
});
