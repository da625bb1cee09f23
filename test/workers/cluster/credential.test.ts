// Whose application credential a cluster holds (issue 15 hole 3b): a rotation by a member who is not
// the creator makes a credential owned by that member; the row records it, the credential it replaced
// is kept with its own owner, and the delete removes both as the service user under their owners
// (Keystone keeps a credential under /v3/users/{owner}/application_credentials). Before, the old one
// stayed in Keystone for ever (its delete, as the rotator, was a swallowed 404) and the new one leaked
// at the cluster's delete (deleted under the creator's id). In memory: the row retires the credential before
// Keystone deletes it, so a run cut in between is finished by the next; deleteRetired.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ClusterEntity } from '../../../src/db/entities/cluster.js';
import { repositories } from '../../../src/db/repos/index.js';
import { CloudFactory } from '../../../src/steps/cloud.js';
import { deleteRetired, purgeCredential } from '../../../workers/cluster/credential.js';
import type { RunContext } from '../../../src/steps/step.js';
import { passwordToken, testApp, type TestApp } from '../../support/app.js';
import { settleCluster } from '../../support/settle.js';
import { startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

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

// ---- in memory, against the Keystone emulator ----

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

test('the delete\'s last step retires the current credential in the row before Keystone deletes it; a run cut right after Keystone\'s delete is finished by the next', async () => {
  const r = await stepRun(cloud);
  const row = r.db.clusters.get(r.uuid)!;
  const current = row.app_cred_id!;
  const ks = cloud.keystone.state;
  const older = (await ks.appCreds.create({ userId: row.user_id, name: `${r.uuid}-old`, projectId: r.project, roleIds: [ks.roleId('member')] })).cred.id;
  row.retired_app_creds = [{ id: older, user_id: row.user_id }];
  r.begin('delete');
  let cut = 0;
  r.hooks.afterCredentialDelete = async (id) => {
    if (id === current && cut++ === 0) {
      // What a worker killed here leaves: Keystone has it no more; the row names it only as retired.
      assert.equal(ks.appCreds.get(current), undefined);
      assert.equal(r.db.clusters.get(r.uuid)!.app_cred_id, null);
      throw new Error('killed');
    }
  };
  await assert.rejects(r.run(purgeCredential), /killed/);
  assert.equal(ks.appCreds.get(older), undefined, 'the older one went first');
  r.fresh();
  await r.run(purgeCredential);
  assert.deepEqual([row.app_cred_id, row.app_cred_secret, row.app_cred_user_id, row.retired_app_creds], [null, null, null, []]);
  assert.equal(r.ctx.cluster.app_cred_id, null);
  r.fresh();
  await r.run(purgeCredential);
});

test('deleteRetired deletes the retired credentials it is asked for, each forgotten by the row at once, and says which', async () => {
  const r = await stepRun(cloud);
  const row = r.db.clusters.get(r.uuid)!;
  const ks = cloud.keystone.state;
  const made = async (n: string) => (await ks.appCreds.create({ userId: row.user_id, name: `${r.uuid}-${n}`, projectId: r.project, roleIds: [ks.roleId('member')] })).cred.id;
  const [a, b] = [await made('a'), await made('b')];
  row.retired_app_creds = [{ id: a, user_id: row.user_id }, { id: b, user_id: row.user_id }, { id: 'gone-already', user_id: row.user_id }];
  r.fresh();
  const done = await deleteRetired(r.ctx, (x) => x.id !== b);
  assert.deepEqual(done.map((x) => x.id), [a, 'gone-already'], 'one already gone counts as deleted');
  assert.equal(ks.appCreds.get(a), undefined);
  assert.ok(ks.appCreds.get(b));
  assert.deepEqual(row.retired_app_creds.map((x) => x.id), [b]);
  assert.deepEqual(r.ctx.cluster.retired_app_creds.map((x) => x.id), [b]);
});
