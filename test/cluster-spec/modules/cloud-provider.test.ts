// Core modules `cloudProvider` (the external OpenStack cloud provider: OCCM and Cinder CSI tags of the minor's
// release train, the cluster uuid as their cluster name) and `nodes` (counts, zones, boot/etcd/runtime volumes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION_MATRIX } from '../../../src/cluster-spec/versions.js';
import { cloudProviderModule, nodesModule } from '../../../src/cluster-spec/modules/cloud-provider.js';
import { coreModules } from '../../../src/cluster-spec/registry.js';
import { UUID } from '../../support/spec-fixtures.js';
import { parsed, rejects, specOf } from '../../support/labels.js';

test('bad label values are 400s naming the label: cloud_provider_enabled, cloud_provider_tag, availability_zone', () => {
  rejects({ cloud_provider_enabled: 'false' }, 'cloud_provider_enabled', /external OpenStack cloud provider/);
  rejects({ cloud_provider_tag: 'v1.34.1' }, 'cloud_provider_tag', /1\.35 release train/);
  rejects({ availability_zone: 'zone one' }, 'availability_zone', /spaces/);
  rejects({ cinder_csi_plugin_tag: 'v1.35.2', kube_tag: 'v1.36.1' }, 'cinder_csi_plugin_tag', /Kubernetes 1\.36 release train \(v1\.36\.x\), like v1\.36\.0/);
  rejects({ cloud_provider_tag: 'latest!' }, 'cloud_provider_tag', /image tag/);
});

test('cloud provider: the minor\'s tags, overridable within its release train; the cluster uuid as cluster name', () => {
  assert.deepEqual(specOf({ labels: { kube_tag: 'v1.34.8' } }).cloudProvider, { occmTag: VERSION_MATRIX['1.34'].cloudProvider, cinderCsiTag: VERSION_MATRIX['1.34'].cinderCsi, clusterName: UUID });
  assert.deepEqual(specOf({ labels: { cloud_provider_enabled: 'true', cloud_provider_tag: 'v1.35.9', cinder_csi_plugin_tag: 'v1.35.3' } }).cloudProvider, { occmTag: 'v1.35.9', cinderCsiTag: 'v1.35.3', clusterName: UUID });
});

test('nodes: counts from the cluster (1 each when absent), no zone, no volumes by default', () => {
  assert.deepEqual(specOf().nodes, { masterCount: 3, nodeCount: 2, availabilityZone: '', controlPlaneZones: [], workerZones: [], bootVolume: null, etcdVolume: null, runtimeVolume: null, runtimeVolumeType: '' });
  const n = specOf({ cluster: { master_count: undefined, node_count: undefined } }).nodes;
  assert.deepEqual([n.masterCount, n.nodeCount], [1, 1]);
});

test('nodes: boot and etcd volumes of a size (0 is none) and a type; a type without its size is ignored with a warning', () => {
  const n = specOf({ labels: { boot_volume_size: '40', boot_volume_type: 'fast', etcd_volume_size: '10' } }).nodes;
  assert.deepEqual([n.bootVolume, n.etcdVolume], [{ sizeGb: 40, type: 'fast' }, { sizeGb: 10, type: '' }]);
  assert.equal(specOf({ labels: { boot_volume_size: '0' } }).nodes.bootVolume, null);
  const { spec, warnings } = parsed({ labels: { etcd_volume_type: 'ssd' } });
  assert.equal(spec.nodes.etcdVolume, null);
  assert.deepEqual(warnings, ['Label etcd_volume_type is ignored without etcd_volume_size.']);
  rejects({ etcd_volume_size: '10', etcd_volume_type: 'fast;reboot' }, 'etcd_volume_type', /Cinder volume type name/);
  rejects({ boot_volume_size: '-1' }, 'boot_volume_size', /between 0 and 16384/);
});

test('nodes: the runtime volume is the cluster\'s docker_volume_size with docker_volume_type; the type alone is kept for node groups, without a warning', () => {
  assert.deepEqual(specOf({ cluster: { docker_volume_size: 40 } }).nodes.runtimeVolume, { sizeGb: 40, type: '' });
  const { spec, warnings } = parsed({ labels: { docker_volume_type: 'ssd' } });
  assert.deepEqual([spec.nodes.runtimeVolume, spec.nodes.runtimeVolumeType, warnings], [null, 'ssd', []]);
  assert.deepEqual(specOf({ cluster: { docker_volume_size: 20 }, labels: { docker_volume_type: 'ssd' } }).nodes.runtimeVolume, { sizeGb: 20, type: 'ssd' });
  assert.equal(specOf({ cluster: { docker_volume_size: null } }).nodes.runtimeVolume, null);
});

test('the modules and their labels: nodes first of all (the API load balancer reads the control planes\' count), the cloud provider after kubernetes (it reads the minor\'s row)', () => {
  assert.deepEqual(Object.keys(cloudProviderModule.labels), ['cloud_provider_enabled', 'cloud_provider_tag', 'cinder_csi_plugin_tag']);
  assert.deepEqual(Object.keys(nodesModule.labels), ['availability_zone', 'control_plane_availability_zones', 'worker_availability_zones', 'boot_volume_size', 'boot_volume_type', 'etcd_volume_size', 'etcd_volume_type', 'docker_volume_type']);
  const keys = coreModules().map((m) => m.key);
  assert.equal(keys[0], nodesModule.key);
  assert.ok(keys.indexOf(cloudProviderModule.key) > keys.indexOf('kubernetes'));
});
