// Whose application credential a cluster holds (issue 15 hole 3b): a rotation by a member who is not
// the creator makes a credential owned by that member; the row records it, the credential it replaced
// is kept with its own owner, and the delete removes both as the service user under their owners
// (Keystone keeps a credential under /v3/users/{owner}/application_credentials). Before, the old one
// stayed in Keystone for ever (its delete, as the rotator, was a swallowed 404) and the new one leaked
// at the cluster's delete (deleted under the creator's id).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ClusterEntity } from '../../../src/db/entities/cluster.js';
import { repositories } from '../../../src/db/repos/index.js';
import { CloudFactory } from '../../../src/steps/cloud.js';
import { purgeCredential } from '../../../workers/cluster/credential.js';
import type { RunContext } from '../../../src/steps/step.js';
import { passwordToken, testApp, type TestApp } from '../../support/app.js';
import { settleCluster } from '../../support/settle.js';

let t: TestApp;
let template: string;
let second: { id: string; token: string };

before(async () => {
  t = await testApp();
  const made = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true } });
  assert.equal(made.statusCode, 201, made.body);
  template = made.json().uuid;
  // Another member of the creator's project.
  const ks = t.keystone.state;
  const demo = ks.findProjectByName('demo', 'default')!.id;
  const id = ks.createUser('demo-second', 'second-secret', demo);
  ks.assignRole(id, demo, 'member');
  second = { id, token: await passwordToken(t.keystone, 'demo-second', 'second-secret', 'demo') };
});
after(async () => {
  await t.close();
});

const row = (uuid: string) => t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid });
const credential = (id: string) => t.keystone.state.appCreds.get(id);

test('a rotation by another member records that member as the owner; the delete removes both credentials under their owners', async () => {
  const created = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, name: 'owned' } });
  assert.equal(created.statusCode, 202, created.body);
  const uuid = created.json().uuid as string;
  await settleCluster(t.app, uuid);
  const first = await row(uuid);
  const creator = first.user_id;
  assert.equal(first.app_cred_user_id, creator, 'the creator owns the first credential');
  assert.equal(credential(first.app_cred_id!)?.userId, creator);

  const rotated = await t.app.inject({ method: 'PATCH', url: `/v1/credentials/${uuid}`, headers: { 'x-auth-token': second.token, 'openstack-api-version': 'container-infra latest' } });
  assert.equal(rotated.statusCode, 202, rotated.body);
  const now = await row(uuid);
  assert.notEqual(now.app_cred_id, first.app_cred_id);
  assert.equal(credential(now.app_cred_id!)?.userId, second.id, 'Keystone holds the new one under the rotating member');
  assert.equal(now.app_cred_user_id, second.id, 'and the row says so');
  assert.deepEqual(now.retired_app_creds, [{ id: first.app_cred_id, user_id: creator }], 'the replaced one is kept with its owner');

  // The delete's last step, as the worker runs it (the service user, admin).
  const factory = new CloudFactory(t.config);
  const ctx = { cluster: now, cloudFactory: factory, repos: repositories(t.app.services.db) } as unknown as RunContext;
  await purgeCredential.run(ctx);
  assert.equal(credential(first.app_cred_id!), undefined, 'the replaced credential is gone from Keystone');
  assert.equal(credential(now.app_cred_id!), undefined, 'the rotating member\'s credential is gone from Keystone');
  const after = await row(uuid);
  assert.deepEqual([after.app_cred_id, after.app_cred_user_id, after.retired_app_creds], [null, null, []]);
  // Again (a resumed delete): nothing left to do, nothing fails.
  await purgeCredential.run({ ...ctx, cluster: after } as RunContext);
});
