// Barbican KMS's key (src/features/kms/steps.ts, label barbican_kms_enabled), with an in-memory run context
// against the simulated Barbican: the cluster's AES-256 key stored once under its name and recorded, found by that
// name after a crash rather than stored twice; nothing without the label; a cloud without Barbican failing on the
// control plane; what a control plane's plugin is given; and the purge of the recorded key and any of its name.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
// The registry first, as every entry point loads it (a feature's steps import the spec's parser, which imports it).
import '../../../src/features/registry.js';
import { ensureKmsKey, kmsInput, kmsKeyId, kmsKeyName, purgeKmsKey } from '../../../src/features/kms/steps.js';
import { StepFailure } from '../../../src/steps/errors.js';
import { Crash, crashAfterCreate, recordedOf, startStepCloud, stepRun, withoutService, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const KMS = { template: { labels: { barbican_kms_enabled: 'true' } } };
const secretsOf = (project: string) => [...cloud.sims.barbican.state.secrets.values()].filter((s) => s.projectId === project);

test('the key: AES-256, stored once under the cluster\'s name and recorded; a store never recorded is found by its name', async () => {
  const r = await stepRun(cloud, KMS);
  const made = crashAfterCreate(r, 'secret');
  await assert.rejects(r.run(ensureKmsKey), Crash);
  r.hooks.afterCreate = undefined;
  r.fresh();
  await r.run(ensureKmsKey);
  const [key] = secretsOf(r.project);
  assert.equal(secretsOf(r.project).length, 1, 'stored once');
  assert.deepEqual([key!.name, key!.secretType, key!.algorithm, key!.bitLength, Buffer.from(key!.payload, 'base64').length], [kmsKeyName(r.uuid), 'symmetric', 'aes', 256, 32]);
  assert.deepEqual(await recordedOf(r, 'secret'), [[kmsKeyName(r.uuid), made[0]]]);
  assert.equal(await kmsKeyId(r.ctx), made[0]);
  const input = await kmsInput(r.ctx);
  assert.match(input?.cloudConf ?? '', new RegExp(made[0]!), 'the plugin\'s cloud.conf names the key');
  assert.match(input?.cloudConf ?? '', new RegExp(r.ctx.cluster.app_cred_id!));
  r.fresh();
  await r.run(ensureKmsKey);
  assert.equal(secretsOf(r.project).length, 1);
});

test('without the label: no key, no plugin; without Barbican: a failure on the control plane naming the label', async () => {
  const off = await stepRun(cloud);
  await off.run(ensureKmsKey);
  assert.deepEqual(secretsOf(off.project), []);
  assert.equal(await kmsInput(off.ctx), undefined);
  await assert.rejects(kmsKeyId(off.ctx, 'addons'), (e) => e instanceof StepFailure && e.reason === 'KmsKeyMissing' && e.condition === 'addons');

  await withoutService(cloud, 'key-manager', async () => {
    const r = await stepRun(cloud, KMS);
    await assert.rejects(r.run(ensureKmsKey), (e) => e instanceof StepFailure && e.reason === 'BarbicanUnavailable' && e.condition === 'control_plane' && /barbican_kms_enabled/.test(e.message));
  });
});

test('the purge deletes the recorded key and a key of its name never recorded; again, nothing fails', async () => {
  const r = await stepRun(cloud, KMS);
  await r.run(ensureKmsKey);
  r.ledger.forget(() => true);
  const other = await (await r.clients().barbican()).storeSecret({ name: 'someone-else', secret_type: 'opaque', payload: 'eA==', payload_content_type: 'application/octet-stream', payload_content_encoding: 'base64' } as never);
  r.begin('delete');
  await r.run(purgeKmsKey);
  assert.deepEqual(secretsOf(r.project).map((s) => s.name), ['someone-else']);
  assert.ok(other);
  await r.run(purgeKmsKey);
});
