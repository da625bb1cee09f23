// Keystone emulator: token validation (GET/HEAD), revocation, role recomputation, disable/password change, expiry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, assertKeystoneError, Clock, issueRaw, login, passwordIdentity, projectScope, roleNames, sim, tokenFor, validate } from './helpers.js';

test('validation: 200 for service/admin/self, 401 bad caller, 404 bad subject, 403 other users; HEAD has no body', async () => {
  const ks = await sim();
  const service = await tokenFor(ks, 'magnum');
  const admin = await tokenFor(ks, 'admin');
  const demo = await login(ks, 'demo', projectScope('demo'));
  const reader = await tokenFor(ks, 'demo-reader');
  const before = ks.state.validations;

  for (const caller of [service, admin, demo.token]) {
    const res = await validate(ks, caller, demo.token);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-subject-token'], demo.token);
    const body = res.json().token;
    assert.equal(body.project.id, ks.state.projectId('demo'));
    assert.equal(body.expires_at, demo.body.token.expires_at);
    assert.deepEqual(body.audit_ids, demo.body.token.audit_ids);
    assert.deepEqual(roleNames(res.json()), ['member', 'reader']);
    assert.ok(Array.isArray(body.catalog));
  }
  const head = await validate(ks, service, demo.token, { method: 'HEAD' });
  assert.equal(head.statusCode, 200);
  assert.equal(head.body, '');
  const noCatalog = await validate(ks, service, demo.token, { query: '?nocatalog' });
  assert.ok(!('catalog' in noCatalog.json().token));

  assertKeystoneError(await validate(ks, undefined, demo.token), 401);
  assertKeystoneError(await validate(ks, 'gAAAAABgarbage', demo.token), 401);
  assertKeystoneError(await validate(ks, service, 'gAAAAABgarbage'), 404);
  assertKeystoneError(await validate(ks, service, undefined), 404);
  // The subject is checked before policy: an invalid subject is 404 even for a caller who may not validate.
  assertKeystoneError(await validate(ks, reader, 'gAAAAABgarbage'), 404);
  assertKeystoneError(await validate(ks, reader, demo.token), 403);
  assert.equal((await validate(ks, reader, demo.token, { method: 'HEAD' })).statusCode, 403);

  assert.equal(ks.state.validations - before, 12);
});

test('revocation: DELETE kills the token and tokens rescoped from it; revoking a child spares the parent', async () => {
  const ks = await sim();
  const service = await tokenFor(ks, 'magnum');
  const parent = await login(ks, 'demo', 'unscoped');
  const rescope = async () => {
    const res = await issueRaw(ks, { identity: { methods: ['token'], token: { id: parent.token } }, scope: projectScope('demo') });
    assert.equal(res.statusCode, 201);
    return res.headers['x-subject-token'] as string;
  };
  const child1 = await rescope();
  const child2 = await rescope();

  const del = await ks.app.inject({ method: 'DELETE', url: '/v3/auth/tokens', headers: { 'x-auth-token': service, 'x-subject-token': child1 } });
  assert.equal(del.statusCode, 204);
  assertKeystoneError(await validate(ks, service, child1), 404);
  assert.equal((await validate(ks, service, child2)).statusCode, 200);
  assert.equal((await validate(ks, service, parent.token)).statusCode, 200);

  // Another user may not revoke; the owner may.
  const other = await tokenFor(ks, 'other');
  const forbidden = await ks.app.inject({ method: 'DELETE', url: '/v3/auth/tokens', headers: { 'x-auth-token': other, 'x-subject-token': parent.token } });
  assertKeystoneError(forbidden, 403);
  const own = await ks.app.inject({ method: 'DELETE', url: '/v3/auth/tokens', headers: { 'x-auth-token': child2, 'x-subject-token': parent.token } });
  assert.equal(own.statusCode, 204);
  assertKeystoneError(await validate(ks, service, parent.token), 404);
  assertKeystoneError(await validate(ks, service, child2), 404);
  const again = await ks.app.inject({ method: 'DELETE', url: '/v3/auth/tokens', headers: { 'x-auth-token': service, 'x-subject-token': parent.token } });
  assertKeystoneError(again, 404);

  // The state helper revokes the same way.
  const fresh = await tokenFor(ks, 'demo');
  assert.equal(ks.state.revokeToken(fresh), true);
  assert.equal(ks.state.revokeToken('gAAAAABunknown'), false);
  assertKeystoneError(await validate(ks, service, fresh), 404);
});

test('roles are recomputed at validation; user disable and password change invalidate tokens', async () => {
  const ks = await sim();
  const { state } = ks;
  const service = await tokenFor(ks, 'magnum');
  const readerId = state.userId('demo-reader');
  const demoProject = state.projectId('demo');
  const token = await tokenFor(ks, 'demo-reader');
  assert.deepEqual(roleNames((await validate(ks, service, token)).json()), ['reader']);

  state.assignRole(readerId, demoProject, 'member');
  assert.deepEqual(roleNames((await validate(ks, service, token)).json()), ['member', 'reader']);
  state.unassignRole(readerId, demoProject, 'member');
  assert.deepEqual(roleNames((await validate(ks, service, token)).json()), ['reader']);
  state.unassignRole(readerId, demoProject, 'reader');
  assertKeystoneError(await validate(ks, service, token), 404);

  const demoId = state.userId('demo');
  const demoToken = await tokenFor(ks, 'demo');
  state.setUserEnabled(demoId, false);
  assertKeystoneError(await validate(ks, service, demoToken), 404);
  state.setUserEnabled(demoId, true);
  // A re-enabled user does not revive old tokens.
  assertKeystoneError(await validate(ks, service, demoToken), 404);
  const after = await tokenFor(ks, 'demo');
  assert.equal((await validate(ks, service, after)).statusCode, 200);

  const admin = await tokenFor(ks, 'admin');
  const patch = await api(ks, admin, 'PATCH', `/v3/users/${demoId}`, { user: { password: 'new-demo-pw' } });
  assert.equal(patch.statusCode, 200, patch.body);
  assertKeystoneError(await validate(ks, service, after), 404);
  assertKeystoneError(await issueRaw(ks, { identity: passwordIdentity('demo', 'demo-secret') }), 401);
  const relogin = await login(ks, 'demo', projectScope('demo'), { password: 'new-demo-pw' });
  assert.equal((await validate(ks, service, relogin.token)).statusCode, 200);
});

test('expiry: a tiny TTL expires tokens; allow_expired accepts them within 48 h unless revoked', async () => {
  const real = await sim({ tokenTtlSeconds: 0.3 });
  const short = await tokenFor(real, 'demo');
  await new Promise((r) => setTimeout(r, 350));
  assertKeystoneError(await validate(real, undefined, short), 401);
  const fresh = await issueRaw(real, { identity: passwordIdentity('magnum', 'magnum-secret'), scope: projectScope('service') });
  assertKeystoneError(await validate(real, fresh.headers['x-subject-token'] as string, short), 404);

  const clock = new Clock();
  const ks = await sim({ tokenTtlSeconds: 60, now: clock.now });
  const demo = await tokenFor(ks, 'demo');
  const revoked = await tokenFor(ks, 'demo');
  ks.state.revokeToken(revoked);
  clock.advance(61);
  const svc = await tokenFor(ks, 'magnum');
  assertKeystoneError(await validate(ks, svc, demo), 404);
  assert.equal((await validate(ks, svc, demo, { query: '?allow_expired=1' })).statusCode, 200);
  assertKeystoneError(await validate(ks, svc, revoked, { query: '?allow_expired=1' }), 404);
  assertKeystoneError(await issueRaw(ks, { identity: { methods: ['token'], token: { id: demo } } }), 401);
  clock.advance(48 * 3600);
  const svc2 = await tokenFor(ks, 'magnum');
  assertKeystoneError(await validate(ks, svc2, demo, { query: '?allow_expired=1' }), 404);
});
