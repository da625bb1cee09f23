// The builders of the object shapes every add-on repeats: metadata (managed by magnum-ts), workloads whose selector
// is their pods' labels, RBAC, Secrets (base64, as the API returns them), Services, host paths and placements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterRole, clusterRoleBinding, CONTROL_PLANE, fieldEnv, hostPath, KUBE_SYSTEM, meta, mount, READ, requests, role, roleBinding, rule, sa, secret, service, serviceAccount, TOLERATE_ALL, workload } from '../../../src/bootstrap/addons/k8s.js';

const MANAGED = { 'app.kubernetes.io/managed-by': 'magnum-ts' };

test('meta: every object is marked managed by magnum-ts (which the caller\'s labels cannot override); no namespace for cluster objects', () => {
  assert.deepEqual(meta('x'), { name: 'x', labels: MANAGED });
  assert.deepEqual(meta('x', 'kube-system', { app: 'a', 'app.kubernetes.io/managed-by': 'helm' }), { name: 'x', namespace: 'kube-system', labels: { app: 'a', ...MANAGED } });
});

test('workload: the pods\' labels are its selector; the kind\'s own fields beside; kube-system unless told', () => {
  const labels = { app: 'w' };
  const d = workload('Deployment', 'w', labels, { containers: [] }, { replicas: 2 });
  assert.deepEqual(d, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'w', namespace: KUBE_SYSTEM, labels: { app: 'w', ...MANAGED } },
    spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [] } } },
  });
  assert.equal(workload('DaemonSet', 'w', labels, {}, {}, 'monitoring').metadata.namespace, 'monitoring');
});

test('RBAC builders: roles with their rules, bindings naming the role and the accounts', () => {
  assert.deepEqual(rule([''], ['pods'], READ), { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] });
  assert.deepEqual(serviceAccount('s'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 's', namespace: KUBE_SYSTEM, labels: MANAGED } });
  assert.deepEqual(sa('s', 'monitoring'), { kind: 'ServiceAccount', name: 's', namespace: 'monitoring' });
  const cr = clusterRole('r', [rule([''], ['nodes'], READ)], { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' });
  assert.deepEqual([cr.apiVersion, cr.kind, cr.metadata.namespace, cr.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-view']], ['rbac.authorization.k8s.io/v1', 'ClusterRole', undefined, 'true']);
  assert.equal(role('r', 'ns', []).metadata.namespace, 'ns');
  assert.deepEqual(clusterRoleBinding('b', 'r', [sa('s')]).roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' });
  const rb = roleBinding('b', 'ns', { kind: 'Role', name: 'r' }, [sa('s')]);
  assert.deepEqual([rb.metadata.namespace, rb.roleRef, rb.subjects], ['ns', { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, [{ kind: 'ServiceAccount', name: 's', namespace: KUBE_SYSTEM }]]);
});

test('secret: an Opaque Secret whose data is the values in base64 (UTF-8)', () => {
  const s = secret(meta('s', 'ns'), { 'a.conf': 'x=1\n', pw: 'é' });
  assert.deepEqual(s, { apiVersion: 'v1', kind: 'Secret', metadata: meta('s', 'ns'), type: 'Opaque', data: { 'a.conf': 'eD0xCg==', pw: 'w6k=' } });
});

test('service: a ClusterIP Service selecting the pods, TCP ports (target port defaults to the port), annotations only when given', () => {
  const s = service('svc', 'ns', { app: 'a' }, [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'm', port: 9100 }]);
  assert.deepEqual(s.spec, { type: 'ClusterIP', selector: { app: 'a' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }, { name: 'm', port: 9100, targetPort: 9100, protocol: 'TCP' }] });
  assert.equal(s.metadata.annotations, undefined);
  assert.deepEqual(service('svc', 'ns', {}, [], { 'prometheus.io/scrape': 'true' }).metadata.annotations, { 'prometheus.io/scrape': 'true' });
  assert.deepEqual(s.metadata.labels, { app: 'a', ...MANAGED });
});

test('pod parts: requests, host paths (typed when told), mounts, downward-API env; placements', () => {
  assert.deepEqual(requests('10m', '16Mi'), { requests: { cpu: '10m', memory: '16Mi' } });
  assert.deepEqual(hostPath('h', '/var/lib/x'), { name: 'h', hostPath: { path: '/var/lib/x' } });
  assert.deepEqual(hostPath('h', '/var/lib/x', 'Directory'), { name: 'h', hostPath: { path: '/var/lib/x', type: 'Directory' } });
  assert.deepEqual(mount('m', '/etc/x', { readOnly: true }), { name: 'm', mountPath: '/etc/x', readOnly: true });
  assert.deepEqual(fieldEnv('NODE', 'spec.nodeName'), { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } });
  assert.deepEqual(TOLERATE_ALL, [{ operator: 'Exists' }]);
  assert.deepEqual(CONTROL_PLANE.nodeSelector, { 'node-role.kubernetes.io/control-plane': '' });
  assert.deepEqual(CONTROL_PLANE.tolerations.map((t) => t.key), ['node.cloudprovider.kubernetes.io/uninitialized', 'node-role.kubernetes.io/control-plane', 'node.kubernetes.io/not-ready'], 'before OCCM initialised the node, and before its CNI runs');
});
