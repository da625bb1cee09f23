// Add-on `metrics-server` (on by default): the resource metrics API, trusting kubeadm's self-signed kubelet
// certificates.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ORDER } from '../../../src/bootstrap/addons/framework.js';
import { metricsServerAddon } from '../../../src/features/metrics-server/addon.js';
import { addon, find, rendered } from '../../support/addons.js';
import { rejects, specOf } from '../../support/labels.js';

test('metrics-server: APIService + Deployment trusting kubeadm self-signed kubelet certs', () => {
  const ms = addon(rendered().addons, 'metrics-server');
  assert.ok(ms.objects.some((o) => o.kind === 'APIService' && o.metadata.name === 'v1beta1.metrics.k8s.io'));
  const d = ms.objects.find((o) => o.kind === 'Deployment')!;
  assert.ok((d.spec as any).template.spec.containers[0].args.includes('--kubelet-insecure-tls'));
});

test('metrics-server: its RBAC (aggregated to the default view, edit and admin roles), the Service behind the APIService, the image of the row or the mirror; off by its label', () => {
  const ms = addon(rendered().addons, 'metrics-server');
  assert.deepEqual(ms.objects.map((o) => `${o.kind}/${o.metadata.name}`), [
    'ServiceAccount/metrics-server',
    'ClusterRole/system:aggregated-metrics-reader',
    'ClusterRole/system:metrics-server',
    'RoleBinding/metrics-server-auth-reader',
    'ClusterRoleBinding/metrics-server:system:auth-delegator',
    'ClusterRoleBinding/system:metrics-server',
    'Service/metrics-server',
    'Deployment/metrics-server',
    'APIService/v1beta1.metrics.k8s.io',
  ]);
  const reader = find<any>(ms, 'ClusterRole', 'system:aggregated-metrics-reader');
  for (const r of ['admin', 'edit', 'view']) assert.equal(reader.metadata.labels[`rbac.authorization.k8s.io/aggregate-to-${r}`], 'true');
  assert.deepEqual(find<any>(ms, 'RoleBinding', 'metrics-server-auth-reader').roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' });
  assert.deepEqual(find<any>(ms, 'APIService', 'v1beta1.metrics.k8s.io').spec.service, { name: 'metrics-server', namespace: 'kube-system' });
  const c = find<any>(ms, 'Deployment', 'metrics-server').spec.template.spec.containers[0];
  assert.match(c.image, /^registry\.k8s\.io\/metrics-server\/metrics-server:v\d/);
  const mirrored = find<any>(addon(rendered({ labels: { container_infra_prefix: 'mirror.example.org/k8s' } }).addons, 'metrics-server'), 'Deployment', 'metrics-server');
  assert.match(mirrored.spec.template.spec.containers[0].image, /^mirror\.example\.org\/k8s\/metrics-server:v/);
  assert.ok(!rendered({ labels: { metrics_server_enabled: 'false' } }).addons.some((a) => a.name === 'metrics-server'));
  rejects({ metrics_server_enabled: 'maybe' }, 'metrics_server_enabled', /boolean/);
});

test('metrics-server: its place in the apply order, its one label, enabled by it', () => {
  assert.equal(metricsServerAddon.order, ORDER.metricsServer);
  assert.deepEqual(Object.keys(metricsServerAddon.labels), ['metrics_server_enabled']);
  assert.equal(metricsServerAddon.enabled(specOf()), true);
  assert.equal(metricsServerAddon.enabled(specOf({ labels: { metrics_server_enabled: 'no' } })), false);
});
