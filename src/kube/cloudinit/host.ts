// Host plumbing written by cloud-init: kernel modules, sysctls, containerd 2.x config, proxy, the bootstrap script.

import type { ClusterSpec } from '../spec/types.js';
import type { NodeRole } from './inputs.js';
import { INSTANCE_ID_PLACEHOLDER, pauseImage } from './kubeadm.js';

export const KUBEADM_CONFIG_PATH = '/etc/kubernetes/kubeadm/config.yaml';
export const BOOTSTRAP_SCRIPT_PATH = '/usr/local/lib/magnum/bootstrap.sh';

export const MODULES_LOAD = 'overlay\nbr_netfilter\n';

export const SYSCTL = [
  'net.ipv4.ip_forward = 1',
  'net.bridge.bridge-nf-call-iptables = 1',
  'net.bridge.bridge-nf-call-ip6tables = 1',
  '',
].join('\n');

/** containerd 2.x (config version 3): systemd cgroups, pinned sandbox image. */
export function containerdConfig(spec: ClusterSpec): string {
  return [
    'version = 3',
    '',
    "[plugins.'io.containerd.cri.v1.images'.pinned_images]",
    `  sandbox = '${pauseImage(spec)}'`,
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]",
    '  SystemdCgroup = true',
    '',
  ].join('\n');
}

/** systemd drop-in for containerd when the template sets a proxy; cluster-internal ranges bypass it. */
export function containerdProxy(spec: ClusterSpec, endpointAddress: string): string | null {
  const p = spec.network.proxy;
  if (!p) return null;
  const noProxy = [
    ...new Set([
      ...p.noProxy,
      'localhost',
      '127.0.0.1',
      endpointAddress,
      spec.network.subnetCidr,
      spec.network.podCidr,
      spec.network.serviceCidr,
      `.svc`,
      `.${spec.network.clusterDomain}`,
    ]),
  ].join(',');
  const lines = ['[Service]'];
  if (p.http) lines.push(`Environment="HTTP_PROXY=${p.http}"`);
  if (p.https) lines.push(`Environment="HTTPS_PROXY=${p.https}"`);
  lines.push(`Environment="NO_PROXY=${noProxy}"`, '');
  return lines.join('\n');
}

/** The ConfigMap (kube-system) naming the one control plane allowed to join now; the service writes it. */
export const JOIN_TURN_CONFIGMAP = 'magnum-join-turn';

/**
 * Control planes boot together but join one at a time (etcd grows by one member at a time): each
 * waits until the service names it in the turn ConfigMap, read with the bootstrap token (the
 * service grants that token's group `get` on this one ConfigMap) over the cluster CA.
 */
function joinTurnWait(nodeName: string, endpoint: string, token: string): string[] {
  const url = `https://${endpoint}/api/v1/namespaces/kube-system/configmaps/${JOIN_TURN_CONFIGMAP}`;
  return [
    '# control planes join one at a time: wait until the service names this node',
    'waited=0',
    `until curl -fsS --max-time 10 --cacert /etc/kubernetes/pki/ca.crt -H 'Authorization: Bearer ${token}' '${url}' | grep -Eq '"node": *"${nodeName}"'; do`,
    '  waited=$((waited + 2))',
    '  if [ "$waited" -ge 3600 ]; then echo "not given a turn to join within an hour" >&2; exit 1; fi',
    '  sleep 2',
    'done',
  ];
}

/** The one script runcmd runs: preflight checks, provider-id substitution, kubeadm init/join (joins retry; control planes wait for their turn). */
export function bootstrapScript(spec: ClusterSpec, role: NodeRole, nodeName: string, join?: { endpoint: string; token: string }): string {
  const minor = spec.kubernetes.minor;
  const kubeadm =
    role === 'init'
      ? [`kubeadm init --config ${KUBEADM_CONFIG_PATH} --skip-token-print`]
      : [
          ...(role === 'control-plane' && join ? joinTurnWait(nodeName, join.endpoint, join.token) : []),
          '# the API may not be up yet (joins start in parallel with the first control plane): retry',
          'for attempt in $(seq 1 60); do',
          `  if kubeadm join --config ${KUBEADM_CONFIG_PATH}; then exit 0; fi`,
          '  echo "kubeadm join attempt ${attempt} failed; retrying" >&2',
          '  kubeadm reset --force >/dev/null 2>&1 || true',
          '  sleep 10',
          'done',
          'exit 1',
        ];
  return [
    '#!/bin/bash',
    `# magnum-ts ${role} bootstrap for ${nodeName} (Kubernetes ${spec.kubernetes.version}, ${spec.network.driver})`,
    'set -euo pipefail',
    'modprobe overlay',
    'modprobe br_netfilter',
    'sysctl --system >/dev/null',
    `containerd --version | grep -Eq ' v?2\\.' || { echo "containerd 2.x required: $(containerd --version)" >&2; exit 1; }`,
    `kubeadm version -o short | grep -q '^v${minor.replace('.', '\\.')}\\.' || { echo "kubeadm ${minor}.x required: $(kubeadm version -o short)" >&2; exit 1; }`,
    'systemctl daemon-reload',
    'systemctl restart containerd',
    'systemctl enable kubelet',
    'iid="$(cloud-init query v1.instance_id)"',
    `sed -i "s|${INSTANCE_ID_PLACEHOLDER}|\${iid}|" ${KUBEADM_CONFIG_PATH}`,
    ...kubeadm,
    '',
  ].join('\n');
}
