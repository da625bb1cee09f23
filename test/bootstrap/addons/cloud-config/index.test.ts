// Add-on `cloud-config`: Secret kube-system/cloud-config holding cloud.conf and, with a private Keystone CA, the CA.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLOUD_CONFIG_SECRET, cloudConfigAddon } from '../../../../src/bootstrap/addons/cloud-config/index.js';
import { renderAddons } from '../../../../src/bootstrap/addons/framework.js';
import { addon, contextFor, rendered } from '../../../support/addons.js';
import { keystoneCa } from '../../../support/spec-fixtures.js';
import { specOf } from '../../../support/labels.js';

test('cloud-config: Secret kube-system/cloud-config holds cloud.conf and the Keystone CA', () => {
  const { addons } = rendered();
  const [secret] = addon(addons, 'cloud-config').objects as unknown as [{ metadata: { namespace: string }; data: Record<string, string> }];
  assert.equal(secret.metadata.namespace, 'kube-system');
  const conf = Buffer.from(secret.data['cloud.conf']!, 'base64').toString();
  assert.match(conf, /^\[Global\]\nauth-url=https:\/\/keystone\.example\.org:5000\/v3\n/);
  assert.equal(Buffer.from(secret.data['ca.crt']!, 'base64').toString(), keystoneCa);
});

test('cloud-config: always on and first, one Opaque Secret of exactly cloudconf\'s data (no CA key without a private CA)', () => {
  const spec = specOf({ labels: { cinder_csi_enabled: 'false', keystone_auth_enabled: 'false' } });
  assert.equal(CLOUD_CONFIG_SECRET, 'cloud-config');
  assert.deepEqual(spec.features.cloudConfig, { secret: 'cloud-config' });
  const ctx = contextFor(spec, false);
  const [first] = renderAddons([cloudConfigAddon], spec, ctx);
  assert.equal(first!.name, 'cloud-config');
  assert.equal(first!.objects.length, 1);
  const secret = first!.objects[0]! as unknown as { type: string; metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> };
  assert.deepEqual([secret.type, secret.metadata.name, secret.metadata.labels['app.kubernetes.io/managed-by']], ['Opaque', 'cloud-config', 'magnum-ts']);
  assert.deepEqual(Object.keys(secret.data), ['cloud.conf']);
  assert.equal(Buffer.from(secret.data['cloud.conf']!, 'base64').toString(), ctx.cloud.secretData['cloud.conf']);
});
