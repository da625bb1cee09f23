// keystone-auth and ingress add-ons: labels → objects, the default policy, and the honest rejections.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { InvalidLabelError } from '../../../src/domain/errors.js';
import { LABEL_CATALOG } from '../../../src/cluster-spec/labels/catalog.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { addon, find, rendered } from '../../support/addons.js';
import { input, PROJECT, UUID } from '../../support/spec-fixtures.js';

const labelError = (label: string, reason: RegExp) => (e: unknown) => e instanceof InvalidLabelError && e.label === label && reason.test((e as Error).message);

test('keystone-auth: on by default (as in Magnum); control-plane DaemonSet serving the local apiserver on loopback', () => {
  const { addons } = rendered();
  const ka = addon(addons, 'keystone-auth');
  assert.deepEqual(ka.objects.map((o) => o.kind), ['ServiceAccount', 'Role', 'RoleBinding', 'ConfigMap', 'DaemonSet']);
  const pod = find<any>(ka, 'DaemonSet', 'k8s-keystone-auth').spec.template.spec;
  assert.equal(pod.hostNetwork, true);
  assert.deepEqual(pod.nodeSelector, { 'node-role.kubernetes.io/control-plane': '' });
  const args: string[] = pod.containers[0].args;
  for (const a of ['--keystone-url=https://keystone.example.org:5000/v3', '--keystone-ca-file=/etc/config/ca.crt', '--listen=127.0.0.1:8443', '--policy-configmap-name=k8s-keystone-auth-policy', '--tls-cert-file=/etc/kubernetes/pki/apiserver.crt']) {
    assert.ok(args.includes(a), a);
  }
  // the webhook only reads ConfigMaps of kube-system (its policy)
  assert.deepEqual(find<any>(ka, 'Role', 'k8s-keystone-auth').rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }]);
  assert.equal(pod.dnsPolicy, undefined, 'resolves Keystone through the node, not CoreDNS');
});

type Policy = { users: { projects: string[]; roles: string[] }; resource_permissions: Record<string, string[]>; nonresource_permissions: Record<string, string[]> }[];
const policyOf = (labels: Record<string, string> = {}): Policy =>
  JSON.parse(find<{ data: { policies: string } }>(addon(rendered({ labels }).addons, 'keystone-auth'), 'ConfigMap', 'k8s-keystone-auth-policy').data.policies);

test("keystone-auth default policy is Magnum's: a member of the cluster project lists pods, services and deployments in default, nothing more", () => {
  const policy = policyOf();
  assert.deepEqual(policy, [
    { users: { projects: [PROJECT], roles: ['member'] }, resource_permissions: { "default/['pods', 'services', 'deployments']": ['list'] }, nonresource_permissions: {} },
  ]);
  // No rule of any role reaches beyond namespace default, a verb beyond list, or cluster-scoped objects.
  for (const p of policy) {
    for (const [key, verbs] of Object.entries(p.resource_permissions)) {
      assert.ok(key.startsWith('default/'), key);
      assert.deepEqual(verbs, ['list']);
    }
  }
  assert.deepEqual(rendered().spec.features.keystoneAuth, { enabled: true, image: 'registry.k8s.io/provider-os/k8s-keystone-auth:v1.35.0', projectId: PROJECT, policy: 'magnum' });
});

test('keystone_auth_policy widens (project-roles: admin → all, member → all but kube-system and cluster RBAC, reader → read all but Secrets) or empties it; anything else is refused', () => {
  const wide = policyOf({ keystone_auth_policy: 'project-roles' });
  assert.deepEqual(wide.map((p) => p.users), [
    { projects: [PROJECT], roles: ['admin'] },
    { projects: [PROJECT], roles: ['member'] },
    { projects: [PROJECT], roles: ['reader'] },
  ]);
  assert.deepEqual(wide.map((p) => p.resource_permissions), [
    { '*/*': ['*'] },
    { "!kube-system/!['clusterroles', 'clusterrolebindings']": ['*'] },
    { "*/!['secrets']": ['get', 'list', 'watch'] },
  ]);
  for (const p of wide) assert.ok(p.nonresource_permissions['/apis/*'], 'discovery is allowed to every role');
  assert.deepEqual(policyOf({ keystone_auth_policy: 'none' }), []);
  assert.deepEqual(policyOf({ keystone_auth_policy: 'magnum' }), policyOf());
  for (const bad of ['cluster-admin', 'Project-Roles', '']) {
    assert.throws(() => parseClusterSpec(input({ labels: { keystone_auth_policy: bad } })), labelError('keystone_auth_policy', /Expected one of: magnum, project-roles, none/));
  }
});

test('keystone-auth labels: tag follows the minor; disabled → no objects and no apiserver wiring; needs the project id', () => {
  const { spec, addons } = rendered({ labels: { k8s_keystone_auth_tag: 'v1.35.2', container_infra_prefix: 'mirror.example.org/k8s' } });
  assert.equal((spec.features.keystoneAuth as { image: string }).image, 'mirror.example.org/k8s/k8s-keystone-auth:v1.35.2');
  assert.ok(addon(addons, 'keystone-auth'));
  assert.throws(() => parseClusterSpec(input({ labels: { k8s_keystone_auth_tag: 'v1.18.0' } })), labelError('k8s_keystone_auth_tag', /1\.35 release train/));
  assert.throws(() => parseClusterSpec(input({ labels: { keystone_auth_enabled: 'maybe' } })), labelError('keystone_auth_enabled', /boolean/));
  assert.ok(!rendered({ labels: { keystone_auth_enabled: 'false' } }).addons.some((a) => a.name === 'keystone-auth'));
  assert.throws(() => parseClusterSpec(input({ cluster: { project_id: null } })), /no usable project_id/);
  assert.doesNotThrow(() => parseClusterSpec(input({ cluster: { project_id: null }, labels: { keystone_auth_enabled: 'false' } })));
});

test('ingress: off by default; ingress_controller=octavia renders the controller with its config from the cloud credential', () => {
  assert.ok(!rendered().addons.some((a) => a.name === 'ingress'));
  const ing = addon(rendered({ labels: { ingress_controller: 'Octavia' } }).addons, 'ingress');
  assert.deepEqual(ing.objects.map((o) => o.kind), ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Secret', 'StatefulSet']);
  const secret = find<{ data: Record<string, string> }>(ing, 'Secret', 'octavia-ingress-controller-config');
  const conf = parse(Buffer.from(secret.data['config.yaml']!, 'base64').toString());
  assert.deepEqual(conf, {
    'cluster-name': UUID,
    openstack: { 'auth-url': 'https://keystone.example.org:5000/v3', region: 'RegionOne', 'application-credential-id': 'id', 'application-credential-secret': 'secret', 'ca-file': '/etc/config/ca.crt' },
    octavia: { 'subnet-id': 'subnet', 'floating-network-id': 'ext', provider: 'amphora', 'manage-security-groups': false },
  });
  assert.ok(secret.data['ca.crt']);
  const c = find<any>(ing, 'StatefulSet', 'octavia-ingress-controller').spec.template.spec.containers[0];
  assert.equal(c.image, 'registry.k8s.io/provider-os/octavia-ingress-controller:v1.35.0');
  assert.deepEqual(c.args, ['/bin/octavia-ingress-controller', '--config=/etc/config/config.yaml']);
});

test('ingress: OVN clusters still get amphora LBs for Ingresses (L7); tag label follows the minor', () => {
  const ing = addon(rendered({ labels: { ingress_controller: 'octavia', octavia_provider: 'ovn', octavia_ingress_controller_tag: 'v1.35.3' } }).addons, 'ingress');
  const secret = find<{ data: Record<string, string> }>(ing, 'Secret', 'octavia-ingress-controller-config');
  assert.equal(parse(Buffer.from(secret.data['config.yaml']!, 'base64').toString()).octavia.provider, 'amphora');
  assert.match(JSON.stringify(ing.objects), /octavia-ingress-controller:v1\.35\.3/);
  assert.throws(() => parseClusterSpec(input({ labels: { ingress_controller: 'octavia', octavia_ingress_controller_tag: 'v1.18.0' } })), labelError('octavia_ingress_controller_tag', /release train/));
  const { warnings } = parseClusterSpec(input({ labels: { octavia_ingress_controller_tag: 'v1.35.3' } }));
  assert.match(warnings.join('\n'), /octavia_ingress_controller_tag is ignored without ingress_controller=octavia/);
});

test('ingress: nginx and traefik are rejected with the reason; unknown controllers too', () => {
  assert.throws(() => parseClusterSpec(input({ labels: { ingress_controller: 'nginx' } })), labelError('ingress_controller', /retired upstream.*ingress_controller=octavia/));
  assert.throws(() => parseClusterSpec(input({ labels: { ingress_controller: 'traefik' } })), labelError('ingress_controller', /Traefik v1\.7/));
  assert.throws(() => parseClusterSpec(input({ labels: { ingress_controller: 'haproxy' } })), labelError('ingress_controller', /Expected one of/));
  assert.ok(!rendered({ labels: { ingress_controller: '' } }).addons.some((a) => a.name === 'ingress'));
});

test('autoscaling is the service\'s (its labels implemented), the in-cluster autoscaler and healers unsupported with the Heat reason; auto-healing is the service\'s', () => {
  for (const l of ['auto_scaling_enabled', 'min_node_count', 'max_node_count', 'auto_healing_enabled', 'auto_healing_controller']) assert.equal(LABEL_CATALOG[l], undefined, `${l} is implemented`);
  assert.match(JSON.stringify(LABEL_CATALOG['autoscaler_tag']), /needs Heat stacks/);
  assert.match(JSON.stringify(LABEL_CATALOG['magnum_auto_healer_tag']), /needs Heat/);
  assert.equal(LABEL_CATALOG['draino_tag']!.status, 'unsupported');
  assert.equal(LABEL_CATALOG['nginx_ingress_controller_tag']!.status, 'unsupported');
  const { spec, warnings } = parseClusterSpec(input({ labels: { auto_scaling_enabled: 'true', max_node_count: '5' } }));
  assert.deepEqual(warnings, []);
  assert.deepEqual(spec.autoScaling, { enabled: true, minNodeCount: 0, maxNodeCount: 5, scaleDownUnneededSeconds: 600 });
  assert.throws(() => parseClusterSpec(input({ labels: { min_node_count: '4', max_node_count: '2' } })), /max_node_count/);
});
