// Core module `kms` (label barbican_kms_enabled, this service's own): Secrets encrypted at rest with a per-cluster
// Barbican key through barbican-kms-plugin, whose image (and its credential agent's) follow the minor and the mirror.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION_MATRIX } from '../../../src/cluster-spec/versions.js';
import { kmsModule } from '../../../src/features/kms/module.js';
import { coreModules } from '../../../src/cluster-spec/registry.js';
import { rejects, specOf } from '../../support/labels.js';

test('kms: off by default; the plugin of the minor\'s cloud-provider release and busybox as its agent, upstream or mirrored', () => {
  assert.deepEqual(specOf({ labels: { kube_tag: 'v1.34.8' } }).kms, {
    enabled: false,
    image: `registry.k8s.io/provider-os/barbican-kms-plugin:${VERSION_MATRIX['1.34'].cloudProvider}`,
    agentImage: `docker.io/library/busybox:${VERSION_MATRIX['1.34'].busybox}`,
  });
  const mirrored = specOf({ labels: { barbican_kms_enabled: 'true', container_infra_prefix: 'mirror.example.org/k8s' } }).kms;
  assert.deepEqual(mirrored, { enabled: true, image: `mirror.example.org/k8s/barbican-kms-plugin:${VERSION_MATRIX['1.35'].cloudProvider}`, agentImage: `mirror.example.org/k8s/busybox:${VERSION_MATRIX['1.35'].busybox}` });
  rejects({ barbican_kms_enabled: 'encrypt' }, 'barbican_kms_enabled', /boolean/);
});

test('the module: the spec\'s kms section, resolved after kubernetes (it reads the minor\'s row), from its one label', () => {
  assert.deepEqual([kmsModule.key, kmsModule.kind, Object.keys(kmsModule.labels)], ['kms', 'core', ['barbican_kms_enabled']]);
  const keys = coreModules().map((m) => m.key);
  assert.ok(keys.indexOf('kms') > keys.indexOf('kubernetes'));
});
