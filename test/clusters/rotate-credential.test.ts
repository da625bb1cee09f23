// A rotation of the cluster's application credential (src/clusters/rotate-credential.ts) through
// startRotateCredential: a new credential of the caller made in Keystone, then in one transaction the row
// switches to it (sealed) and records its owner, the replaced one kept as retired with its owner, the
// operation queued with both; refused before anything is made by the policy or the state table.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRotateCredential } from '../../src/clusters/rotate-credential.js';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { ApiError } from '../../src/domain/errors.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

const row = (uuid: string) => t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid });
const creds = () => t.keystone.state.appCreds.all().length;

test('the row switches to a new credential of the caller; the replaced one is retired with its owner; one operation', async () => {
  const fx = await nodegroupCluster(t);
  await t.app.services.clusters.update(fx.cluster.uuid, { app_cred_id: 'old-cred', app_cred_user_id: 'creator-id' });
  const demo = await callerOf(t, 'demo');
  const made = creds();
  await startRotateCredential(t.app.services, demo, { ...fx.cluster, app_cred_id: 'old-cred' });
  assert.equal(creds(), made + 1);
  const after = await row(fx.cluster.uuid);
  assert.notEqual(after.app_cred_id, 'old-cred');
  assert.equal(after.app_cred_user_id, demo.ctx.userId);
  assert.ok(t.app.services.secretBox.open(after.app_cred_secret!, `app-cred:${fx.cluster.uuid}`).length > 10, 'the secret sealed to this cluster');
  assert.deepEqual(after.retired_app_creds, [{ id: 'old-cred', user_id: 'creator-id' }]);
  assert.equal(after.status, 'UPDATE_IN_PROGRESS');
  const [op] = await t.app.services.db.query(`SELECT kind, params FROM operation WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.deepEqual([op.kind, op.params], ['rotate_credential', { credential: after.app_cred_id, owner: demo.ctx.userId, replaces: 'old-cred' }]);
  const [ev] = await t.app.services.db.query(`SELECT reason, message FROM cluster_event WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.equal(ev.reason, 'CredentialRotationAccepted');
  assert.match(ev.message, /replaces old-cred/);
  assert.ok(!ev.message.includes(t.app.services.secretBox.open(after.app_cred_secret!, `app-cred:${fx.cluster.uuid}`)), 'never the secret');
});

test('a cluster that had none: the rotation replaces nothing', async () => {
  const fx = await nodegroupCluster(t);
  await startRotateCredential(t.app.services, await callerOf(t, 'demo'), fx.cluster);
  const [op] = await t.app.services.db.query(`SELECT params FROM operation WHERE cluster_id = $1`, [fx.cluster.uuid]);
  assert.equal(op.params.replaces, null);
  assert.deepEqual((await row(fx.cluster.uuid)).retired_app_creds, []);
});

test('refused by policy or by the state table: nothing made in Keystone, nothing written', async () => {
  const made = creds();
  const fx = await nodegroupCluster(t, { status: 'CREATE_IN_PROGRESS' });
  await assert.rejects(startRotateCredential(t.app.services, await callerOf(t, 'demo'), fx.cluster), (e: unknown) => e instanceof ApiError && e.status === 409 && /a credential rotation is not possible/.test(e.message));
  const settled = await nodegroupCluster(t);
  await assert.rejects(startRotateCredential(t.app.services, await callerOf(t, 'demo-reader'), settled.cluster), (e: unknown) => e instanceof ApiError && e.status === 403);
  assert.equal(creds(), made);
  assert.deepEqual(await t.app.services.db.query(`SELECT id FROM operation WHERE cluster_id = ANY($1)`, [[fx.cluster.uuid, settled.cluster.uuid]]), []);
});

test('the table refusing under the lock (another operation began meanwhile): the credential just made is deleted', async () => {
  const fx = await nodegroupCluster(t);
  const made = creds();
  // The early check reads no active operation; by the time of the lock, one runs.
  const operations = { active: async () => [] };
  await t.app.services.db.query(`INSERT INTO operation (id, cluster_id, kind, params, state, attempts, created_at) VALUES (gen_random_uuid(), $1, 'resize', '{}', 'running', 1, now())`, [fx.cluster.uuid]);
  await assert.rejects(startRotateCredential({ ...t.app.services, operations }, await callerOf(t, 'demo'), fx.cluster), (e: unknown) => e instanceof ApiError && e.status === 409);
  assert.equal(creds(), made, 'made, then deleted');
});
