// The one script a node runs at first boot (cloud-init's runcmd on Ubuntu, a systemd unit on Fedora
// CoreOS): kernel settings; containerd 2.x and Kubernetes of the cluster's version, the image's or
// installed (install.ts) when the image does not carry them and installing is allowed; the
// provider id; then kubeadm init or join (joins retry; control planes wait for their turn). Every
// failure ends in one `magnum-bootstrap: FAILED: <why>` line on the console, which the service
// reads back (src/kube/console.ts) to name the cause when the node never joins.

import type { NodeImage } from '../../cluster-spec/image.js';
import type { ClusterSpec } from '../../cluster-spec/types.js';
import type { NodeDisk } from './disks.js';
import { BOOTSTRAP_TOKEN_PATH, JOIN_TURN_CONFIGMAP, KUBEADM_CONFIG_PATH, nodeProxy } from './host.js';
import { METADATA_GUARD_UNIT } from './metadata-guard.js';
import { fetchMaterial } from './material.js';
import type { NodeRole } from './inputs.js';
import { installFunctions } from './install.js';
import { INSTANCE_ID_PLACEHOLDER } from './kubeadm.js';

/** The prefix of the script's console lines; a failure reads `magnum-bootstrap: FAILED: <why>`. */
export const CONSOLE_PREFIX = 'magnum-bootstrap:';

export interface BootstrapInput {
  role: NodeRole;
  nodeName: string;
  image: NodeImage;
  /** `host:port` of the API endpoint (a joining control plane reads its turn there, with the join token). */
  endpoint: string;
  endpointAddress: string;
  disks: NodeDisk[];
}

/** Whether the node's script installs Kubernetes and containerd when the image lacks them. */
export function installsAtBoot(spec: ClusterSpec, image: NodeImage): boolean {
  return spec.kubernetes.installAtBoot && image.kubeVersion === null;
}

/**
 * Control planes boot together but join one at a time (etcd grows by one member at a time): each
 * waits until the service names it in the turn ConfigMap, read with the bootstrap token (the
 * service grants that token's group `get` on this one ConfigMap) over the cluster CA.
 */
function joinTurnWait(nodeName: string, endpoint: string): string[] {
  const url = `https://${endpoint}/api/v1/namespaces/kube-system/configmaps/${JOIN_TURN_CONFIGMAP}`;
  return [
    '# control planes join one at a time: wait until the service names this node',
    `token="$(cat ${BOOTSTRAP_TOKEN_PATH})"`,
    'waited=0',
    `until curl -fsS --max-time 10 --cacert /etc/kubernetes/pki/ca.crt -H "Authorization: Bearer \${token}" '${url}' | grep -Eq '"node": *"${nodeName}"'; do`,
    '  waited=$((waited + 2))',
    '  if [ "$waited" -ge 3600 ]; then fail "not given a turn to join within an hour"; fi',
    '  sleep 2',
    'done',
  ];
}

function kubeadmRun(role: NodeRole, nodeName: string, endpoint: string): string[] {
  if (role === 'init') return [`kubeadm init --config ${KUBEADM_CONFIG_PATH} --skip-token-print`, `log "kubeadm init done"`];
  return [
    ...(role === 'control-plane' ? joinTurnWait(nodeName, endpoint) : []),
    '# the API may not be up yet (joins start in parallel with the first control plane): retry',
    'for attempt in $(seq 1 60); do',
    `  if kubeadm join --config ${KUBEADM_CONFIG_PATH}; then log "kubeadm join done"; exit 0; fi`,
    '  log "kubeadm join attempt ${attempt} failed; retrying"',
    '  kubeadm reset --force >/dev/null 2>&1 || true',
    '  sleep 10',
    'done',
    'fail "kubeadm join did not succeed in 60 attempts"',
  ];
}

/** What the node must have, and what it does when it has not: install (allowed, image silent) or fail naming why. */
function runtimeAndKubernetes(spec: ClusterSpec, image: NodeImage, endpointAddress: string): string[] {
  const { version, minor } = spec.kubernetes;
  const minorRe = `^v${minor.replace('.', '\\.')}\\.`;
  const lines = [
    'have_containerd() { command -v containerd >/dev/null 2>&1 && containerd --version | grep -Eq \' v?2\\.\'; }',
    `have_kubernetes() { command -v kubelet >/dev/null 2>&1 && command -v kubeadm >/dev/null 2>&1 && kubeadm version -o short | grep -q '${minorRe}'; }`,
    'found() { if command -v "$1" >/dev/null 2>&1; then "$@" 2>&1 | head -n 1 || true; else echo "no $1"; fi; }',
  ];
  if (installsAtBoot(spec, image)) {
    return [
      ...lines,
      `# the image says no kube_version: Kubernetes ${version} and containerd 2.x are installed unless present`,
      'case "$(uname -m)" in',
      '  x86_64) arch=amd64 ;;',
      '  aarch64) arch=arm64 ;;',
      '  *) fail "no Kubernetes release for the architecture $(uname -m)" ;;',
      'esac',
      ...installFunctions(spec, image.distro, nodeProxy(spec, endpointAddress)),
      'have_containerd || install_containerd',
      `if ! have_kubernetes || [ "$(kubeadm version -o short)" != '${version}' ]; then install_kubernetes; fi`,
      `have_kubernetes || fail "kubeadm and kubelet ${minor}.x are required: $(found kubeadm version -o short)"`,
      'have_containerd || fail "containerd 2.x is required: $(found containerd --version)"',
    ];
  }
  const why = spec.kubernetes.installAtBoot
    ? `the image says it carries Kubernetes ${image.kubeVersion} (property kube_version) but has`
    : 'installing at boot is disabled (label kube_install_at_boot=false) and the image has';
  return [
    ...lines,
    `have_kubernetes || fail "kubeadm and kubelet ${minor}.x are required; ${why}: $(found kubeadm version -o short)"`,
    `have_containerd || fail "containerd 2.x is required; ${why}: $(found containerd --version)"`,
  ];
}

/** The instance UUID for the kubelet's provider id: cloud-init's on Ubuntu, the metadata service's on Fedora CoreOS. */
function instanceId(image: NodeImage): string[] {
  if (image.distro === 'ubuntu') return ['iid="$(cloud-init query v1.instance_id)"'];
  return [
    `iid="$(curl -fsS --retry 10 --retry-connrefused http://169.254.169.254/openstack/latest/meta_data.json | sed -n 's/.*"uuid": *"\\([0-9a-f-]*\\)".*/\\1/p')"`,
    '[ -n "$iid" ] || fail "no instance uuid in the metadata service\'s meta_data.json"',
  ];
}

/** The bootstrap script of one node. */
export function bootstrapScript(spec: ClusterSpec, b: BootstrapInput): string {
  const etcd = b.disks.some((d) => d.label === 'etcd');
  return [
    '#!/bin/bash',
    `# magnum-ts ${b.role} bootstrap for ${b.nodeName} (Kubernetes ${spec.kubernetes.version}, ${spec.network.driver}, ${b.image.distro})`,
    'set -Eeuo pipefail',
    `log() { echo "${CONSOLE_PREFIX} $*"; }`,
    `fail() { echo "${CONSOLE_PREFIX} FAILED: $*" >&2; exit 1; }`,
    'trap \'fail "line ${LINENO}: ${BASH_COMMAND}"\' ERR',
    ...(b.image.distro === 'fedora-coreos' ? ['# kubeadm on Fedora CoreOS runs with SELinux permissive (/etc/selinux/config keeps it so after a reboot)', 'setenforce 0 || true'] : []),
    'modprobe overlay',
    'modprobe br_netfilter',
    'sysctl --system >/dev/null',
    ...runtimeAndKubernetes(spec, b.image, b.endpointAddress),
    ...(etcd ? ['# kubeadm wants /var/lib/etcd empty: a new filesystem holds lost+found', 'rmdir /var/lib/etcd/lost+found 2>/dev/null || true'] : []),
    'systemctl daemon-reload',
    `systemctl enable --now ${METADATA_GUARD_UNIT}`,
    'systemctl enable containerd',
    'systemctl restart containerd',
    'systemctl enable kubelet',
    ...instanceId(b.image),
    ...fetchMaterial(),
    `sed -i "s|${INSTANCE_ID_PLACEHOLDER}|\${iid}|" ${KUBEADM_CONFIG_PATH}`,
    ...kubeadmRun(b.role, b.nodeName, b.endpoint),
    '',
  ].join('\n');
}
