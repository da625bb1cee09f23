// Add-on `keystone-auth` (on by default, as in Magnum): k8s-keystone-auth on the control planes as the local
// apiserver's token authenticator and authorizer, wired through the framework's apiserver hook.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { renderAddons } from '../../../src/bootstrap/addons/framework.js';
import { keystoneAuthAddon, POLICY_CONFIGMAP, WEBHOOK_CONFIG, WEBHOOK_PORT, webhookKubeconfig } from '../../../src/features/keystone-auth/addon.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { addon, contextFor, find, rendered } from '../../support/addons.js';
import { labelError, specOf } from '../../support/labels.js';
import { input } from '../../support/spec-fixtures.js';

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

test('keystone-auth\'s apiserver wiring: the webhook kubeconfig (root only), both webhook flags, the Webhook authorizer', () => {
  const ext = keystoneAuthAddon.apiServer!(specOf());
  assert.deepEqual(ext, {
    files: [{ path: WEBHOOK_CONFIG, content: webhookKubeconfig(), permissions: '0600' }],
    extraArgs: [{ name: 'authentication-token-webhook-config-file', value: WEBHOOK_CONFIG }, { name: 'authorization-webhook-config-file', value: WEBHOOK_CONFIG }],
    authorizationModes: ['Webhook'],
  });
  const kubeconfig = parse(webhookKubeconfig());
  assert.equal(kubeconfig['current-context'], 'webhook');
  assert.deepEqual(kubeconfig.clusters[0].cluster, { server: `https://127.0.0.1:${WEBHOOK_PORT}/webhook`, 'insecure-skip-tls-verify': true });
  assert.deepEqual(kubeconfig.users, [{ name: 'webhook' }], 'the apiserver presents no credential to its local webhook');
});

test('keystone-auth without a private Keystone CA names none; the policy ConfigMap is in kube-system under its fixed name', () => {
  const spec = specOf();
  const [ka] = renderAddons([keystoneAuthAddon], spec, contextFor(spec, false));
  const args: string[] = find<any>(ka!, 'DaemonSet', 'k8s-keystone-auth').spec.template.spec.containers[0].args;
  assert.ok(!args.some((a) => a.startsWith('--keystone-ca-file')));
  assert.equal(find<any>(ka!, 'ConfigMap', POLICY_CONFIGMAP).metadata.namespace, 'kube-system');
  assert.throws(() => parseClusterSpec(input({ cluster: { project_id: 'not a project id' } })), /no usable project_id/);
  assert.throws(() => parseClusterSpec(input({ labels: { keystone_auth_policy: 'project-roles', k8s_keystone_auth_tag: 'v1.36.0' } })), labelError('k8s_keystone_auth_tag', /like v1\.35\.0/));
});
