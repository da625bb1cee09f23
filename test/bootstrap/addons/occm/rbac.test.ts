// OCCM's RBAC: upstream's two roles, bound to OCCM's account and to the per-controller accounts that
// --use-service-account-credentials makes it use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OCCM_SA, occmRbac } from '../../../../src/bootstrap/addons/occm/rbac.js';

type Binding = { roleRef: { name: string }; subjects: { kind: string; name: string; namespace: string }[] };
type Role = { rules: { resources: string[]; verbs: string[] }[] };

test('OCCM\'s account and upstream\'s roles, each bound', () => {
  const objects = occmRbac();
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`), [
    'ServiceAccount/cloud-controller-manager',
    'ClusterRole/system:cloud-controller-manager',
    'ClusterRole/system:cloud-node-controller',
    'ClusterRoleBinding/system:cloud-controller-manager',
    'ClusterRoleBinding/system:cloud-node-controller',
  ]);
  assert.equal(objects[0]!.metadata.namespace, 'kube-system');
  const roles = new Set(objects.filter((o) => o.kind === 'ClusterRole').map((o) => o.metadata.name));
  for (const b of objects.filter((o) => o.kind === 'ClusterRoleBinding') as unknown as Binding[]) assert.ok(roles.has(b.roleRef.name), b.roleRef.name);
});

test('the controllers\' accounts share OCCM\'s role; the node controller has its own; OCCM may mint their tokens', () => {
  const objects = occmRbac();
  const ccm = objects.find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'system:cloud-controller-manager') as unknown as Binding;
  assert.deepEqual(ccm.subjects.map((s) => s.name), [OCCM_SA, 'cloud-node-controller', 'cloud-node-lifecycle-controller', 'service-controller', 'route-controller']);
  assert.ok(ccm.subjects.every((s) => s.kind === 'ServiceAccount' && s.namespace === 'kube-system'));
  const role = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'system:cloud-controller-manager') as unknown as Role;
  assert.ok(role.rules.some((r) => r.resources.includes('serviceaccounts/token') && r.verbs.includes('create')));
  assert.ok(role.rules.some((r) => r.resources.includes('services/status') && r.verbs.includes('patch')), 'it fills a LoadBalancer Service\'s status');
});
