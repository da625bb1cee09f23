// Add-on `dns-autoscaler` (on by default): cluster-proportional-autoscaler scaling kubeadm's CoreDNS with the
// cluster's nodes and cores.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidLabelError } from '../../../src/domain/errors.js';
import { DNS_AUTOSCALER_PARAMS } from '../../../src/features/dns-autoscaler/addon.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { addon, rendered } from '../../support/addons.js';
import { validateObject } from '../../support/k8s-validate.js';
import { input } from '../../support/spec-fixtures.js';

test('dns-autoscaler: cluster-proportional-autoscaler scales kubeadm\'s CoreDNS linearly, at least 2, with only the rights it needs', () => {
  const { spec, addons } = rendered({ labels: { container_infra_prefix: 'mirror.example.org/k8s' } });
  const a = addon(addons, 'dns-autoscaler');
  const d = a.objects.find((o) => o.kind === 'Deployment')!;
  const c = (d.spec as any).template.spec.containers[0];
  assert.equal(c.image, `mirror.example.org/k8s/cluster-proportional-autoscaler:${spec.kubernetes.components.dnsAutoscaler}`);
  assert.ok(c.command.includes('--target=Deployment/coredns'));
  const params = JSON.parse(c.command.find((x: string) => x.startsWith('--default-params=')).slice('--default-params='.length));
  assert.deepEqual(params.linear, { coresPerReplica: 256, nodesPerReplica: 16, min: 2, preventSinglePointFailure: true, includeUnschedulableNodes: true });
  const role = a.objects.find((o) => o.kind === 'ClusterRole') as any;
  const verbs = role.rules.flatMap((r: { resources: string[]; verbs: string[] }) => r.resources.map((res) => `${res}:${r.verbs.join(',')}`));
  assert.deepEqual(verbs, ['nodes:list,watch', 'replicationcontrollers/scale:get,update', 'deployments/scale:get,update', 'replicasets/scale:get,update', 'configmaps:get,create']);
  for (const o of a.objects) validateObject(o);
  assert.throws(() => parseClusterSpec(input({ labels: { dns_autoscaler_enabled: 'maybe' } })), (e: unknown) => e instanceof InvalidLabelError && e.label === 'dns_autoscaler_enabled');
});

test('dns-autoscaler: on by default with the upstream image, off by its label; it runs restricted, tolerating the control planes, with its ConfigMap', () => {
  const { spec, addons } = rendered();
  assert.deepEqual(spec.features.dnsAutoscaler, { enabled: true, image: `registry.k8s.io/cpa/cluster-proportional-autoscaler:${spec.kubernetes.components.dnsAutoscaler}` });
  const a = addon(addons, 'dns-autoscaler');
  assert.deepEqual(a.objects.map((o) => `${o.kind}/${o.metadata.name}`), ['ServiceAccount/dns-autoscaler', 'ClusterRole/system:dns-autoscaler', 'ClusterRoleBinding/system:dns-autoscaler', 'Deployment/dns-autoscaler']);
  const pod = (a.objects[3]!.spec as any).template.spec;
  assert.ok(pod.containers[0].command.includes('--configmap=dns-autoscaler') && pod.containers[0].command.includes('--namespace=kube-system'));
  assert.deepEqual(pod.securityContext.runAsNonRoot, true);
  assert.ok(pod.tolerations.some((t: { key: string }) => t.key === 'node-role.kubernetes.io/control-plane'));
  assert.equal(DNS_AUTOSCALER_PARAMS.min, 2, 'one replica per control plane would not survive a node loss');
  assert.ok(!rendered({ labels: { dns_autoscaler_enabled: 'false' } }).addons.some((x) => x.name === 'dns-autoscaler'));
});
