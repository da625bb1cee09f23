// The registered add-ons (the core's and the features'), in apply order; every object of every add-on validates,
// over 3 Kubernetes minors × 2 CNIs × optional add-ons on/off (the validator itself is checked last).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addons } from '../../../src/bootstrap/addons/index.js';
import { SUPPORTED_MINORS, VERSION_MATRIX } from '../../../src/cluster-spec/versions.js';
import { isCustomResource, podTemplates, validateObject } from '../../support/k8s-validate.js';
import { addon, rendered } from '../../support/addons.js';

test('the registry: the core\'s add-ons, then the features\', sorted by apply order; both CNIs registered (each enabled by network_driver)', () => {
  const all = addons();
  assert.deepEqual(all.map((a) => a.name), ['cloud-config', 'occm', 'cni-calico', 'cni-flannel', 'cinder-csi', 'manila-csi', 'metrics-server', 'dns-autoscaler', 'keystone-auth', 'ingress', 'external-dns', 'dashboard', 'monitoring']);
  assert.ok(all.every((a, i) => i === 0 || all[i - 1]!.order <= a.order));
  assert.equal(new Set(all.map((a) => a.key)).size, all.length, 'one spec section each');
  assert.equal(addons(), all, 'built once');
});

/** The ServiceAccount each workload must run as (upstream names). */
const EXPECTED_SA: Record<string, string> = {
  'DaemonSet/openstack-cloud-controller-manager': 'cloud-controller-manager',
  'Deployment/tigera-operator': 'tigera-operator',
  'DaemonSet/kube-flannel-ds': 'flannel',
  'Deployment/csi-cinder-controllerplugin': 'csi-cinder-controller-sa',
  'DaemonSet/csi-cinder-nodeplugin': 'csi-cinder-node-sa',
  'Deployment/metrics-server': 'metrics-server',
  'Deployment/dns-autoscaler': 'dns-autoscaler',
  'DaemonSet/k8s-keystone-auth': 'k8s-keystone-auth',
  'StatefulSet/octavia-ingress-controller': 'octavia-ingress-controller',
  'Deployment/external-dns': 'external-dns',
  'StatefulSet/prometheus': 'prometheus',
  'StatefulSet/openstack-manila-csi-controllerplugin': 'openstack-manila-csi-controllerplugin',
  'DaemonSet/openstack-manila-csi-nodeplugin': 'openstack-manila-csi-nodeplugin',
  'DaemonSet/node-exporter': 'node-exporter',
  'Deployment/kube-state-metrics': 'kube-state-metrics',
  'Deployment/grafana': 'grafana',
  'Deployment/headlamp': 'headlamp',
};
const OPTIONAL_ON = { ingress_controller: 'octavia', external_dns_zone: 'apps.example.org', monitoring_enabled: 'true', monitoring_storage_class_name: 'csi-cinder-sc-delete', manila_csi_enabled: 'true', kube_dashboard_enabled: 'true' };
const OPTIONAL_OFF = { cinder_csi_enabled: 'false', metrics_server_enabled: 'false', keystone_auth_enabled: 'false', dns_autoscaler_enabled: 'false' };

for (const minor of SUPPORTED_MINORS) {
  for (const cni of ['calico', 'flannel'] as const) {
    for (const optional of ['on', 'off'] as const) {
      const over = {
        network_driver: cni,
        labels: { kube_tag: VERSION_MATRIX[minor].kubernetes, ...(optional === 'off' ? OPTIONAL_OFF : OPTIONAL_ON) },
      };
      test(`add-ons ${minor} ${cni} optional=${optional}: core/apps/rbac/storage/apiregistration objects (incl. keystone-auth, octavia ingress) validate with kubernetes-models; the Calico Installation CR gets a structural check (its CRD is installed by the operator)`, () => {
        const { addons } = rendered(over);
        const names = addons.map((a) => a.name);
        assert.deepEqual(names, ['cloud-config', 'occm', `cni-${cni}`, ...(optional === 'on' ? ['cinder-csi', 'manila-csi', 'metrics-server', 'dns-autoscaler', 'keystone-auth', 'ingress', 'external-dns', 'dashboard', 'monitoring'] : [])]);
        let objects = 0;
        for (const a of addons) {
          assert.ok(a.objects.length > 0, `${a.name} renders objects`);
          for (const o of a.objects) {
            assert.doesNotThrow(() => validateObject(o), `${a.name}: ${o.kind}/${o.metadata.name}`);
            objects++;
          }
        }
        const custom = addons.flatMap((a) => a.objects).filter(isCustomResource);
        assert.equal(custom.length, cni === 'calico' ? 1 : 0);
        assert.ok(objects > 10);
      });

      test(`add-ons ${minor} ${cni} optional=${optional}: workloads have pinned images, resource requests and their own ServiceAccount`, () => {
        const { addons } = rendered(over);
        const all = addons.flatMap((a) => a.objects);
        const accounts = new Set(all.filter((o) => o.kind === 'ServiceAccount').map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
        const bound = new Set(
          all
            .filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')
            .flatMap((o) => (o.subjects as { name: string; namespace: string }[]).map((s) => `${s.namespace}/${s.name}`)),
        );
        const pods = podTemplates(all);
        assert.equal(pods.length, optional === 'on' ? 16 : 2);
        for (const p of pods) {
          assert.equal(p.serviceAccountName, EXPECTED_SA[p.owner], `${p.owner} runs as its own ServiceAccount`);
          const ns = all.find((o) => `${o.kind}/${o.metadata.name}` === p.owner)!.metadata.namespace;
          assert.ok(p.serviceAccountName, `${p.owner} sets serviceAccountName`);
          const ref = `${ns}/${p.serviceAccountName}`;
          assert.ok(accounts.has(ref), `${p.owner}: ServiceAccount ${ref} is rendered`);
          // A pod that mounts no token needs no role (node-exporter, Grafana); every other one is bound, but
          // Headlamp, which reads only the API address and CA from its token's mount and sends each user's own token.
          if (p.automountServiceAccountToken !== false && p.owner !== 'Deployment/headlamp') assert.ok(bound.has(ref), `${p.owner}: ServiceAccount ${ref} is bound to a role`);
          if (p.owner === 'Deployment/headlamp') assert.ok(!bound.has(ref), 'Headlamp\'s own account is bound to nothing');
          for (const c of p.containers) {
            assert.match(c.image, /^[a-z0-9.\-/:]+:v?\d+\.\d+\.\d+[\w.-]*$/, `${p.owner}/${c.name} pins its image: ${c.image}`);
            assert.doesNotMatch(c.image, /:latest$/);
            assert.ok(c.resources?.requests?.cpu && c.resources.requests.memory, `${p.owner}/${c.name} requests cpu and memory`);
          }
        }
      });
    }
  }
}

test('the validator really rejects malformed objects', () => {
  const ds = structuredClone(addon(rendered().addons, 'occm').objects.at(-1)!);
  (ds.spec as any).template.spec.containers[0].ports = [{ containerPort: 'http' }];
  assert.throws(() => validateObject(ds), /containerPort must be integer/);
  assert.throws(() => validateObject({ apiVersion: 'example.org/v1', kind: 'Thing', metadata: { name: 'x' } }), /no validator/);
});
