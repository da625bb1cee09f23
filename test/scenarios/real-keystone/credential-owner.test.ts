// Deleting a cluster's application credentials against Debian's real Keystone (issue 15 hole 3b): a
// member who is not the creator rotates the credential; Keystone keeps the new one under that member,
// so it can only be deleted under that member's id. The worker's path (the service user, admin in
// its project: Keystone's identity:delete_application_credential is rule:admin_or_owner, judged on the
// credential's real owner) deletes the replaced one and the rotator's one under the owners the row
// records; the rotator's own token may not delete the replaced one (403: how it stayed for ever before).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ClusterEntity } from '../../../src/db/entities/cluster.js';
import { repositories } from '../../../src/db/repos/index.js';
import { CloudFactory } from '../../../src/steps/cloud.js';
import { purgeCredential } from '../../../workers/cluster/credential.js';
import type { RunContext } from '../../../src/steps/step.js';
import { apiOn, issueToken, keystoneCall, passwordLogin, startRealKeystone, type RealKeystone } from '../../support/real-keystone.js';
import { testApp, type TestApp } from '../../support/app.js';

describe('a rotated credential deleted under its owner, with the real Keystone', () => {
  let ks: RealKeystone;
  let t: TestApp;
  let demo: { token: string; userId: string };
  let second: { token: string; userId: string };

  before(async () => {
    ks = await startRealKeystone({ provider: 'fernet' });
    t = await testApp({ config: apiOn(ks) });
    const issued = await issueToken(ks, 'demo');
    demo = { token: issued.token, userId: issued.body.token.user.id };
    // A second member of project demo.
    const admin = (await issueToken(ks, 'admin')).token;
    const user = await keystoneCall(ks.authUrl, 'POST', '/users', { token: admin, body: { user: { name: 'demo-second', password: 'second-secret', domain_id: 'default', default_project_id: ks.projectIds.demo } } });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    const roles = await keystoneCall(ks.authUrl, 'GET', '/roles?name=member', { token: admin });
    const member = roles.body.roles[0].id as string;
    const grant = await keystoneCall(ks.authUrl, 'PUT', `/projects/${ks.projectIds.demo}/users/${user.body.user.id}/roles/${member}`, { token: admin });
    assert.equal(grant.status, 204, JSON.stringify(grant.body));
    const login = await passwordLogin(ks, { name: 'demo-second', password: 'second-secret' }, { project: { id: ks.projectIds.demo } });
    second = { token: login.token, userId: user.body.user.id };
  });

  after(async () => {
    await t?.close();
    await ks?.stop();
  });

  const call = (token: string, method: 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url, headers: { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' }, ...(payload ? { payload } : {}) });
  /** The credential as its owner sees it: 200 or 404. */
  const owned = async (owner: { token: string; userId: string }, id: string) =>
    (await keystoneCall(ks.authUrl, 'GET', `/users/${owner.userId}/application_credentials/${id}`, { token: owner.token })).status;

  it('the service user deletes each credential under the owner the row records; the rotator may not delete the one it replaced', async () => {
    const tpl = await call(demo.token, 'POST', '/v1/clustertemplates', { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true });
    assert.equal(tpl.statusCode, 201, tpl.body);
    const made = await call(demo.token, 'POST', '/v1/clusters', { cluster_template_id: tpl.json().uuid, name: 'owned' });
    assert.equal(made.statusCode, 202, made.body);
    const uuid = made.json().uuid as string;
    const repo = t.app.services.db.getRepository(ClusterEntity);
    // Settled, as a worker would leave it (a rotation needs a settled cluster).
    await repo.update({ uuid }, { status: 'CREATE_COMPLETE' });
    await t.app.services.db.query(`UPDATE operation SET state = 'succeeded', finished_at = now() WHERE cluster_id = $1`, [uuid]);
    const first = (await repo.findOneByOrFail({ uuid })).app_cred_id!;
    assert.equal(await owned(demo, first), 200);

    const rotated = await call(second.token, 'PATCH', `/v1/credentials/${uuid}`);
    assert.equal(rotated.statusCode, 202, rotated.body);
    const row = await repo.findOneByOrFail({ uuid });
    const fresh = row.app_cred_id!;
    assert.equal(await owned(second, fresh), 200, 'Keystone keeps the new credential under the rotating member');
    assert.equal(row.app_cred_user_id, second.userId);
    assert.deepEqual(row.retired_app_creds, [{ id: first, user_id: demo.userId }]);

    // What the rotation did before: delete the replaced credential with the rotator's token. Keystone
    // judges by the credential's real owner (whatever user the path names): the rotator is not it.
    for (const path of [second.userId, demo.userId]) {
      const refused = await keystoneCall(ks.authUrl, 'DELETE', `/users/${path}/application_credentials/${first}`, { token: second.token });
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
    }
    assert.equal(await owned(demo, first), 200, 'and it stays');
    // The path's user does not count for reads either: the owner reads it under another user's path,
    // the creator (not its owner, not admin) is refused under its own (the emulator does the same).
    assert.equal((await keystoneCall(ks.authUrl, 'GET', `/users/${demo.userId}/application_credentials/${fresh}`, { token: second.token })).status, 200);
    assert.equal((await keystoneCall(ks.authUrl, 'GET', `/users/${demo.userId}/application_credentials/${fresh}`, { token: demo.token })).status, 403);

    const factory = new CloudFactory(t.config);

    await purgeCredential.run({ cluster: row, cloudFactory: factory, repos: repositories(t.app.services.db) } as unknown as RunContext);
    assert.equal(await owned(demo, first), 404, 'the replaced credential is deleted');
    assert.equal(await owned(second, fresh), 404, 'the rotating member\'s credential is deleted');
    const after = await repo.findOneByOrFail({ uuid });
    assert.deepEqual([after.app_cred_id, after.app_cred_user_id, after.retired_app_creds], [null, null, []]);
  });
});
