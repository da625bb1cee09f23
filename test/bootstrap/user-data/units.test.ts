// A node's systemd units: the bootstrap that runs once, the mounts of its volumes before their users, and the
// containerd and kubelet units a node that installs at boot copies from the service's directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOOTSTRAP_SCRIPT_PATH, BOOTSTRAP_UNIT, bootstrapUnit, containerdUnit, kubeletKubeadmDropIn, kubeletUnit, MAGNUM_DIR, mountUnit, UNIT_FILES } from '../../../src/bootstrap/user-data/units.js';

const keys = (unit: string, key: string) => unit.split('\n').filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));

test('the bootstrap unit: once the network is online, not again once the node joined, to the console, without a start timeout', () => {
  const u = bootstrapUnit();
  assert.equal(BOOTSTRAP_UNIT, 'magnum-bootstrap.service');
  assert.deepEqual(keys(u, 'ExecStart'), [BOOTSTRAP_SCRIPT_PATH]);
  assert.deepEqual(keys(u, 'ConditionPathExists'), ['!/etc/kubernetes/kubelet.conf']);
  assert.deepEqual([keys(u, 'Type'), keys(u, 'RemainAfterExit'), keys(u, 'TimeoutStartSec')], [['oneshot'], ['yes'], ['0']]);
  assert.deepEqual([keys(u, 'StandardOutput'), keys(u, 'StandardError')], [['journal+console'], ['journal+console']]);
  assert.deepEqual(keys(u, 'WantedBy'), ['multi-user.target']);
  assert.ok(u.endsWith('\n'));
});

test('a volume\'s mount unit: by label, named for its mount point, before what keeps data there', () => {
  const vol = { sizeGb: 10, type: '' };
  const etcd = mountUnit({ label: 'etcd', device: '/dev/vdb', mountPoint: '/var/lib/etcd', volume: vol });
  assert.equal(etcd.name, 'var-lib-etcd.mount');
  assert.deepEqual([keys(etcd.contents, 'What'), keys(etcd.contents, 'Where'), keys(etcd.contents, 'Before')], [['/dev/disk/by-label/etcd'], ['/var/lib/etcd'], ['local-fs.target kubelet.service']]);
  const runtime = mountUnit({ label: 'containerd', device: '/dev/vdc', mountPoint: '/var/lib/containerd', volume: vol });
  assert.deepEqual(keys(runtime.contents, 'Before'), ['local-fs.target containerd.service']);
  assert.deepEqual(keys(runtime.contents, 'Options'), ['defaults,nofail,x-systemd.device-timeout=120']);
  assert.deepEqual(keys(runtime.contents, 'RequiredBy'), ['local-fs.target']);
});

test('containerd\'s and the kubelet\'s units for binaries under /usr/local; kubeadm\'s drop-in resets ExecStart to pass its flags', () => {
  assert.deepEqual(UNIT_FILES, { containerd: `${MAGNUM_DIR}/containerd.service`, kubelet: `${MAGNUM_DIR}/kubelet.service`, kubeletKubeadm: `${MAGNUM_DIR}/10-kubeadm.conf` });
  const c = containerdUnit();
  assert.deepEqual([keys(c, 'ExecStart'), keys(c, 'Type'), keys(c, 'Delegate'), keys(c, 'KillMode')], [['/usr/local/bin/containerd'], ['notify'], ['yes'], ['process']]);
  const k = kubeletUnit();
  assert.deepEqual(keys(k, 'ExecStart'), ['/usr/local/bin/kubelet']);
  assert.match(k, /After=network-online\.target containerd\.service/);
  const d = kubeletKubeadmDropIn();
  assert.deepEqual(keys(d, 'ExecStart'), ['', '/usr/local/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS']);
  assert.deepEqual(keys(d, 'EnvironmentFile'), ['-/var/lib/kubelet/kubeadm-flags.env']);
});
