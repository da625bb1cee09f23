// The Keystone client (src/openstack/keystone.ts) against the simulated Keystone: the user's application
// credentials (created restricted, the secret once, listed by name, read, a duplicate 409, deleted), a role the
// user lacks, and a project's record; the sessions it is given come from the caller's token (auth.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { tokenSessions } from '../../src/openstack/auth.js';
import type { CallRecord } from '../../src/openstack/http.js';
import { KeystoneClient } from '../../src/openstack/keystone.js';
import { failure } from '../support/openstack.js';
import { startCloud, type Cloud } from './cloud.js';

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

describe('keystone client', () => {
  test('application credentials: create (restricted, secret once), list by name, get, duplicate 409, delete', async () => {
    const { keystone, projectId } = await demoKeystone();
    const name = randomUUID();
    const cred = await keystone.createApplicationCredential({ name, roles: [{ name: 'member' }], description: 'cluster credential' });
    assert.equal(cred.name, name);
    assert.equal(cred.unrestricted, false);
    assert.equal(cred.project_id, projectId);
    assert.ok(cred.secret.length > 20);
    assert.ok(cred.roles.some((r) => r.name === 'member'));

    const listed = await keystone.listApplicationCredentials(name);
    assert.deepEqual(listed.map((c) => c.id), [cred.id]);
    assert.ok(!('secret' in listed[0]!), 'never shown again');
    assert.equal((await keystone.getApplicationCredential(cred.id)).name, name);
    assert.deepEqual(await keystone.listApplicationCredentials('no-such-name'), []);

    const dup = await failure(() => keystone.createApplicationCredential({ name }));
    assert.deepEqual([dup.status, dup.kind, dup.service], [409, 'conflict', 'identity']);

    assert.equal(await keystone.deleteApplicationCredential(cred.id), true);
    assert.equal(await keystone.deleteApplicationCredential(cred.id), false, 'already gone');
    assert.equal((await failure(() => keystone.getApplicationCredential(cred.id))).status, 404);
  });

  test('a role the user lacks is a 400; the own project is readable, another one is not', async () => {
    const { keystone, projectId } = await demoKeystone();
    const e = await failure(() => keystone.createApplicationCredential({ name: randomUUID(), roles: [{ name: 'admin' }] }));
    assert.equal(e.status, 400);
    const project = await keystone.getProject(projectId);
    assert.deepEqual([project.id, project.name, project.enabled], [projectId, 'demo', true]);
    assert.equal((await failure(() => keystone.getProject(cloud.projectId('other')))).status, 403);
  });
});
