// What a server that became ACTIVE does at first boot, decided by its image as on a real cloud: the
// image's os_distro picks the first-boot agent (Fedora CoreOS: Ignition; anything else: cloud-init),
// which reads the user-data or prints why not; the image's kube_version property stands for the
// Kubernetes (kubeadm, kubelet, containerd 2.x) it carries (none without it: a stock image); the
// bootstrap script then installs what is missing when it says how, or fails with its own message;
// the kubelet refuses node labels it may not set. Every line goes to the server's console.
import type { Server } from '../nova/servers.js';
import type { GuestAgent } from './guest-formats.js';
import { readGuest } from './guest-formats.js';
import { parseUserData, type KubeadmNode } from './userdata.js';

/** Distributions whose images run Ignition instead of cloud-init. */
const IGNITION_DISTROS = new Set(['fedora-coreos', 'rhcos', 'flatcar']);
const PREFIX = 'magnum-bootstrap:';

export type GuestOutcome =
  /** The user-data runs no kubeadm: the server is not a Kubernetes node. */
  | { kind: 'none' }
  /** The bootstrap fails on this image; the node never joins. */
  | { kind: 'failed'; node: KubeadmNode; error: string }
  /** kubeadm runs; `installs`: it installs Kubernetes first. `version`: the binaries'. */
  | { kind: 'node'; node: KubeadmNode; version: string | undefined; installs: boolean };

export function agentOf(props: Record<string, string>): GuestAgent {
  return IGNITION_DISTROS.has(props.os_distro ?? '') ? 'ignition' : 'cloud-init';
}

const release = (v: string | undefined) => {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v?.trim() ?? '');
  return m ? { version: `v${m[1]}.${m[2]}.${m[3]}`, minor: `${m[1]}.${m[2]}` } : undefined;
};

/** Labels of the kubernetes.io and k8s.io namespaces a kubelet may set on its own Node. */
function kubeletMaySet(key: string): boolean {
  const ns = key.includes('/') ? key.slice(0, key.indexOf('/')) : '';
  const kube = ['kubernetes.io', 'k8s.io'].some((d) => ns === d || ns.endsWith(`.${d}`));
  if (!kube) return true;
  if (['kubelet.kubernetes.io', 'node.kubernetes.io'].some((d) => ns === d || ns.endsWith(`.${d}`))) return true;
  return /^(kubernetes\.io\/(hostname|arch|os)|beta\.kubernetes\.io\/(arch|os|instance-type)|node\.kubernetes\.io\/instance-type|topology\.kubernetes\.io\/(region|zone)|failure-domain\.beta\.kubernetes\.io\/(region|zone))$/.test(key);
}

/** The first boot of `s` from an image with `props` (and the secrets it fetched, `material`); `console` receives what the guest prints. */
export function firstBoot(s: Server, props: Record<string, string>, console: (lines: string[]) => void, material: ReadonlyMap<string, string> = new Map()): GuestOutcome {
  const agent = agentOf(props);
  const guest = readGuest(s.userData, agent);
  console(guest.console);
  let node: KubeadmNode | undefined;
  try {
    node = parseUserData(s.userData, s.name, agent, material);
  } catch {
    node = undefined;
  }
  if (!node) return { kind: 'none' };
  const failed = node;
  const fail = (error: string): GuestOutcome => {
    console([`${PREFIX} FAILED: ${error}`]);
    return { kind: 'failed', node: failed, error };
  };
  const carried = release(props.kube_version);
  const wanted = node.minor ?? release(node.version)?.minor;
  let version: string | undefined;
  let installs = false;
  if (carried && (!node.installs || carried.version === node.installs) && (!wanted || carried.minor === wanted)) {
    version = carried.version;
  } else if (node.installs) {
    console([`${PREFIX} installing Kubernetes ${node.installs}`]);
    version = node.installs;
    installs = true;
  } else {
    const found = carried ? carried.version : 'no kubeadm';
    const why = node.requirement?.replace(/\$\(found kubeadm version -o short\)/g, found) ?? `kubeadm ${wanted ?? ''}.x is required: ${found}`;
    return fail(why);
  }
  const refused = Object.keys(node.labels).filter((k) => !kubeletMaySet(k));
  if (refused.length > 0) {
    console([`kubelet[2211]: E0101 00:00:00.000000 2211 run.go:72] "command failed" err="unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${refused.join(' ')}]"`]);
    return fail(node.role === 'init' ? 'kubeadm init: the kubelet is not healthy' : 'kubeadm join did not succeed in 60 attempts');
  }
  return { kind: 'node', node, version, installs };
}
