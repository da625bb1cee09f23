// Add-on `cinder-csi` (on by default): the Cinder CSI driver's RBAC, CSIDriver, controller and node plugin, and
// the default StorageClass; volumes tagged with the cluster uuid; images from labels, the minor's row or the mirror.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DRIVER, type CinderCsiSettings } from '../../../src/features/cinder-csi/addon.js';
import { VERSION_MATRIX } from '../../../src/cluster-spec/versions.js';
import { addon, contextFor, find, rendered } from '../../support/addons.js';
import { UUID } from '../../support/spec-fixtures.js';
import { rejects } from '../../support/labels.js';

test('cinder-csi: --cluster=<uuid>, default StorageClass, CSIDriver, sidecar tags from labels and mirror', () => {
  const { spec, addons } = rendered({ labels: { csi_provisioner_tag: 'v5.3.1', container_infra_prefix: 'mirror.example.org/k8s' } });
  const csi = addon(addons, 'cinder-csi');
  const text = JSON.stringify(csi.objects);
  assert.ok(text.includes(`"--cluster=${UUID}"`));
  assert.ok(text.includes('"mirror.example.org/k8s/csi-provisioner:v5.3.1"'));
  assert.ok(text.includes(`"${contextFor(spec).cloud.cinderCsi.image}"`));
  const sc = csi.objects.find((o) => o.kind === 'StorageClass')!;
  assert.equal(sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'], 'true');
  assert.equal(sc.provisioner, 'cinder.csi.openstack.org');
  assert.ok(csi.objects.some((o) => o.kind === 'CSIDriver' && o.metadata.name === 'cinder.csi.openstack.org'));
  assert.ok(csi.objects.findIndex((o) => o.kind === 'StorageClass') > csi.objects.findIndex((o) => o.kind === 'CSIDriver'));
});

test('cinder-csi settings: on, volumes kept at delete, images of the minor\'s row; each sidecar\'s tag label', () => {
  const row = VERSION_MATRIX['1.36'];
  const s = rendered({ labels: { kube_tag: 'v1.36.1' } }).spec.features.cinderCsi as CinderCsiSettings;
  assert.deepEqual(s, {
    enabled: true,
    deleteVolumes: false,
    images: {
      plugin: `registry.k8s.io/provider-os/cinder-csi-plugin:${row.cinderCsi}`,
      attacher: `registry.k8s.io/sig-storage/csi-attacher:${row.csiAttacher}`,
      provisioner: `registry.k8s.io/sig-storage/csi-provisioner:${row.csiProvisioner}`,
      snapshotter: `registry.k8s.io/sig-storage/csi-snapshotter:${row.csiSnapshotter}`,
      resizer: `registry.k8s.io/sig-storage/csi-resizer:${row.csiResizer}`,
      livenessProbe: `registry.k8s.io/sig-storage/livenessprobe:${row.csiLivenessProbe}`,
      nodeDriverRegistrar: `registry.k8s.io/sig-storage/csi-node-driver-registrar:${row.csiNodeDriverRegistrar}`,
    },
  });
  const tags = { csi_attacher_tag: 'v9.0.1', csi_snapshotter_tag: 'v9.0.2', csi_resizer_tag: 'v9.0.3', csi_node_driver_registrar_tag: 'v9.0.4', cinder_csi_plugin_tag: 'v1.35.7', cinder_csi_delete_volumes: 'true' };
  const t = rendered({ labels: tags }).spec.features.cinderCsi as CinderCsiSettings;
  assert.deepEqual([t.images.attacher, t.images.snapshotter, t.images.resizer, t.images.nodeDriverRegistrar, t.images.plugin, t.deleteVolumes], [
    'registry.k8s.io/sig-storage/csi-attacher:v9.0.1', 'registry.k8s.io/sig-storage/csi-snapshotter:v9.0.2', 'registry.k8s.io/sig-storage/csi-resizer:v9.0.3',
    'registry.k8s.io/sig-storage/csi-node-driver-registrar:v9.0.4', 'registry.k8s.io/provider-os/cinder-csi-plugin:v1.35.7', true,
  ]);
  rejects({ csi_attacher_tag: 'latest!' }, 'csi_attacher_tag', /image tag/);
  rejects({ cinder_csi_delete_volumes: 'sure' }, 'cinder_csi_delete_volumes', /boolean/);
});

test('cinder-csi objects: RBAC, then the CSIDriver, the workloads, the StorageClass last (binding when a pod lands, expandable, deleted with its claim)', () => {
  const csi = addon(rendered().addons, 'cinder-csi');
  const kinds = csi.objects.map((o) => o.kind);
  assert.deepEqual(kinds.slice(-4), ['CSIDriver', 'Deployment', 'DaemonSet', 'StorageClass']);
  assert.ok(kinds.slice(0, -4).every((k) => ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'].includes(k)));
  const driver = find<{ spec: Record<string, unknown> }>(csi, 'CSIDriver', DRIVER);
  assert.deepEqual(driver.spec, { attachRequired: true, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'] });
  const sc = find<Record<string, unknown>>(csi, 'StorageClass', 'csi-cinder-sc-delete');
  assert.deepEqual([sc.reclaimPolicy, sc.allowVolumeExpansion, sc.volumeBindingMode], ['Delete', true, 'WaitForFirstConsumer']);
  assert.ok(!rendered({ labels: { cinder_csi_enabled: 'false' } }).addons.some((a) => a.name === 'cinder-csi'));
});
