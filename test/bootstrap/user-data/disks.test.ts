// The Cinder volumes a node gets beside its root disk, in the order the guest sees them (/dev/vdb, /dev/vdc):
// a control plane's etcd volume, then the container runtime's; each formatted once and mounted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { mountUnitName, nodeDisks } from '../../../src/bootstrap/user-data/disks.js';
import { renderUserData } from '../../../src/bootstrap/user-data/userdata.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { input, pki } from '../../support/spec-fixtures.js';
import { bootstrapScriptOf } from '../../support/node-files.js';
import { endpointAndToken as common } from '../../support/user-data.js';

test('docker_volume_size: a runtime volume formatted and mounted at /var/lib/containerd, after the etcd volume on control planes', () => {
  const { spec } = parseClusterSpec(input({ labels: { etcd_volume_size: '10', docker_volume_type: 'ssd' }, cluster: { docker_volume_size: 40 } }));
  assert.deepEqual(spec.nodes.runtimeVolume, { sizeGb: 40, type: 'ssd' });
  type Disks = { fs_setup: { label: string; device: string }[]; mounts: string[][] };
  const cp = parse(renderUserData(spec, { ...common, role: 'init', nodeName: 'cp', pki })) as Disks;
  assert.deepEqual(cp.fs_setup.map((f) => [f.label, f.device]), [['etcd', '/dev/vdb'], ['containerd', '/dev/vdc']]);
  assert.deepEqual(cp.mounts.map((m) => [m[0], m[1]]), [['LABEL=etcd', '/var/lib/etcd'], ['LABEL=containerd', '/var/lib/containerd']]);
  const wk = parse(renderUserData(spec, { ...common, role: 'worker', nodeName: 'w', caCert: pki.ca.cert })) as Disks;
  assert.deepEqual(wk.fs_setup.map((f) => [f.label, f.device]), [['containerd', '/dev/vdb']]);
  // A group without a volume of its own (null) has none, whatever the cluster's.
  assert.equal((parse(renderUserData(spec, { ...common, role: 'worker', nodeName: 'w', caCert: pki.ca.cert, runtimeVolume: null })) as Partial<Disks>).fs_setup, undefined);
  assert.match(bootstrapScriptOf(renderUserData(spec, { ...common, role: 'worker', nodeName: 'w', caCert: pki.ca.cert })), /systemctl restart containerd/, 'containerd restarts on its volume');
});

test('nodeDisks: etcd on control planes only, the runtime volume after it; devices in that order from vdb', () => {
  const etcd = { sizeGb: 10, type: '' };
  const runtime = { sizeGb: 40, type: 'ssd' };
  assert.deepEqual(nodeDisks('init', etcd, runtime), [
    { label: 'etcd', device: '/dev/vdb', mountPoint: '/var/lib/etcd', volume: etcd },
    { label: 'containerd', device: '/dev/vdc', mountPoint: '/var/lib/containerd', volume: runtime },
  ]);
  assert.deepEqual(nodeDisks('control-plane', etcd, null).map((d) => d.device), ['/dev/vdb']);
  assert.deepEqual(nodeDisks('worker', etcd, runtime).map((d) => [d.label, d.device]), [['containerd', '/dev/vdb']]);
  assert.deepEqual(nodeDisks('worker', null, null), []);
});

test('mountUnitName: systemd\'s name of a mount point', () => {
  assert.equal(mountUnitName('/var/lib/etcd'), 'var-lib-etcd.mount');
  assert.equal(mountUnitName('/var/lib/containerd'), 'var-lib-containerd.mount');
});
