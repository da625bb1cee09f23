// Add-on `dashboard` (Magnum's kube_dashboard_enabled): Headlamp in kube-system, every request with its user's
// own token, so its account is bound to nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ORDER } from '../../../src/bootstrap/addons/framework.js';
import { dashboardAddon } from '../../../src/features/dashboard/addon.js';
import { addon, find, rendered } from '../../support/addons.js';
import { rejects, specOf } from '../../support/labels.js';

test('dashboard (kube_dashboard_enabled): Headlamp in-cluster, pinned, mirrored, its account bound to nothing; off by default', () => {
  assert.ok(!rendered().addons.some((a) => a.name === 'dashboard'));
  const { addons, spec } = rendered({ labels: { kube_dashboard_enabled: 'true', container_infra_prefix: 'mirror.example.org/k8s' } });
  const a = addon(addons, 'dashboard');
  assert.deepEqual(a.objects.map((o) => `${o.kind}/${o.metadata.name}`), ['ServiceAccount/headlamp', 'Deployment/headlamp', 'Service/headlamp']);
  const d = find<{ spec: { template: { spec: { serviceAccountName: string; containers: { image: string; args: string[]; ports: { containerPort: number }[] }[] } } } }>(a, 'Deployment', 'headlamp');
  const c = d.spec.template.spec.containers[0]!;
  assert.equal(c.image, `mirror.example.org/k8s/headlamp:${spec.kubernetes.components.headlamp}`);
  assert.deepEqual(c.args, ['-in-cluster', '-plugins-dir=/headlamp/plugins', '-port=4466']);
  const svc = find<{ spec: { type: string; ports: { port: number; targetPort: number }[] } }>(a, 'Service', 'headlamp');
  assert.deepEqual([svc.spec.type, svc.spec.ports[0]!.port, svc.spec.ports[0]!.targetPort], ['ClusterIP', 80, 4466]);
  assert.ok(!addons.flatMap((x) => x.objects).some((o) => /Binding$/.test(o.kind) && JSON.stringify(o).includes('headlamp')), 'every request carries its user\'s token');
  assert.equal(rendered({ labels: { kube_dashboard_enabled: 'true' } }).addons.find((x) => x.name === 'dashboard')!.objects.length, 3);
  assert.match(JSON.stringify(rendered({ labels: { kube_dashboard_enabled: 'true' } }).addons), /ghcr\.io\/headlamp-k8s\/headlamp:v0\.43\.0/);
});

test('dashboard: a restricted, non-root container with a writable /tmp and plugins folder; probed on its port; the label a boolean', () => {
  const a = addon(rendered({ labels: { kube_dashboard_enabled: 'yes' } }).addons, 'dashboard');
  const d = find<{ metadata: { namespace: string }; spec: { template: { spec: Record<string, any> } } }>(a, 'Deployment', 'headlamp'); // eslint-disable-line @typescript-eslint/no-explicit-any
  const pod = d.spec.template.spec;
  assert.equal(d.metadata.namespace, 'kube-system');
  assert.deepEqual(pod.securityContext, { runAsNonRoot: true, runAsUser: 100, runAsGroup: 101, seccompProfile: { type: 'RuntimeDefault' } });
  const c = pod.containers[0];
  assert.deepEqual(c.securityContext, { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true });
  assert.deepEqual(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath), ['/tmp', '/headlamp/plugins']);
  assert.deepEqual(c.readinessProbe, { httpGet: { path: '/', port: 4466 }, periodSeconds: 10 });
  assert.equal(pod.serviceAccountName, 'headlamp');
  rejects({ kube_dashboard_enabled: 'please' }, 'kube_dashboard_enabled', /boolean/);
});

test('dashboard: after the other add-ons but monitoring, off unless asked, the mirror for its image', () => {
  assert.equal(dashboardAddon.order, ORDER.dashboard);
  assert.equal(dashboardAddon.enabled(specOf()), false);
  const spec = specOf({ labels: { kube_dashboard_enabled: 'true', container_infra_prefix: 'mirror.example.org/k8s' } });
  assert.equal(dashboardAddon.enabled(spec), true);
  assert.deepEqual(spec.features.dashboard, { enabled: true, image: `mirror.example.org/k8s/headlamp:${spec.kubernetes.components.headlamp}` });
});
