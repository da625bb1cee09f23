// Node objects: what the kubelet registers (labels, its taints, the provider id of its flag), what
// OCCM adds once it runs (provider id found by id or by the server's name in the project,
// addresses, instance type, zone; the uninitialized taint removed), what the node lifecycle
// controller derives (Ready from the kubelet and the CNI, not-ready/unreachable/unschedulable taints).
import type { CloudView } from './cloud-view.js';
import type { Taint } from './selectors.js';
import { iso, type Obj, type ObjectStore } from './store.js';
import type { SchedNode } from './workloads.js';

export const NODES = { group: '', resource: 'nodes', namespace: '' };
export const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
export const CONTROL_PLANE = 'node-role.kubernetes.io/control-plane';
const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';
const UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
const REGION = 'RegionOne';

/** A server that joined (or initialised) the cluster. */
export interface NodeMember {
  serverId: string;
  nodeName: string;
  controlPlane: boolean;
  version: string;
  /** The kubelet's --provider-id with the instance id substituted. */
  providerId: string | undefined;
  /** The kubelet's --node-labels and the taints it registers with (kubeadm nodeRegistration.taints). */
  labels?: Record<string, string>;
  taints?: Taint[];
  /** What the node reports as its OS (from its image). */
  osImage?: string;
  /** Its files under /etc/kubernetes the kubelet and agents read (user-data's, then what agents wrote): path → content. */
  files?: Record<string, string>;
}

export const MANIFESTS_DIR = '/etc/kubernetes/manifests/';

/** The static pod manifests among a node's files. */
const manifestsOf = (files: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(files ?? {}).filter(([path]) => path.startsWith(MANIFESTS_DIR) && /\.(ya?ml|json)$/.test(path)));

interface NodeSpec {
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
  [k: string]: unknown;
}
type Condition = { type: string; status: string; reason: string; message: string; lastHeartbeatTime: string; lastTransitionTime: string };

/** What the kubelet writes when it registers (an existing Node of that name is taken over as it is). */
export function registerNode(store: ObjectStore, m: NodeMember): void {
  const key = { ...NODES, name: m.nodeName };
  const old = store.get(key);
  const labels = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': m.nodeName,
    'kubernetes.io/os': 'linux',
    ...m.labels,
    ...(m.controlPlane ? { [CONTROL_PLANE]: '', 'node.kubernetes.io/exclude-from-external-load-balancers': '' } : {}),
  };
  if (old) {
    const spec = (old.spec ?? {}) as NodeSpec;
    store.write(key, { ...old, metadata: { ...old.metadata, labels: { ...old.metadata.labels, ...labels } }, spec: { ...spec, ...(spec.providerID || !m.providerId ? {} : { providerID: m.providerId }) } });
    return;
  }
  const taints: Taint[] = [{ key: UNINITIALIZED, value: 'true', effect: 'NoSchedule' }];
  if (m.controlPlane) taints.push({ key: CONTROL_PLANE, effect: 'NoSchedule' });
  for (const t of m.taints ?? []) if (!taints.some((x) => x.key === t.key && x.effect === t.effect)) taints.push(t);
  store.write(key, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: m.nodeName,
      labels,
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { ...(m.providerId ? { providerID: m.providerId } : {}), taints },
  });
}

const serverIdOf = (providerId: string | undefined) => /^openstack:\/\/[^/]*\/([0-9a-f-]+)$/.exec(providerId ?? '')?.[1];

export interface NodeContext {
  view: CloudView;
  projectId: string;
  /** Members by node name (the newest server registering a name holds it). */
  members: Map<string, NodeMember>;
  cni: boolean;
  occm: boolean;
  now: number;
}

function condition(old: Condition[], type: string, status: string, reason: string, message: string, now: string): Condition {
  const prev = old.find((c) => c.type === type);
  const since = prev && prev.status === status ? prev.lastTransitionTime : now;
  return { type, status, reason, message, lastHeartbeatTime: prev && prev.status === status && prev.reason === reason ? prev.lastHeartbeatTime : now, lastTransitionTime: since };
}

/** Recomputes every Node's status and managed taints; returns the nodes as the scheduler sees them. */
export function reconcileNodes(store: ObjectStore, ctx: NodeContext): SchedNode[] {
  const out: SchedNode[] = [];
  const now = iso(ctx.now);
  for (const node of store.list(NODES.group, NODES.resource)) {
    const m = ctx.members.get(node.metadata.name);
    const alive = m !== undefined && ctx.view.alive(m.serverId);
    const server = m ? ctx.view.server(m.serverId) : undefined;
    const spec: NodeSpec = { ...(node.spec as NodeSpec | undefined) };
    const labels = { ...node.metadata.labels };
    let taints = [...(spec.taints ?? [])];
    const status = { ...(node.status as Record<string, unknown> | undefined) };

    // OCCM: initialise a node it can match to a server of the project
    if (ctx.occm && taints.some((t) => t.key === UNINITIALIZED)) {
      const byId = serverIdOf(spec.providerID);
      const found = byId !== undefined
        ? [ctx.view.server(byId)].filter((s) => s !== undefined && s.projectId === ctx.projectId && s.vmState !== 'deleted')
        : ctx.view.serversNamed(ctx.projectId, node.metadata.name);
      const s = found.length === 1 ? found[0]! : undefined;
      if (s) {
        spec.providerID ??= `openstack:///${s.id}`;
        taints = taints.filter((t) => t.key !== UNINITIALIZED);
        Object.assign(labels, {
          'node.kubernetes.io/instance-type': s.flavor.name,
          'topology.kubernetes.io/zone': s.availabilityZone,
          'topology.kubernetes.io/region': REGION,
        });
      }
    }
    const initialized = !taints.some((t) => t.key === UNINITIALIZED);
    const ready = alive ? (ctx.cni ? 'True' : 'False') : 'Unknown';
    taints = taints.filter((t) => t.key !== NOT_READY && t.key !== UNREACHABLE && t.key !== UNSCHEDULABLE);
    if (ready === 'False') taints.push({ key: NOT_READY, effect: 'NoSchedule' });
    if (ready === 'Unknown') taints.push({ key: UNREACHABLE, effect: 'NoSchedule' });
    if (spec.unschedulable) taints.push({ key: UNSCHEDULABLE, effect: 'NoSchedule' });
    if (taints.length > 0) spec.taints = taints;
    else delete spec.taints;

    const old = (status.conditions ?? []) as Condition[];
    const pressure = (type: string, reason: string, message: string) =>
      alive ? condition(old, type, 'False', reason, message, now) : condition(old, type, 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.', now);
    status.conditions = [
      pressure('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      pressure('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      pressure('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      ready === 'True'
        ? condition(old, 'Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', now)
        : ready === 'False'
          ? condition(old, 'Ready', 'False', 'KubeletNotReady', 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized', now)
          : condition(old, 'Ready', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.', now),
    ];
    if (alive && m) {
      const fixed = ctx.view.fixedAddresses(m.serverId).map((f) => ({ type: 'InternalIP', address: f.ip }));
      const floating = ctx.view.floatingAddresses(m.serverId).map((a) => ({ type: 'ExternalIP', address: a }));
      status.addresses = [...(initialized ? [...fixed, ...floating] : []), { type: 'Hostname', address: node.metadata.name }];
      if (server) {
        const capacity = { cpu: String(server.flavor.vcpus), memory: `${server.flavor.ram * 1024}Ki`, pods: '110', 'ephemeral-storage': `${server.flavor.disk * 1024 * 1024}Ki` };
        status.capacity = capacity;
        status.allocatable = capacity;
      }
      status.nodeInfo = {
        machineID: m.serverId.replace(/-/g, ''),
        systemUUID: m.serverId,
        bootID: m.serverId,
        kernelVersion: '6.8.0-60-generic',
        osImage: m.osImage ?? 'Ubuntu 24.04.2 LTS',
        containerRuntimeVersion: 'containerd://2.1.4',
        kubeletVersion: m.version,
        kubeProxyVersion: m.version,
        operatingSystem: 'linux',
        architecture: 'amd64',
      };
      status.daemonEndpoints = { kubeletEndpoint: { Port: 10250 } };
    }
    const written = store.write({ ...NODES, name: node.metadata.name }, { ...node, metadata: { ...node.metadata, labels }, spec, status } as Obj);
    const addresses = ((written.status as { addresses?: { type: string; address: string }[] }).addresses ?? []);
    out.push({
      name: node.metadata.name,
      labels,
      taints: spec.taints ?? [],
      ready: ready === 'True',
      alive,
      unschedulable: spec.unschedulable === true,
      controlPlane: CONTROL_PLANE in labels,
      ip: addresses.find((a) => a.type === 'InternalIP')?.address ?? (alive && m ? ctx.view.fixedAddresses(m.serverId)[0]?.ip : undefined),
      manifests: manifestsOf(m?.files),
    });
  }
  return out;
}
