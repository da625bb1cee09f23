// Keystone emulator: application credential lifecycle, auth with them, restrictions and role intersection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KeystoneSim } from '../../../cloudsim/keystone/index.js';
import {
  api,
  assertKeystoneError,
  Clock,
  ISO_MICRO,
  issueRaw,
  PUBLIC_URL,
  projectScope,
  roleNames,
  sim,
  tokenFor,
  validate,
} from './helpers.js';

interface Created {
  id: string;
  secret: string;
  body: Record<string, any>;
}

async function createCred(ks: KeystoneSim, token: string, userId: string, body: Record<string, unknown>): Promise<Created> {
  const res = await api(ks, token, 'POST', `/v3/users/${userId}/application_credentials`, { application_credential: body });
  assert.equal(res.statusCode, 201, res.body);
  const cred = res.json().application_credential;
  return { id: cred.id, secret: cred.secret, body: cred };
}

const byId = (id: string, secret: string) => ({ identity: { methods: ['application_credential'], application_credential: { id, secret } } });

async function credToken(ks: KeystoneSim, id: string, secret: string): Promise<{ token: string; body: Record<string, any> }> {
  const res = await issueRaw(ks, byId(id, secret));
  assert.equal(res.statusCode, 201, res.body);
  return { token: res.headers['x-subject-token'] as string, body: res.json().token };
}

test('create returns the secret once; show/list never do; duplicate name is 409; secret is stored hashed', async () => {
  const ks = await sim();
  const demoId = ks.state.userId('demo');
  const demo = await tokenFor(ks, 'demo');
  const { id, secret, body } = await createCred(ks, demo, demoId, { name: 'ci', description: 'for CI' });
  assert.match(id, /^[0-9a-f]{32}$/);
  assert.match(secret, /^[A-Za-z0-9_-]{86}$/, '64 random bytes, url-safe base64 without padding');
  assert.equal(body.project_id, ks.state.projectId('demo'));
  assert.equal(body.unrestricted, false);
  assert.equal(body.expires_at, null);
  assert.equal(body.description, 'for CI');
  assert.deepEqual(body.roles.map((r: { name: string }) => r.name).sort(), ['member', 'reader'], 'defaults to the token roles');
  // Zed's Keystone links a credential at /v3/application_credentials/{id} (found by the differential test).
  assert.equal(body.links.self, `${PUBLIC_URL}/v3/application_credentials/${id}`);
  assert.equal(body.user_id, demoId);

  const shown = await api(ks, demo, 'GET', `/v3/users/${demoId}/application_credentials/${id}`);
  assert.equal(shown.statusCode, 200);
  assert.ok(!('secret' in shown.json().application_credential));
  assert.ok(!shown.body.includes(secret));
  const listed = await api(ks, demo, 'GET', `/v3/users/${demoId}/application_credentials?name=ci`);
  assert.deepEqual(listed.json().application_credentials.map((c: { id: string }) => c.id), [id]);
  assert.ok(!listed.body.includes(secret));
  assert.deepEqual((await api(ks, demo, 'GET', `/v3/users/${demoId}/application_credentials?name=nope`)).json().application_credentials, []);

  const stored = ks.state.appCreds.get(id)!;
  assert.ok(!JSON.stringify(stored).includes(secret));
  assertKeystoneError(await api(ks, demo, 'POST', `/v3/users/${demoId}/application_credentials`, { application_credential: { name: 'ci' } }), 409);

  // A caller-chosen secret works too.
  const chosen = await createCred(ks, demo, demoId, { name: 'chosen', secret: 'my-own-secret' });
  assert.equal(chosen.secret, 'my-own-secret');
  await credToken(ks, chosen.id, 'my-own-secret');
});

test('who may create, read and delete', async () => {
  const ks = await sim();
  const demoId = ks.state.userId('demo');
  const demo = await tokenFor(ks, 'demo');
  const admin = await tokenFor(ks, 'admin');
  const other = await tokenFor(ks, 'other');
  const base = `/v3/users/${demoId}/application_credentials`;
  assertKeystoneError(await api(ks, admin, 'POST', base, { application_credential: { name: 'x' } }), 403);
  assertKeystoneError(await api(ks, other, 'POST', base, { application_credential: { name: 'x' } }), 403);
  assertKeystoneError(await api(ks, demo, 'POST', base, { application_credential: { name: 'x', roles: [{ name: 'admin' }] } }), 400);
  assertKeystoneError(await api(ks, demo, 'POST', base, { application_credential: { name: 'x', roles: [{ name: 'ghost' }] } }), 404);
  assertKeystoneError(await api(ks, demo, 'POST', base, { application_credential: {} }), 400);
  const { id } = await createCred(ks, demo, demoId, { name: 'mine' });

  assertKeystoneError(await api(ks, other, 'GET', base), 403);
  assertKeystoneError(await api(ks, other, 'GET', `${base}/${id}`), 403);
  assertKeystoneError(await api(ks, other, 'DELETE', `${base}/${id}`), 403);
  assert.equal((await api(ks, admin, 'GET', base)).json().application_credentials.length, 1);
  assertKeystoneError(await api(ks, demo, 'GET', `${base}/nope`), 404);
  assert.equal((await api(ks, demo, 'DELETE', `${base}/${id}`)).statusCode, 204);
  assertKeystoneError(await api(ks, demo, 'DELETE', `${base}/${id}`), 404);

  // As Keystone: one credential is judged by its real owner, not by the user its path names.
  const otherBase = `/v3/users/${ks.state.userId('other')}/application_credentials`;
  const { id: second } = await createCred(ks, demo, demoId, { name: 'second' });
  assert.equal((await api(ks, demo, 'GET', `${otherBase}/${second}`)).statusCode, 200, 'its owner, under another user\'s path');
  assertKeystoneError(await api(ks, other, 'GET', `${otherBase}/${second}`), 403);
  assertKeystoneError(await api(ks, other, 'DELETE', `${otherBase}/${second}`), 403);
  assert.equal((await api(ks, admin, 'DELETE', `${otherBase}/${second}`)).statusCode, 204, 'an admin, under any path');
  assert.equal(ks.state.appCreds.get(second), undefined);
});

test('auth with an app credential: by id or name+user, project-scoped, no scope allowed, restricted', async () => {
  const ks = await sim();
  const demoId = ks.state.userId('demo');
  const demo = await tokenFor(ks, 'demo');
  const { id, secret } = await createCred(ks, demo, demoId, { name: 'ci' });

  const { token, body } = await credToken(ks, id, secret);
  assert.deepEqual(body.methods, ['application_credential']);
  assert.equal(body.project.id, ks.state.projectId('demo'));
  assert.deepEqual(body.application_credential, { id, name: 'ci', restricted: true });
  assert.deepEqual(roleNames({ token: body }), ['member', 'reader']);

  const byName = await issueRaw(ks, {
    identity: {
      methods: ['application_credential'],
      application_credential: { name: 'ci', secret, user: { name: 'demo', domain: { name: 'Default' } } },
    },
  });
  assert.equal(byName.statusCode, 201, byName.body);
  const byNameUserId = await issueRaw(ks, {
    identity: { methods: ['application_credential'], application_credential: { name: 'ci', secret, user: { id: demoId } } },
  });
  assert.equal(byNameUserId.statusCode, 201, byNameUserId.body);

  assertKeystoneError(await issueRaw(ks, byId(id, 'wrong')), 401);
  assertKeystoneError(await issueRaw(ks, byId('nope', secret)), 401);
  assertKeystoneError(await issueRaw(ks, { ...byId(id, secret), scope: projectScope('demo') }), 401);

  // Tokens from the credential cannot rescope, and (restricted) cannot manage app credentials.
  const rescope = await issueRaw(ks, { identity: { methods: ['token'], token: { id: token } }, scope: projectScope('demo') });
  assertKeystoneError(rescope, 403);
  const reissue = await issueRaw(ks, { identity: { methods: ['token'], token: { id: token } } });
  assert.equal(reissue.statusCode, 201);
  assert.equal(reissue.json().token.application_credential.id, id);
  const base = `/v3/users/${demoId}/application_credentials`;
  assertKeystoneError(await api(ks, token, 'POST', base, { application_credential: { name: 'child' } }), 403);
  assertKeystoneError(await api(ks, token, 'DELETE', `${base}/${id}`), 403);
  assert.equal((await api(ks, token, 'GET', base)).statusCode, 200);

  // Unrestricted ones may.
  const free = await createCred(ks, demo, demoId, { name: 'free', unrestricted: true });
  const freeToken = (await credToken(ks, free.id, free.secret)).token;
  assert.equal((await credToken(ks, free.id, free.secret)).body.application_credential.restricted, false);
  const child = await createCred(ks, freeToken, demoId, { name: 'child' });
  assert.equal((await api(ks, freeToken, 'DELETE', `${base}/${child.id}`)).statusCode, 204);
});

test('app credential tokens carry roles ∩ current roles; removal or deletion invalidates them', async () => {
  const ks = await sim();
  const { state } = ks;
  const demoId = state.userId('demo');
  const demoProject = state.projectId('demo');
  const service = await tokenFor(ks, 'magnum');
  const demo = await tokenFor(ks, 'demo');

  const memberCred = await createCred(ks, demo, demoId, { name: 'member', roles: [{ name: 'member' }] });
  // Keystone shows the roles as asked; its tokens carry the implied ones too (below).
  assert.deepEqual(memberCred.body.roles.map((r: { name: string }) => r.name), ['member'], 'the roles as asked');
  const readerCred = await createCred(ks, demo, demoId, { name: 'reader', roles: [{ id: state.roleId('reader') }] });
  const memberToken = (await credToken(ks, memberCred.id, memberCred.secret)).token;
  const readerToken = await credToken(ks, readerCred.id, readerCred.secret);
  assert.deepEqual(roleNames({ token: readerToken.body }), ['reader']);

  const validated = await validate(ks, service, memberToken);
  assert.equal(validated.statusCode, 200);
  assert.equal(validated.json().token.application_credential.id, memberCred.id);
  assert.deepEqual(roleNames(validated.json()), ['member', 'reader'], 'the token carries the implied role');

  // demo is demoted to reader: the member credential's token shrinks to reader.
  state.unassignRole(demoId, demoProject, 'member');
  state.assignRole(demoId, demoProject, 'reader');
  assert.deepEqual(roleNames((await validate(ks, service, memberToken)).json()), ['reader']);
  // No role left: validation is 404 and new auth is 401.
  state.unassignRole(demoId, demoProject, 'reader');
  assertKeystoneError(await validate(ks, service, memberToken), 404);
  assertKeystoneError(await issueRaw(ks, byId(memberCred.id, memberCred.secret)), 401);
  state.assignRole(demoId, demoProject, 'member');
  assert.equal((await validate(ks, service, memberToken)).statusCode, 200);

  // Deleting the credential kills its tokens.
  const admin = await tokenFor(ks, 'admin');
  assert.equal((await api(ks, admin, 'DELETE', `/v3/users/${demoId}/application_credentials/${memberCred.id}`)).statusCode, 204);
  assertKeystoneError(await validate(ks, service, memberToken), 404);
  assertKeystoneError(await issueRaw(ks, byId(memberCred.id, memberCred.secret)), 401);
  assert.equal((await validate(ks, service, readerToken.token)).statusCode, 200);

  // Deleting the user deletes the rest.
  assert.equal((await api(ks, admin, 'DELETE', `/v3/users/${demoId}`)).statusCode, 204);
  assert.equal(state.appCreds.get(readerCred.id), undefined);
  assertKeystoneError(await validate(ks, service, readerToken.token), 404);
});

test('an app credential expiry caps its tokens and then refuses them', async () => {
  const clock = new Clock(Date.parse('2030-01-01T00:00:00Z'));
  const ks = await sim({ now: clock.now });
  const demoId = ks.state.userId('demo');
  const demo = await tokenFor(ks, 'demo');
  const cred = await createCred(ks, demo, demoId, { name: 'brief', expires_at: '2030-01-01T00:10:00' });
  assert.match(cred.body.expires_at, ISO_MICRO);
  assert.equal(cred.body.expires_at, '2030-01-01T00:10:00.000000Z');
  const { token, body } = await credToken(ks, cred.id, cred.secret);
  assert.equal(body.expires_at, '2030-01-01T00:10:00.000000Z');
  clock.advance(601);
  const service = await tokenFor(ks, 'magnum');
  assertKeystoneError(await issueRaw(ks, byId(cred.id, cred.secret)), 401);
  assertKeystoneError(await validate(ks, service, token, { query: '?allow_expired=1' }), 404);
  assertKeystoneError(await api(ks, demo, 'POST', `/v3/users/${demoId}/application_credentials`, { application_credential: { name: 'bad', expires_at: 'soon' } }), 400);
});

test('access rules: tokens of such a credential validate only for a caller that enforces them (OpenStack-Identity-Access-Rules), which sees the rules', async () => {
  const ks = await sim();
  const demoId = ks.state.userId('demo');
  const demo = await tokenFor(ks, 'demo');
  const service = await tokenFor(ks, 'magnum');
  const rules = [{ service: 'container-infra', method: 'GET', path: '/v1/clusters' }];
  const ruled = await createCred(ks, demo, demoId, { name: 'ruled', access_rules: rules });
  assert.deepEqual(ruled.body.access_rules.map((r: Record<string, string>) => ({ service: r.service, method: r.method, path: r.path })), rules);
  const { token } = await credToken(ks, ruled.id, ruled.secret);

  assertKeystoneError(await validate(ks, service, token), 404);
  const enforced = await ks.app.inject({ method: 'GET', url: '/v3/auth/tokens', headers: { 'x-auth-token': service, 'x-subject-token': token, 'openstack-identity-access-rules': '1.0' } });
  assert.equal(enforced.statusCode, 200, enforced.body);
  assert.deepEqual(enforced.json().token.application_credential.access_rules.map((r: Record<string, string>) => r.path), ['/v1/clusters']);
  const old = await ks.app.inject({ method: 'GET', url: '/v3/auth/tokens', headers: { 'x-auth-token': service, 'x-subject-token': token, 'openstack-identity-access-rules': '0.9' } });
  assert.equal(old.statusCode, 404, 'a version before 1.0 does not count');
  // Keystone's own API: refused without the header; with it, only what an identity rule allows.
  assertKeystoneError(await api(ks, token, 'GET', `/v3/users/${demoId}/application_credentials`), 401);

  // A credential without rules (or with an empty list) validates for everyone, and its token shows none.
  const plain = await createCred(ks, demo, demoId, { name: 'plain', access_rules: [] });
  const plainToken = (await credToken(ks, plain.id, plain.secret)).token;
  const shown = await validate(ks, service, plainToken);
  assert.equal(shown.statusCode, 200, shown.body);
  assert.equal('access_rules' in shown.json().token.application_credential, false);

  assertKeystoneError(await api(ks, demo, 'POST', `/v3/users/${demoId}/application_credentials`, { application_credential: { name: 'bad', access_rules: [{ service: 'compute', method: 'GET', path: 'servers' }] } }), 400);
});
