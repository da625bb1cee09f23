// The portal's calls to Keystone (src/keystone/portal-login.ts) against the emulator: a password login
// scoped or not (domains by name or id), an application credential's, refused credentials, rescoping to
// another of the user's projects, the projects, a revocation; Keystone unreachable is the API's 503.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { ApiError } from '../../src/domain/errors.js';
import { PortalKeystone } from '../../src/keystone/portal-login.js';
import { startKeystone } from '../support/app.js';
import { closedPort } from '../support/net.js';

let ks: KeystoneSim;
let portal: PortalKeystone;
before(async () => {
  ks = await startKeystone();
  portal = new PortalKeystone(`http://127.0.0.1:${(ks.app.server.address() as AddressInfo).port}/v3`, 5000);
});
after(() => ks.app.close());

const demo = { method: 'password' as const, username: 'demo', password: 'demo-secret', userDomain: 'Default' };

test('a password login: scoped to a named project (domain by name or id), else as Keystone scopes it; a wrong password is undefined', async () => {
  const scoped = await portal.login({ ...demo, project: 'demo' });
  assert.ok(scoped);
  assert.deepEqual([scoped.user.name, scoped.project?.name, scoped.roles.includes('member')], ['demo', 'demo', true]);
  assert.ok(scoped.expiresAt > Date.now());
  assert.equal((await portal.login({ ...demo, userDomain: 'default', project: 'demo', projectDomain: 'default' }))?.project?.id, scoped.project?.id);
  // No project named: no scope asked for (Keystone then uses the user's default project, if any).
  const unnamed = await portal.login(demo);
  assert.equal(unnamed?.user.name, 'demo');
  assert.equal(await portal.login({ ...demo, password: 'nope' }), undefined);
});

test('rescoping a held token to another project of the user; the user’s projects; not a project it lacks', async () => {
  const state = ks.state;
  const extra = state.createProject('demo-extra');
  state.assignRole(state.userId('demo'), extra, 'reader');
  const held = (await portal.login(demo))!;
  const projects = await portal.projects(held.token);
  assert.deepEqual(projects.map((p) => p.name).sort(), ['demo', 'demo-extra']);
  const rescoped = await portal.rescope(held.token, extra);
  assert.deepEqual([rescoped?.project?.id, rescoped?.roles], [extra, ['reader']]);
  assert.equal(await portal.rescope(held.token, state.projectId('other')), undefined);
  assert.deepEqual(await portal.projects('garbage'), []);
});

test('an application credential logs in to its own project', async () => {
  const token = (await portal.login({ ...demo, project: 'demo' }))!;
  const made = await ks.app.inject({
    method: 'POST',
    url: `/v3/users/${token.user.id}/application_credentials`,
    headers: { 'x-auth-token': token.token },
    payload: { application_credential: { name: 'portal-ac' } },
  });
  const { id, secret } = made.json().application_credential;
  const issued = await portal.login({ method: 'application_credential', id, secret });
  assert.equal(issued?.project?.name, 'demo');
  assert.equal(await portal.login({ method: 'application_credential', id, secret: 'wrong' }), undefined);
});

test('revoke: true once Keystone no longer knows the token (again too); the token then fails', async () => {
  const t = (await portal.login({ ...demo, project: 'demo' }))!;
  assert.equal(await portal.revoke(t.token), true);
  assert.equal(await portal.revoke(t.token), true);
  assert.equal(await portal.rescope(t.token, t.project!.id), undefined);
});

test('Keystone unreachable: the API’s 503 for logins and project lists; a revocation is false', async () => {
  const down = new PortalKeystone(`http://127.0.0.1:${await closedPort()}/v3`, 2000);
  const is503 = (e: unknown) => e instanceof ApiError && e.status === 503 && e.id === 'keystone_unavailable';
  await assert.rejects(down.login(demo), is503);
  await assert.rejects(down.projects('t'), is503);
  assert.equal(await down.revoke('t'), false);
});
