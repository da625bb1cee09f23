// Cinder CSI's workloads: the controller (the sidecars beside the plugin, on a shared socket, the cluster uuid
// tagging volumes) and the node plugin on every node (privileged, kubelet's directories shared both ways).
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CinderCsiSettings } from '../../../src/features/cinder-csi/addon.js';
import { controllerDeployment, nodeDaemonSet } from '../../../src/features/cinder-csi/workloads.js';
import { CONTROLLER_SA, NODE_SA } from '../../../src/features/cinder-csi/rbac.js';

const images: CinderCsiSettings['images'] = { plugin: 'r/plugin:1', attacher: 'r/attacher:1', provisioner: 'r/provisioner:1', snapshotter: 'r/snapshotter:1', resizer: 'r/resizer:1', livenessProbe: 'r/probe:1', nodeDriverRegistrar: 'r/registrar:1' };

test('the controller: one replica surged, never down; the sidecars and the plugin on one socket; the plugin tags with the cluster and serves no node', () => {
  const d = controllerDeployment(images, 'the-uuid') as any;
  assert.deepEqual([d.metadata.name, d.metadata.namespace, d.spec.replicas], ['csi-cinder-controllerplugin', 'kube-system', 1]);
  assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
  const pod = d.spec.template.spec;
  assert.equal(pod.serviceAccountName, CONTROLLER_SA);
  assert.deepEqual(pod.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`), ['csi-attacher=r/attacher:1', 'csi-provisioner=r/provisioner:1', 'csi-snapshotter=r/snapshotter:1', 'csi-resizer=r/resizer:1', 'liveness-probe=r/probe:1', 'cinder-csi-plugin=r/plugin:1']);
  for (const c of pod.containers.slice(0, 5)) {
    assert.equal(c.args[0], '--csi-address=$(ADDRESS)', c.name);
    assert.deepEqual(c.env, [{ name: 'ADDRESS', value: '/csi/csi.sock' }]);
  }
  const plugin = pod.containers.at(-1);
  assert.ok(plugin.args.includes('--cluster=the-uuid') && plugin.args.includes('--provide-node-service=false'));
  assert.ok(plugin.args.includes('--cloud-config=/etc/config/cloud.conf'));
  assert.deepEqual(pod.volumes, [{ name: 'socket-dir', emptyDir: {} }, { name: 'secret-cinderplugin', secret: { secretName: 'cloud-config' } }]);
  assert.deepEqual(d.spec.selector.matchLabels, d.spec.template.metadata.labels);
});

test('the node plugin: everywhere, privileged, kubelet\'s directories mounted bidirectionally, registered with the kubelet', () => {
  const ds = nodeDaemonSet(images) as any;
  const pod = ds.spec.template.spec;
  assert.deepEqual([pod.serviceAccountName, pod.hostNetwork, pod.priorityClassName, pod.tolerations], [NODE_SA, true, 'system-node-critical', [{ operator: 'Exists' }]]);
  assert.deepEqual(pod.containers.map((c: { name: string }) => c.name), ['node-driver-registrar', 'liveness-probe', 'cinder-csi-plugin']);
  const registrar = pod.containers[0];
  assert.ok(registrar.args.includes('--kubelet-registration-path=/var/lib/kubelet/plugins/cinder.csi.openstack.org/csi.sock'));
  assert.deepEqual(registrar.env.find((e: { name: string }) => e.name === 'KUBE_NODE_NAME'), { name: 'KUBE_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } });
  const plugin = pod.containers[2];
  assert.ok(plugin.args.includes('--provide-controller-service=false'));
  assert.deepEqual(plugin.securityContext, { privileged: true, capabilities: { add: ['SYS_ADMIN'] }, allowPrivilegeEscalation: true });
  assert.deepEqual(plugin.volumeMounts.filter((m: { mountPropagation?: string }) => m.mountPropagation).map((m: { mountPath: string }) => m.mountPath), ['/var/lib/kubelet', '/dev']);
  assert.deepEqual(pod.volumes.find((v: { name: string }) => v.name === 'socket-dir').hostPath, { path: '/var/lib/kubelet/plugins/cinder.csi.openstack.org', type: 'DirectoryOrCreate' });
});
