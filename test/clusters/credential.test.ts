// The cluster's own application credential (src/clusters/credential.ts), made in the Keystone emulator with
// the caller's token: named after the cluster, carrying only member and reader of the caller's roles;
// refused for a restricted credential or a caller without member; deleted best effort; Keystone's refusal
// and absence as the API's errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createClusterCredential, credentialRefusal, deleteClusterCredential } from '../../src/clusters/credential.js';
import { ApiError } from '../../src/domain/errors.js';
import { CallerClouds } from '../../src/openstack/caller.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { authContext } from '../support/contexts.js';
import { closedPort } from '../support/net.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

const is = (status: number, id: string) => (e: unknown) => e instanceof ApiError && e.status === status && e.id === id;

test('credentialRefusal: a restricted application credential (400), no member role (403 naming it); else none', () => {
  assert.equal(credentialRefusal({ ctx: authContext(), token: 't' }), undefined);
  assert.equal(credentialRefusal({ ctx: authContext({ applicationCredential: { id: 'ac', restricted: false, accessRules: null } }), token: 't' }), undefined);
  const restricted = credentialRefusal({ ctx: authContext({ applicationCredential: { id: 'ac', restricted: true, accessRules: null } }), token: 't' });
  assert.deepEqual([restricted?.status, restricted?.id], [400, 'restricted_application_credential']);
  const reader = credentialRefusal({ ctx: authContext({ roles: ['reader'] }), token: 't' });
  assert.deepEqual([reader?.status, reader?.id], [403, 'cluster_credential_role']);
  assert.match(reader!.message, /needs the role member/);
});

test('made as the caller, named after the cluster (with a suffix for a rotation), member and reader only; deleted', async () => {
  const admin = await callerOf(t, 'admin');
  const uuid = randomUUID();
  const made = await createClusterCredential(t.app.services.clouds, admin, uuid, '-rotated-1');
  assert.ok(made.id && made.secret);
  const stored = t.keystone.state.appCreds.all().find((c) => c.id === made.id)!;
  assert.equal(stored.name, `${uuid}-rotated-1`);
  assert.equal(stored.userId, admin.ctx.userId);
  const roleNames = stored.roleIds.map((id) => [...t.keystone.state.roles.values()].find((r) => r.id === id)?.name);
  assert.ok(roleNames.includes('member') && !roleNames.includes('admin'), JSON.stringify(roleNames));
  await deleteClusterCredential(t.app.services.clouds, admin, made.id);
  assert.equal(t.keystone.state.appCreds.all().some((c) => c.id === made.id), false);
  await deleteClusterCredential(t.app.services.clouds, admin, made.id);
});

test('refused before Keystone is asked; Keystone unreachable is a 503', async () => {
  const before = t.keystone.state.appCreds.all().length;
  const reader = await callerOf(t, 'demo-reader');
  await assert.rejects(createClusterCredential(t.app.services.clouds, reader, randomUUID()), is(403, 'cluster_credential_role'));
  assert.equal(t.keystone.state.appCreds.all().length, before);
  const demo = await callerOf(t, 'demo');
  const down = new CallerClouds({ interface: 'public', timeoutMs: 2000, keystone: { authUrl: `http://127.0.0.1:${await closedPort()}/v3`, timeoutMs: 2000 } });
  await assert.rejects(createClusterCredential(down, demo, randomUUID()), is(503, 'keystone_unavailable'));
  await deleteClusterCredential(down, demo, 'whatever');
});
