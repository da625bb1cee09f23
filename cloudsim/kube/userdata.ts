// What a booting server would do with its user-data, read the way its image's first-boot agent
// (guest-formats.ts: cloud-init or Ignition) and kubeadm read it: the files the agent writes, the
// kubeadm documents among them, and from the bootstrap script it runs, the versions it pins, what it
// installs, what it requires of the image and its join loop. A server whose user-data runs no kubeadm
// configuration is not ours and is ignored.
import { parseAllDocuments } from 'yaml';
import { readGuest, type GuestAgent } from './guest-formats.js';

export type KubeRole = 'init' | 'control-plane' | 'worker';

export interface KeyPair {
  cert: string;
  key: string;
}

/** One node as its user-data describes it. */
export interface KubeadmNode {
  role: KubeRole;
  /** nodeRegistration.name, else the cloud-config hostname, else the server's name. */
  nodeName: string;
  /** Init: controlPlaneEndpoint; joins: discovery.bootstrapToken.apiServerEndpoint. */
  endpoint: { host: string; port: number };
  /** The port this control plane's apiserver binds (localAPIEndpoint.bindPort, 6443 by default). */
  bindPort: number;
  /** The bootstrap token a join presents. */
  token: string | undefined;
  caCertHashes: string[];
  /** The Kubernetes version the node runs: ClusterConfiguration's on init, else its bootstrap script's pin. */
  version: string | undefined;
  /** `1.35` when the script pins only the minor (kubeadm version -o short | grep '^v1\.35\.'). */
  minor: string | undefined;
  certSans: string[];
  /** /etc/kubernetes/pki/ca.{crt,key} of a control plane. */
  ca: KeyPair | undefined;
  /** InitConfiguration.bootstrapTokens. */
  bootstrapTokens: { token: string; ttlMs: number }[];
  /** The kubelet's --provider-id, as written (the bootstrap script substitutes the instance id). */
  providerId: string | undefined;
  /** Init only: ClusterConfiguration fields the cluster keeps. */
  cluster: { name: string; serviceSubnet: string; dnsDomain: string; podSubnet: string } | undefined;
  /** The retry budget of the bootstrap script's join loop (`for attempt in $(seq 1 N)` … `sleep S`). */
  joinLoop: { attempts: number; sleepMs: number } | undefined;
  /** The ConfigMap the script waits on before joining (a control plane's turn), when it has such a gate. */
  joinTurn: { namespace: string; name: string; pollMs: number } | undefined;
  /** The Kubernetes version the script installs when the image lacks it (pkgs.k8s.io or dl.k8s.io); none: it installs nothing. */
  installs: string | undefined;
  /** The script's failure when the image lacks kubeadm and it installs nothing (its `have_kubernetes || fail "…"` line). */
  requirement: string | undefined;
  /** kubelet --node-labels. */
  labels: Record<string, string>;
  /** nodeRegistration.taints. */
  taints: { key: string; value?: string; effect: string }[];
  /**
   * The files it writes under /etc/kubernetes that the node keeps using (static pod manifests and the
   * configuration they read), path → content; not the PKI (`ca`) nor kubeadm's own configuration.
   */
  hostFiles: Record<string, string>;
}

type Doc = Record<string, unknown>;
const obj = (v: unknown): Doc => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const DEFAULT_PORT = 6443;
const PKI = '/etc/kubernetes/pki';

/** Files of the node's disk the simulated kubelet and agents read later. */
const kept = (path: string): boolean => path.startsWith('/etc/kubernetes/') && !path.startsWith(`${PKI}/`) && !path.startsWith('/etc/kubernetes/kubeadm/');

/** `10.0.0.10:6443`, `[fd00::1]:6443` or a bare host. */
export function hostPort(value: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(value) ?? /^([^:]+)(?::(\d+))?$/.exec(value);
  if (!m) return { host: value, port: DEFAULT_PORT };
  return { host: m[1]!, port: m[2] ? Number(m[2]) : DEFAULT_PORT };
}

/** A Go duration (`2h0m0s`, `15m`, `90s`) in milliseconds; undefined when unreadable. */
export function goDuration(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^(\d+(\.\d+)?(h|m|s|ms))+$/.test(value)) return undefined;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let ms = 0;
  for (const [, n, , u] of value.matchAll(/(\d+(\.\d+)?)(h|ms|m|s)/g)) ms += Number(n) * unit[u!]!;
  return ms;
}

type Pins = Pick<KubeadmNode, 'joinLoop' | 'joinTurn' | 'installs' | 'requirement'> & { version?: string; minor?: string };

/** What the bootstrap script pins: its full version (header), the minor its kubeadm check wants, installs, requirement, join loop, turn gate. */
function scriptPins(scripts: string[]): Pins {
  const out: Pins = { joinLoop: undefined, joinTurn: undefined, installs: undefined, requirement: undefined };
  for (const s of scripts) {
    const turn = /until curl [^\n]*\/api\/v1\/namespaces\/([a-z0-9-]+)\/configmaps\/([a-z0-9.-]+)'[\s\S]*?sleep (\d+)/.exec(s);
    if (turn) out.joinTurn ??= { namespace: turn[1]!, name: turn[2]!, pollMs: Number(turn[3]) * 1000 };
    out.version ??= /Kubernetes (v\d+\.\d+\.\d+)\b/.exec(s)?.[1];
    const minor = /kubeadm version[^\n]*'\^v(\d+)\\\.(\d+)\\\./.exec(s);
    if (minor) out.minor ??= `${minor[1]}.${minor[2]}`;
    // The loop around kubeadm join, not an earlier one (the node material's): no other `seq 1` between.
    const loop = /seq 1 (\d+)\)(?:(?!seq 1 )[\s\S])*?kubeadm join[\s\S]*?sleep (\d+)/.exec(s);
    if (loop) out.joinLoop ??= { attempts: Number(loop[1]), sleepMs: Number(loop[2]) * 1000 };
    // apt-get install kubeadm=1.35.5-1.1 (pkgs.k8s.io), or dl.k8s.io/release/v1.35.5/bin/...
    const installs = /\bkubeadm=(\d+\.\d+\.\d+)-/.exec(s)?.[1] ?? /dl\.k8s\.io\/release\/v(\d+\.\d+\.\d+)\/bin\//.exec(s)?.[1];
    if (installs) out.installs ??= `v${installs}`;
    out.requirement ??= /^have_kubernetes \|\| fail "(.*)"$/m.exec(s)?.[1];
  }
  return out;
}

/** `k=v,k2=v2` of kubelet's --node-labels. */
function labelsOf(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (value ?? '').split(',').filter(Boolean)) {
    const i = pair.indexOf('=');
    out[i < 0 ? pair : pair.slice(0, i)] = i < 0 ? '' : pair.slice(i + 1);
  }
  return out;
}

/** The node a server's user-data (with the material it fetched) describes, or undefined when its agent runs no kubeadm configuration. */
export function parseUserData(userData: string | null, serverName: string, agent: GuestAgent = 'cloud-init', material: ReadonlyMap<string, string> = new Map()): KubeadmNode | undefined {
  const guest = readGuest(userData, agent);
  // The files of the user-data, and those the node fetched at first boot (its secrets) over them.
  const files = new Map([...guest.files, ...material]);
  const kubeadm: Doc[] = [];
  for (const content of files.values()) {
    if (!content.includes('kubeadm.k8s.io/')) continue;
    for (const d of parseAllDocuments(content)) {
      const o = obj(d.toJSON());
      if (typeof o.apiVersion === 'string' && o.apiVersion.startsWith('kubeadm.k8s.io/')) kubeadm.push(o);
    }
  }
  const kind = (k: string) => kubeadm.find((d) => d.kind === k);
  const init = kind('InitConfiguration');
  const clusterCfg = kind('ClusterConfiguration');
  const join = kind('JoinConfiguration');
  if (!(init && clusterCfg) && !join) return undefined;

  const scripts = guest.runs.map((p) => files.get(p)!).filter((c) => c.startsWith('#!'));
  if (scripts.length === 0) return undefined;
  const pins = scriptPins(scripts);
  const registration = obj((init ?? join)!.nodeRegistration);
  const kubeletArgs = Array.isArray(registration.kubeletExtraArgs)
    ? (registration.kubeletExtraArgs as unknown[]).map(obj)
    : Object.entries(obj(registration.kubeletExtraArgs)).map(([name, value]) => ({ name, value }));
  const caCert = files.get(`${PKI}/ca.crt`);
  const caKey = files.get(`${PKI}/ca.key`);
  const common = {
    nodeName: str(registration.name) ?? guest.hostname ?? serverName,
    providerId: str(kubeletArgs.find((a) => a.name === 'provider-id')?.value),
    ca: caCert && caKey ? { cert: caCert, key: caKey } : undefined,
    minor: pins.minor,
    joinLoop: pins.joinLoop,
    joinTurn: pins.joinTurn,
    installs: pins.installs,
    requirement: pins.requirement,
    labels: labelsOf(str(kubeletArgs.find((a) => a.name === 'node-labels')?.value)),
    taints: (Array.isArray(registration.taints) ? registration.taints : []).map(obj).filter((t) => typeof t.key === 'string').map((t) => ({ key: t.key as string, ...(typeof t.value === 'string' ? { value: t.value } : {}), effect: String(t.effect ?? 'NoSchedule') })),
    hostFiles: Object.fromEntries([...files].filter(([path]) => kept(path))),
  };
  if (init && clusterCfg) {
    const api = obj(clusterCfg.apiServer);
    const net = obj(clusterCfg.networking);
    const endpoint = str(clusterCfg.controlPlaneEndpoint);
    const bindPort = Number(obj(init.localAPIEndpoint).bindPort ?? DEFAULT_PORT);
    return {
      ...common,
      role: 'init',
      endpoint: endpoint ? hostPort(endpoint) : { host: '', port: bindPort },
      bindPort,
      token: undefined,
      caCertHashes: [],
      version: str(clusterCfg.kubernetesVersion) ?? pins.version,
      certSans: strings(api.certSANs),
      bootstrapTokens: (Array.isArray(init.bootstrapTokens) ? init.bootstrapTokens : [])
        .map(obj)
        .filter((t) => typeof t.token === 'string')
        .map((t) => ({ token: t.token as string, ttlMs: goDuration(t.ttl) ?? 86_400_000 })),
      cluster: {
        name: str(clusterCfg.clusterName) ?? 'kubernetes',
        serviceSubnet: str(net.serviceSubnet) ?? '10.96.0.0/12',
        dnsDomain: str(net.dnsDomain) ?? 'cluster.local',
        podSubnet: str(net.podSubnet) ?? '',
      },
    };
  }
  const discovery = obj(obj(join!.discovery).bootstrapToken);
  const controlPlane = join!.controlPlane === undefined ? undefined : obj(join!.controlPlane);
  return {
    ...common,
    role: controlPlane ? 'control-plane' : 'worker',
    endpoint: hostPort(str(discovery.apiServerEndpoint) ?? ''),
    bindPort: Number(obj(controlPlane?.localAPIEndpoint).bindPort ?? DEFAULT_PORT),
    token: str(discovery.token) ?? str(obj(join!.discovery).tlsBootstrapToken),
    caCertHashes: strings(discovery.caCertHashes),
    version: pins.version,
    certSans: [],
    bootstrapTokens: [],
    cluster: undefined,
  };
}
