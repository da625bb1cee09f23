// The add-on framework: the apply order (spec §1.7), disabled add-ons render nothing, Secrets' readers carry their
// checksum, an add-on's settings and images, and the apiserver wiring the enabled add-ons contribute.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidLabelError } from '../../../src/domain/errors.js';
import { apiServerExtensions, BASE_AUTHORIZATION_MODES, defineAddon, image, ORDER, renderAddons, settingsOf, type AddonModule } from '../../../src/bootstrap/addons/framework.js';
import { addons as allAddons } from '../../../src/bootstrap/addons/index.js';
import { SECRETS_CHECKSUM } from '../../../src/bootstrap/addons/secret-checksums.js';
import { addonModules } from '../../../src/cluster-spec/registry.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { contextFor, rendered } from '../../support/addons.js';
import { input } from '../../support/spec-fixtures.js';
import { specOf } from '../../support/labels.js';

/** A stand-in add-on: `objects` rendered when enabled. */
const fake = (name: string, order: number, on = true, objects: AddonModule['render'] = () => [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }], apiServer?: AddonModule['apiServer']): AddonModule =>
  defineAddon({ key: name, kind: 'addon', name, order, labels: {}, resolve: () => null, enabled: () => on, render: objects, ...(apiServer ? { apiServer } : {}) });

test('add-ons are registered as feature modules and applied in spec §1.7 order', () => {
  assert.deepEqual(addonModules(), allAddons());
  assert.ok(ORDER.cloudConfig < ORDER.occm && ORDER.occm < ORDER.cni && ORDER.cni < ORDER.cinderCsi && ORDER.cinderCsi < ORDER.manilaCsi && ORDER.manilaCsi < ORDER.metricsServer);
  assert.ok(ORDER.metricsServer < ORDER.dnsAutoscaler && ORDER.dnsAutoscaler < ORDER.keystoneAuth && ORDER.keystoneAuth < ORDER.ingress && ORDER.ingress < ORDER.externalDns && ORDER.externalDns < ORDER.dashboard && ORDER.dashboard < ORDER.monitoring);
  const { spec } = parseClusterSpec(input({ labels: { ingress_controller: 'octavia', external_dns_zone: 'apps.example.org', monitoring_enabled: 'true', manila_csi_enabled: 'true', kube_dashboard_enabled: 'true' } }));
  const order = renderAddons([...allAddons()].reverse(), spec, contextFor(spec)).map((a) => a.name);
  assert.deepEqual(order, ['cloud-config', 'occm', 'cni-calico', 'cinder-csi', 'manila-csi', 'metrics-server', 'dns-autoscaler', 'keystone-auth', 'ingress', 'external-dns', 'dashboard', 'monitoring']);
});

test('a disabled add-on renders nothing', () => {
  const { addons } = rendered({ labels: { cinder_csi_enabled: 'false', metrics_server_enabled: 'no', keystone_auth_enabled: 'false', dns_autoscaler_enabled: 'false' } });
  assert.deepEqual(addons.map((a) => a.name), ['cloud-config', 'occm', 'cni-calico']);
  const all = JSON.stringify(addons);
  assert.doesNotMatch(all, /cinder\.csi\.openstack\.org|metrics-server|flannel|keystone-auth|ingress|proportional-autoscaler|external-dns|prometheus|grafana|manila|headlamp/);
  assert.throws(() => parseClusterSpec(input({ labels: { cinder_csi_enabled: 'sometimes' } })), (e: unknown) => e instanceof InvalidLabelError && e.label === 'cinder_csi_enabled');
});

test('add-on apiserver hook: conflicting contributions are a programming error', () => {
  const spec = specOf({ labels: { kube_tag: 'v1.36.1' } });
  const ka = allAddons().find((m) => m.name === 'keystone-auth')!;
  const twin = { ...ka, name: 'twin' };
  assert.throws(() => apiServerExtensions([ka, twin], spec), /authentication-token-webhook-config-file is contributed by both add-ons keystone-auth and twin/);
  const sneaky = { ...ka, name: 'sneaky', apiServer: () => ({ extraArgs: [{ name: 'authorization-mode', value: 'AlwaysAllow' }] }) };
  assert.throws(() => apiServerExtensions([sneaky], spec), /contribute authorizationModes/);
  const pkiWriter = { ...ka, name: 'pki', apiServer: () => ({ files: [{ path: '/etc/kubernetes/pki/ca.key', content: 'x' }] }) };
  assert.throws(() => apiServerExtensions([pkiWriter], spec), /own directory under \/etc\/kubernetes/);
});

test('renderAddons: order, then name; disabled ones left out; each add-on\'s objects as it rendered them', () => {
  const spec = specOf();
  const out = renderAddons([fake('zeta', 50), fake('alpha', 50), fake('first', 10), fake('off', 5, false)], spec, contextFor(spec));
  assert.deepEqual(out.map((a) => [a.order, a.name]), [[10, 'first'], [50, 'alpha'], [50, 'zeta']]);
  assert.deepEqual(out[1]!.objects, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'alpha' } }]);
});

test('renderAddons stamps the workloads that read a Secret of the rendering (any add-on\'s) with its checksum', () => {
  const { addons } = rendered();
  const occm = addons.find((a) => a.name === 'occm')!.objects.find((o) => o.kind === 'DaemonSet')!;
  const annotations = (occm.spec as { template: { metadata: { annotations?: Record<string, string> } } }).template.metadata.annotations;
  assert.match(annotations?.[SECRETS_CHECKSUM] ?? '', /^[0-9a-f]{64}$/, 'OCCM reads the cloud-config add-on\'s Secret');
  const metrics = addons.find((a) => a.name === 'metrics-server')!.objects.find((o) => o.kind === 'Deployment')!;
  assert.equal((metrics.spec as { template: { metadata: { annotations?: unknown } } }).template.metadata.annotations, undefined, 'it reads none');
});

test('settingsOf: an add-on\'s resolved section; a section the spec lacks is a programming error', () => {
  const spec = specOf({ network_driver: 'flannel' });
  assert.deepEqual(settingsOf(spec, 'cloudConfig'), { secret: 'cloud-config' });
  assert.equal(settingsOf(spec, 'cniCalico'), null, 'resolved to null for the other CNI: still resolved');
  assert.throws(() => settingsOf(spec, 'nothing'), /add-on nothing was not resolved for this spec/);
});

test('image(): the mirror replaces the upstream repository, name and tag kept', () => {
  assert.equal(image(specOf(), 'registry.k8s.io/sig-storage', 'csi-attacher', 'v4.10.0'), 'registry.k8s.io/sig-storage/csi-attacher:v4.10.0');
  assert.equal(image(specOf({ labels: { container_infra_prefix: 'mirror.example.org/k8s' } }), 'registry.k8s.io/sig-storage', 'csi-attacher', 'v4.10.0'), 'mirror.example.org/k8s/csi-attacher:v4.10.0');
});

test('apiServerExtensions: nothing contributed, kubeadm\'s defaults; authorizers after Node,RBAC once each; one read-only volume per directory; disabled add-ons are not asked', () => {
  const spec = specOf();
  assert.deepEqual(BASE_AUTHORIZATION_MODES, ['Node', 'RBAC']);
  assert.deepEqual(apiServerExtensions([fake('plain', 10)], spec), { extraArgs: [], files: [], volumes: [] });
  let asked = false;
  const off = fake('off', 5, false, undefined, () => ((asked = true), { authorizationModes: ['ABAC'] }));
  const a = fake('a', 20, true, undefined, () => ({ authorizationModes: ['Webhook'], files: [{ path: '/etc/kubernetes/a-hooks/one.yaml', content: '1' }, { path: '/etc/kubernetes/a-hooks/two.yaml', content: '2' }] }));
  const b = fake('b', 30, true, undefined, () => ({ authorizationModes: ['Webhook', 'RBAC'], extraArgs: [{ name: 'audit-policy-file', value: '/etc/kubernetes/b/audit.yaml' }], files: [{ path: '/etc/kubernetes/b/audit.yaml', content: '3' }] }));
  const merged = apiServerExtensions([b, off, a], spec);
  assert.equal(asked, false);
  assert.deepEqual(merged.extraArgs, [{ name: 'audit-policy-file', value: '/etc/kubernetes/b/audit.yaml' }, { name: 'authorization-mode', value: 'Node,RBAC,Webhook' }]);
  assert.deepEqual(merged.files.map((f) => f.path), ['/etc/kubernetes/a-hooks/one.yaml', '/etc/kubernetes/a-hooks/two.yaml', '/etc/kubernetes/b/audit.yaml']);
  assert.deepEqual(merged.volumes, [
    { name: 'addon-a-hooks', hostPath: '/etc/kubernetes/a-hooks', mountPath: '/etc/kubernetes/a-hooks', readOnly: true, pathType: 'DirectoryOrCreate' },
    { name: 'addon-b', hostPath: '/etc/kubernetes/b', mountPath: '/etc/kubernetes/b', readOnly: true, pathType: 'DirectoryOrCreate' },
  ]);
  // Files only in a directory of their own under /etc/kubernetes (not kubeadm's, not beside it).
  for (const path of ['/etc/kubernetes/manifests/x.yaml', '/etc/kubernetes/pki/x.key', '/etc/other/x.yaml', '/etc/kubernetes/hooks/X.yaml']) {
    const bad = fake('bad', 40, true, undefined, () => ({ files: [{ path, content: '' }] }));
    assert.throws(() => apiServerExtensions([bad], spec), /must live in its own directory under \/etc\/kubernetes/, path);
  }
});

