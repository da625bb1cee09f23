// The rotation of a cluster's application credential (workers/cluster/rotate-credential.ts): which workloads
// consume the credential (those whose pods read a Secret holding it, by the checksum they carry); and a rotation
// run in memory on a cluster made against the simulated cloud and Kubernetes: the Secrets get the new credential,
// the worker waits until every consumer's pods run with it, then deletes the replaced one in Keystone, events
// telling each phase. (With KMS, through the API: test/scenarios/credential-rotation.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { K8sObject } from '../../../src/bootstrap/addons/framework.js';
import { SECRETS_CHECKSUM } from '../../../src/bootstrap/addons/secret-checksums.js';
import { renderClusterAddons } from '../../../workers/cluster/bootstrap.js';
import { credentialConsumers, ROLLOUT_DEADLINE_MS, rotateCredentialOperation } from '../../../workers/cluster/rotate-credential.js';
import { create, startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (name: string, value: string): K8sObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'kube-system' }, data: { 'cloud.conf': b64(value) } });
const workload = (kind: string, name: string, reads: string, checksum?: string): K8sObject => ({
  apiVersion: 'apps/v1', kind, metadata: { name, namespace: 'kube-system' },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name }, annotations: checksum ? { [SECRETS_CHECKSUM]: checksum } : {} }, spec: { containers: [{ name }], volumes: [{ name: 'conf', secret: { secretName: reads } }] } },
  },
});

test('the consumers: workloads whose pods read a Secret holding the credential and carry the checksum; no others', () => {
  const objects = [
    secret('cloud-config', '[Global]\napplication-credential-id=cred-1\n'),
    secret('other', 'nothing of it'),
    workload('DaemonSet', 'occm', 'cloud-config', 'sum-1'),
    workload('Deployment', 'unrelated', 'other', 'sum-2'),
    workload('Deployment', 'unmarked', 'cloud-config'),
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'kube-system' } },
  ];
  assert.deepEqual(credentialConsumers(objects, 'cred-1'), [{ kind: 'DaemonSet', namespace: 'kube-system', name: 'occm', selector: { app: 'occm' }, checksum: 'sum-1' }]);
  assert.deepEqual(credentialConsumers(objects, 'cred-2'), []);
});

test('a rotation in memory: published, every consumer rolled to the new credential, then the replaced one deleted in Keystone', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r);
  const row = r.db.clusters.get(r.uuid)!;
  const ks = cloud.keystone.state;
  const old = row.app_cred_id!;
  // What the API does: a new credential, the row switched to it, the replaced one kept as retired.
  const { cred, secret: fresh } = await ks.appCreds.create({ userId: row.user_id, name: `${r.uuid}-2`, projectId: r.project, roleIds: [ks.roleId('member')] });
  Object.assign(row, { app_cred_id: cred.id, app_cred_secret: cloud.factory.secretBox.seal(fresh, `app-cred:${r.uuid}`), retired_app_creds: [{ id: old, user_id: row.user_id }] });
  r.begin('rotate_credential');
  const consumers = credentialConsumers((await renderClusterAddons(r.ctx)).flatMap((a) => a.objects), cred.id);
  assert.ok(consumers.length >= 2, `the cloud provider and the CSI read it: ${consumers.map((c) => c.name).join(', ')}`);
  for (const step of rotateCredentialOperation.steps) {
    r.fresh();
    await r.run(step, { timeoutMs: 120_000 });
  }
  assert.equal(ks.appCreds.get(old), undefined, 'the replaced credential is deleted');
  assert.ok(ks.appCreds.get(cred.id), 'the new one stays');
  assert.deepEqual(row.retired_app_creds, []);
  const reasons = r.recorded.events.filter((e) => e.type === 'credential').map((e) => e.reason);
  assert.deepEqual(reasons, ['CredentialPublished', 'CredentialInUse', 'CredentialDeleted']);
  assert.equal(row.conditions.addons?.status, 'True');
  assert.match(row.conditions.addons?.message ?? '', new RegExp(cred.id));
  r.end();
});

test('the operation: publish, wait for the roll-out, then the agent and the retirement; twenty minutes at most', () => {
  assert.deepEqual(rotateCredentialOperation.steps.map((s) => s.name), ['credential_publish', 'credential_rollout', 'credential_agent', 'credential_retire']);
  assert.equal(ROLLOUT_DEADLINE_MS, 20 * 60_000);
});
