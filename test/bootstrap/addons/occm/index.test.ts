// Add-on `occm`: openstack-cloud-controller-manager as a DaemonSet on the control planes, before any CNI (host
// network), with the cloud.conf of the cloud-config Secret and the cluster uuid as its cluster name.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ORDER } from '../../../../src/bootstrap/addons/framework.js';
import { occmAddon } from '../../../../src/bootstrap/addons/occm/index.js';
import { SECRETS_CHECKSUM } from '../../../../src/bootstrap/addons/secret-checksums.js';
import { addon, contextFor, find, rendered } from '../../../support/addons.js';
import { specOf } from '../../../support/labels.js';
import { UUID } from '../../../support/spec-fixtures.js';

test('occm: control-plane DaemonSet with the cluster UUID as cluster name, SA credentials and the mounted cloud.conf', () => {
  const { spec, addons } = rendered({ labels: { cloud_provider_tag: 'v1.35.9' } });
  const occm = addon(addons, 'occm');
  assert.deepEqual(occm.objects.map((o) => o.kind), ['ServiceAccount', 'ClusterRole', 'ClusterRole', 'ClusterRoleBinding', 'ClusterRoleBinding', 'DaemonSet']);
  const pod = (occm.objects.at(-1)!.spec as any).template.spec;
  const c = pod.containers[0];
  assert.equal(c.image, 'registry.k8s.io/provider-os/openstack-cloud-controller-manager:v1.35.9');
  assert.equal(c.image, contextFor(spec).cloud.occm.image);
  for (const a of [`--cluster-name=${UUID}`, '--cloud-provider=openstack', '--use-service-account-credentials=true', '--cloud-config=/etc/config/cloud.conf']) assert.ok(c.args.includes(a), a);
  assert.deepEqual(pod.nodeSelector, { 'node-role.kubernetes.io/control-plane': '' });
  assert.ok(pod.tolerations.some((t: { key: string }) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized'));
  assert.equal(pod.hostNetwork, true);
  assert.deepEqual(pod.volumes.find((v: { name: string }) => v.name === 'cloud-config-volume').secret, { secretName: 'cloud-config' });
});

test('occm: always on; its image follows the mirror and the minor\'s tag; it runs as a non-root user and rolls when cloud.conf changes', () => {
  const { spec, addons } = rendered({ labels: { container_infra_prefix: 'mirror.example.org/k8s', kube_tag: 'v1.36.1', keystone_auth_enabled: 'false', cinder_csi_enabled: 'false' } });
  assert.deepEqual(spec.features.occm, { serviceAccount: 'cloud-controller-manager' });
  const ds = find<any>(addon(addons, 'occm'), 'DaemonSet', 'openstack-cloud-controller-manager');
  const pod = ds.spec.template.spec;
  assert.equal(pod.containers[0].image, 'mirror.example.org/k8s/openstack-cloud-controller-manager:v1.36.0');
  assert.equal(pod.serviceAccountName, 'cloud-controller-manager');
  assert.deepEqual(pod.securityContext, { runAsUser: 1001 });
  assert.equal(pod.priorityClassName, 'system-cluster-critical');
  assert.equal(ds.metadata.namespace, 'kube-system');
  assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate' });
  assert.ok(pod.containers[0].volumeMounts.every((m: { readOnly?: boolean }) => m.readOnly === true), 'it writes nothing on the host');
  assert.match(ds.spec.template.metadata.annotations[SECRETS_CHECKSUM], /^[0-9a-f]{64}$/);
  const other = rendered({ labels: { container_infra_prefix: 'mirror.example.org/k8s', kube_tag: 'v1.36.1' } });
  assert.equal(contextFor(other.spec).cloud.occm.image, pod.containers[0].image);
});

test('occm renders its RBAC then its DaemonSet; the framework, not the add-on, stamps the Secret\'s checksum', () => {
  const spec = specOf({ labels: { keystone_auth_enabled: 'false', cinder_csi_enabled: 'false', dns_autoscaler_enabled: 'false', metrics_server_enabled: 'false' } });
  assert.equal(occmAddon.order, ORDER.occm);
  assert.equal(occmAddon.enabled(spec), true);
  const raw = occmAddon.render(spec, contextFor(spec));
  assert.deepEqual(raw.map((o) => o.kind), ['ServiceAccount', 'ClusterRole', 'ClusterRole', 'ClusterRoleBinding', 'ClusterRoleBinding', 'DaemonSet']);
  assert.equal((raw.at(-1)!.spec as any).template.metadata.annotations, undefined);
});
