// Manila CSI's workloads: the controller (provisioner and resizer beside the plugin) and, on every node, the
// plugin's node service forwarding to the NFS node plugin beside it; the Keystone CA mounted when there is one.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManilaCsiSettings } from '../../../src/features/manila-csi/addon.js';
import { CA_PATH, controllerStatefulSet, nodeDaemonSet } from '../../../src/features/manila-csi/workloads.js';
import { MANILA_CONTROLLER_SA, MANILA_NODE_SA } from '../../../src/features/manila-csi/rbac.js';

const s: ManilaCsiSettings = {
  enabled: true, deleteShares: false, shareType: 'default', shareNetworkId: null, shareClient: '10.0.0.0/24', clusterId: 'the-uuid',
  images: { plugin: 'r/manila:1', nfs: 'r/nfs:1', provisioner: 'r/provisioner:1', resizer: 'r/resizer:1', nodeDriverRegistrar: 'r/registrar:1' },
};
const names = (containers: { name: string }[]) => containers.map((c) => c.name);

test('the controller: one replica, the sidecars and the plugin (with the cluster id) on one socket, the node\'s NFS plugin directory beside', () => {
  const sts = controllerStatefulSet(s, false) as any;
  assert.deepEqual([sts.kind, sts.metadata.name, sts.spec.replicas, sts.spec.serviceName], ['StatefulSet', MANILA_CONTROLLER_SA, 1, MANILA_CONTROLLER_SA]);
  const pod = sts.spec.template.spec;
  assert.equal(pod.serviceAccountName, MANILA_CONTROLLER_SA);
  assert.deepEqual(names(pod.containers), ['csi-provisioner', 'csi-resizer', 'manila-csi-plugin']);
  assert.ok(pod.containers[2].args.includes('--cluster-id=the-uuid'));
  assert.deepEqual(pod.volumes.map((v: { name: string }) => v.name), ['socket-dir', 'nfs-plugin-dir']);
  assert.deepEqual(pod.containers[0].args.slice(0, 1), ['--csi-address=/csi/csi.sock']);
});

test('the node plugin: no API token, every node, the NFS plugin privileged with the pods\' mounts shared back to the host', () => {
  const ds = nodeDaemonSet(s, false) as any;
  const pod = ds.spec.template.spec;
  assert.deepEqual([pod.serviceAccountName, pod.automountServiceAccountToken, pod.hostNetwork, pod.tolerations], [MANILA_NODE_SA, false, true, [{ operator: 'Exists' }]]);
  assert.deepEqual(names(pod.containers), ['node-driver-registrar', 'manila-csi-plugin', 'nfs']);
  assert.ok(pod.containers[0].args.includes('--kubelet-registration-path=/var/lib/kubelet/plugins/nfs.manila.csi.openstack.org/csi.sock'));
  const nfs = pod.containers[2];
  assert.equal(nfs.securityContext.privileged, true);
  assert.deepEqual(nfs.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/var/lib/kubelet/pods').mountPropagation, 'Bidirectional');
  assert.deepEqual(nfs.env, [{ name: 'NODE_ID', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }]);
});

test('with a private Keystone CA both mount it from the cloud-config Secret where the credential Secret says', () => {
  assert.equal(CA_PATH, '/etc/manila-csi/ca.crt');
  for (const w of [controllerStatefulSet(s, true), nodeDaemonSet(s, true)] as any[]) {
    const pod = w.spec.template.spec;
    assert.deepEqual(pod.volumes.find((v: { name: string }) => v.name === 'keystone-ca').secret, { secretName: 'cloud-config', items: [{ key: 'ca.crt', path: 'ca.crt' }] }, w.kind);
    const plugin = pod.containers.find((c: { name: string }) => c.name === 'manila-csi-plugin');
    assert.ok(plugin.volumeMounts.some((m: { name: string; mountPath: string }) => m.name === 'keystone-ca' && m.mountPath === '/etc/manila-csi'), w.kind);
  }
});
