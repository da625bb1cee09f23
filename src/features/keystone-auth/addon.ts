// Add-on `keystone-auth`: k8s-keystone-auth as webhook token authenticator and authorizer (spec k8s-bootstrap §3).
// A DaemonSet on the control-plane nodes (hostNetwork, listening on 127.0.0.1:8443) serves the local kube-apiserver,
// which this module wires through the framework's apiserver hook: a webhook kubeconfig file, the two
// `--*-webhook-config-file` flags and the Webhook authorizer after Node,RBAC. The policy is ./policy.ts.
// The webhook serves TLS with the node's kubeadm apiserver certificate (the apiserver skips verification on
// loopback), so no extra certificate is minted. Users log in with `openstack coe cluster config --use-keystone`.

import { stringify } from 'yaml';
import { CLOUD_CONFIG_DIR } from '../../bootstrap/cloudconf.js';
import { bool, imageTag, label, oneOf } from '../../cluster-spec/labels/types.js';
import { CLOUD_CONFIG_SECRET } from '../../bootstrap/addons/cloud-config/index.js';
import { defineAddon, ORDER, settingsOf, type ApiServerExtension, type K8sObject } from '../../bootstrap/addons/framework.js';
import { CONTROL_PLANE, hostPath, KUBE_SYSTEM, meta, mount, READ, requests, role, roleBinding, rule, sa, serviceAccount, workload } from '../../bootstrap/addons/k8s.js';
import { POLICY_PRESETS, policyFor, type PolicyPreset } from './policy.js';

const NAME = 'k8s-keystone-auth';
const LABELS = { 'k8s-app': NAME };
export const POLICY_CONFIGMAP = 'k8s-keystone-auth-policy';
export const WEBHOOK_CONFIG = '/etc/kubernetes/webhooks/webhookconfig.yaml';
export const WEBHOOK_PORT = 8443;
const PKI = '/etc/kubernetes/pki';

export interface KeystoneAuthSettings {
  enabled: boolean;
  image: string;
  /** Project the policy grants access to (the cluster's owner). */
  projectId: string;
  /** Which authorization policy (./policy.ts); Magnum's by default. */
  policy: PolicyPreset;
}

export const keystoneAuthAddon = defineAddon({
  key: 'keystoneAuth',
  kind: 'addon',
  name: 'keystone-auth',
  order: ORDER.keystoneAuth,
  labels: {
    keystone_auth_enabled: label(
      bool,
      'Authenticate Keystone tokens and authorise them by Keystone role in the cluster project (k8s-keystone-auth webhook; what each role may do: keystone_auth_policy). Default true, as in Magnum.',
    ),
    keystone_auth_policy: label(
      oneOf(POLICY_PRESETS),
      "Not a Magnum label. The k8s-keystone-auth authorization policy (ConfigMap kube-system/k8s-keystone-auth-policy, re-applied with the add-ons): magnum (default; Magnum's own default: a member of the cluster's project may list pods, services and deployments in namespace default; and a reader gets view: get, list and watch on all but Secrets), project-roles (wider: admin → everything, member → every namespaced resource outside kube-system but cluster RBAC, which reaches cluster-admin through RoleBindings and privileged pods; reader → read all but Secrets), none (no grants; RBAC bindings on the project's group only). Set on a template to widen access for its clusters.",
    ),
    k8s_keystone_auth_tag: label(imageTag, 'k8s-keystone-auth image tag override; must match the Kubernetes minor.'),
  },
  resolve(l, ctx): KeystoneAuthSettings {
    const k = ctx.spec.kubernetes!;
    const enabled = l.keystone_auth_enabled ?? true;
    const tag = l.k8s_keystone_auth_tag ?? k.components.k8sKeystoneAuth;
    if (!tag.startsWith(`v${k.minor}.`)) {
      ctx.reject('k8s_keystone_auth_tag', `Must belong to the Kubernetes ${k.minor} release train (v${k.minor}.x), like ${k.components.k8sKeystoneAuth}.`);
    }
    const projectId = ctx.cluster.project_id ?? '';
    if (enabled && !/^[A-Za-z0-9_-]{1,64}$/.test(projectId)) {
      throw new Error('keystone-auth: the cluster input has no usable project_id (the policy is scoped to it)');
    }
    return { enabled, image: `${k.imageRepository || 'registry.k8s.io/provider-os'}/${NAME}:${tag}`, projectId, policy: l.keystone_auth_policy ?? 'magnum' };
  },
  enabled: (spec) => settingsOf<KeystoneAuthSettings>(spec, 'keystoneAuth').enabled,
  apiServer(): ApiServerExtension {
    return {
      files: [{ path: WEBHOOK_CONFIG, content: webhookKubeconfig(), permissions: '0600' }],
      extraArgs: [
        { name: 'authentication-token-webhook-config-file', value: WEBHOOK_CONFIG },
        { name: 'authorization-webhook-config-file', value: WEBHOOK_CONFIG },
      ],
      authorizationModes: ['Webhook'],
    };
  },
  render(spec, ctx): K8sObject[] {
    const s = settingsOf<KeystoneAuthSettings>(spec, 'keystoneAuth');
    const withCa = ctx.cloud.credential.caCertPem !== undefined;
    return [
      serviceAccount(NAME),
      // its informer lists and watches kube-system ConfigMaps (a resourceNames restriction would forbid the list)
      role(NAME, KUBE_SYSTEM, [rule([''], ['configmaps'], READ)]),
      roleBinding(NAME, KUBE_SYSTEM, { kind: 'Role', name: NAME }, [sa(NAME)]),
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: meta(POLICY_CONFIGMAP, KUBE_SYSTEM, LABELS),
        data: { policies: `${JSON.stringify(policyFor(s.policy, s.projectId), null, 2)}\n` },
      },
      daemonSet(s.image, ctx.cloud.credential.authUrl, withCa),
    ];
  },
});

/** kubeconfig the apiserver uses to reach the webhook on its own node. */
export function webhookKubeconfig(): string {
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      preferences: {},
      clusters: [{ name: 'webhook', cluster: { server: `https://127.0.0.1:${WEBHOOK_PORT}/webhook`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'webhook' }],
      contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'webhook' } }],
      'current-context': 'webhook',
    },
    { lineWidth: 0 },
  );
}

function daemonSet(img: string, keystoneUrl: string, withCa: boolean): K8sObject {
  return workload('DaemonSet', NAME, LABELS, {
    ...CONTROL_PLANE,
    serviceAccountName: NAME,
    priorityClassName: 'system-cluster-critical',
    // ClusterFirst on hostNetwork = the node's resolv.conf: Keystone resolves even before CoreDNS runs
    hostNetwork: true,
    containers: [
      {
        name: NAME,
        image: img,
        args: [
          '/bin/k8s-keystone-auth',
          `--tls-cert-file=${PKI}/apiserver.crt`,
          `--tls-private-key-file=${PKI}/apiserver.key`,
          `--policy-configmap-name=${POLICY_CONFIGMAP}`,
          `--keystone-url=${keystoneUrl}`,
          ...(withCa ? [`--keystone-ca-file=${CLOUD_CONFIG_DIR}/ca.crt`] : []),
          `--listen=127.0.0.1:${WEBHOOK_PORT}`,
        ],
        volumeMounts: [
          mount('k8s-certs', PKI, { readOnly: true }),
          mount('cloud-config-volume', CLOUD_CONFIG_DIR, { readOnly: true }),
        ],
        resources: requests('100m', '64Mi'),
      },
    ],
    volumes: [hostPath('k8s-certs', PKI, 'Directory'), { name: 'cloud-config-volume', secret: { secretName: CLOUD_CONFIG_SECRET } }],
  }, { updateStrategy: { type: 'RollingUpdate' } });
}
