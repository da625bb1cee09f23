// The tigera-operator's objects: its privileged namespace, its account with the rights to install Calico's CRDs
// and grant Calico's own RBAC, and its Deployment managing the CRDs.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATOR_NS, OPERATOR_SA, operatorObjects } from '../../../../src/bootstrap/addons/cni-calico/operator.js';

const objects = operatorObjects('mirror.example.org/k8s/operator:v1.40.3');
const of = (kind: string) => objects.find((o) => o.kind === kind) as any;

test('a privileged namespace and an account bound to the operator\'s ClusterRole', () => {
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`), ['Namespace/tigera-operator', 'ServiceAccount/tigera-operator', 'ClusterRole/tigera-operator', 'ClusterRoleBinding/tigera-operator', 'Deployment/tigera-operator']);
  assert.equal(of('Namespace').metadata.labels['pod-security.kubernetes.io/enforce'], 'privileged');
  assert.deepEqual(of('ServiceAccount').metadata.namespace, OPERATOR_NS);
  assert.deepEqual(of('ClusterRoleBinding').subjects, [{ kind: 'ServiceAccount', name: OPERATOR_SA, namespace: OPERATOR_NS }]);
  assert.deepEqual(of('ClusterRoleBinding').roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'tigera-operator' });
});

test('its rights: CRDs (no delete), and bind/escalate on RBAC to grant calico-node\'s', () => {
  const rules = of('ClusterRole').rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  const crd = rules.find((r) => r.resources.includes('customresourcedefinitions'))!;
  assert.ok(!crd.verbs.includes('delete') && crd.verbs.includes('create'));
  const rbac = rules.find((r) => r.apiGroups.includes('rbac.authorization.k8s.io'))!;
  assert.ok(rbac.verbs.includes('bind') && rbac.verbs.includes('escalate'));
  assert.ok(rules.some((r) => r.apiGroups.includes('operator.tigera.io') && r.verbs.includes('*')));
});

test('the Deployment: the given image, managing the CRDs, on the host network, tolerating every taint; its version for the init image', () => {
  const d = of('Deployment');
  const pod = d.spec.template.spec;
  const c = pod.containers[0];
  assert.equal(c.image, 'mirror.example.org/k8s/operator:v1.40.3');
  assert.deepEqual([c.command, c.args], [['operator'], ['-manage-crds=true']]);
  assert.deepEqual(c.env.find((e: { name: string }) => e.name === 'TIGERA_OPERATOR_INIT_IMAGE_VERSION'), { name: 'TIGERA_OPERATOR_INIT_IMAGE_VERSION', value: 'v1.40.3' });
  assert.deepEqual([pod.hostNetwork, pod.dnsPolicy, pod.serviceAccountName], [true, 'ClusterFirstWithHostNet', OPERATOR_SA]);
  assert.deepEqual(pod.tolerations, [{ effect: 'NoExecute', operator: 'Exists' }, { effect: 'NoSchedule', operator: 'Exists' }]);
  assert.deepEqual(d.spec.selector.matchLabels, { name: 'tigera-operator' });
  assert.equal(d.spec.template.metadata.labels.name, 'tigera-operator', 'its pods match its selector');
  assert.ok(c.resources.requests.cpu && c.resources.requests.memory);
});
