// The quota bill: what a cluster holds in the project's quotas, as one pure function of its spec, its
// node groups and their flavors — the same decisions the workers take (workers/cluster/*): a server,
// a port and (floating_ip_enabled) a floating IP per node; its boot, etcd and container runtime
// volumes; one server group per node group; the network, subnet, router and router interface unless
// the cluster uses a fixed network; the two security groups of the network plan with Neutron's two
// egress rules each; the API load balancer (its VIP port, listener, pool, a member per control plane,
// the health monitor) and its floating IP; the API's DNS record and the ingress's wildcard record with
// its floating IP; the KMS key. Create, resize, node group create, upgrade and CA rotation bill from it.
import { settingsOf } from '../bootstrap/addons/framework.js';
import type { IngressSettings } from '../features/ingress/addon.js';
import { networkPlan } from '../cluster-spec/network-plan.js';
import type { ClusterSpec } from '../cluster-spec/types.js';

/** Every quota a cluster can consume, by the service that keeps it (its own name for the quota). */
export const QUOTAS = {
  clusters: 'container-infra',
  instances: 'compute',
  cores: 'compute',
  ram: 'compute',
  server_groups: 'compute',
  server_group_members: 'compute',
  volumes: 'block-storage',
  gigabytes: 'block-storage',
  network: 'network',
  subnet: 'network',
  router: 'network',
  port: 'network',
  floatingip: 'network',
  security_group: 'network',
  security_group_rule: 'network',
  load_balancer: 'load-balancer',
  listener: 'load-balancer',
  pool: 'load-balancer',
  member: 'load-balancer',
  health_monitor: 'load-balancer',
  zone_recordsets: 'dns',
  secrets: 'key-manager',
} as const;

export type QuotaName = keyof typeof QUOTAS;
export const QUOTA_NAMES = Object.keys(QUOTAS) as QuotaName[];

/**
 * An amount of each quota. `server_group_members` is Nova's limit per server group: the size of the
 * largest group, not a sum; `zone_recordsets` is Designate's limit per zone: the records in the API's zone.
 */
export type Usage = Record<QuotaName, number>;

export interface FlavorSize {
  vcpus: number;
  /** MiB */
  ram: number;
}

/** A node group as the bill sees it: its nodes, their flavor and their container runtime volume. */
export interface GroupShape {
  name: string;
  role: 'master' | 'worker';
  count: number;
  flavor: FlavorSize;
  /** GB of each node's container runtime volume (the group's docker_volume_size); null: none. */
  runtimeVolumeGb: number | null;
}

export const zero = (): Usage => Object.fromEntries(QUOTA_NAMES.map((k) => [k, 0])) as Usage;

/** The quotas that are a limit per object (a group, a zone) rather than a project total. */
export const PER_OBJECT: ReadonlySet<QuotaName> = new Set(['server_group_members', 'zone_recordsets']);

/** Everything the cluster holds with these node groups (not the Magnum cluster itself). */
export function footprint(spec: ClusterSpec, groups: readonly GroupShape[]): Usage {
  const u = zero();
  const plan = networkPlan(spec);
  const lb = plan.loadBalancer;
  const masters = groups.filter((g) => g.role === 'master').reduce((n, g) => n + g.count, 0);
  const { bootVolume, etcdVolume } = spec.nodes;
  let nodes = 0;
  for (const g of groups) {
    nodes += g.count;
    u.cores += g.count * g.flavor.vcpus;
    u.ram += g.count * g.flavor.ram;
    // The node's volumes (servers.ts blockDevices): its boot volume, a control plane's etcd volume, the runtime volume.
    const volumes = [bootVolume?.sizeGb, g.role === 'master' ? etcdVolume?.sizeGb : undefined, g.runtimeVolumeGb ?? undefined].filter((x): x is number => !!x);
    u.volumes += g.count * volumes.length;
    u.gigabytes += g.count * volumes.reduce((a, b) => a + b, 0);
    u.server_group_members = Math.max(u.server_group_members, g.count);
  }
  u.instances = nodes;
  // One server group per node group, made for the group even while it has no node.
  u.server_groups = groups.length;
  const own = spec.network.createNetwork;
  u.network = u.subnet = u.router = own ? 1 : 0;
  // A port per node, the load balancer's VIP port, the router's interface on the cluster subnet.
  u.port = nodes + (lb ? 1 : 0) + (own ? 1 : 0);
  const groupsOfPlan = Object.values(plan.securityGroups);
  u.security_group = groupsOfPlan.length;
  // Neutron gives every new group two egress rules (IPv4, IPv6).
  u.security_group_rule = groupsOfPlan.reduce((n, g) => n + g.rules.length + 2, 0);
  // Each node's own floating IP (floating_ip_enabled); the API's on the load balancer's VIP, or without one the
  // single control plane's (the same address as that node's own when nodes have theirs); the ingress's kept address.
  const perNode = spec.nodeOps.floatingIp;
  const apiFip = spec.apiServer.floatingIp && (lb !== null || !perNode || masters === 0) ? 1 : 0;
  const wildcard = settingsOf<IngressSettings>(spec, 'ingress').wildcardDns;
  u.floatingip = (perNode ? nodes : 0) + apiFip + (wildcard ? 1 : 0);
  if (lb) {
    u.load_balancer = u.listener = u.pool = 1;
    u.member = masters;
    u.health_monitor = lb.monitor ? 1 : 0;
  }
  u.zone_recordsets = (spec.apiServer.dnsRecord ? 1 : 0) + (wildcard ? 1 : 0);
  u.secrets = spec.kms.enabled ? 1 : 0;
  return u;
}

/** The create's bill: the Magnum cluster and everything it holds once made. */
export function createBill(spec: ClusterSpec, groups: readonly GroupShape[]): Usage {
  return { ...footprint(spec, groups), clusters: 1 };
}

/**
 * What a change of node groups adds (resize, node group create): the footprint after less the one before,
 * never below zero. Per object: the members of the largest group that grows (or is new), the records of
 * the zone when they grow.
 */
export function changeBill(spec: ClusterSpec, before: readonly GroupShape[], after: readonly GroupShape[]): Usage {
  const a = footprint(spec, before);
  const b = footprint(spec, after);
  const out = zero();
  for (const k of QUOTA_NAMES) out[k] = PER_OBJECT.has(k) ? (b[k] > a[k] ? b[k] : 0) : Math.max(0, b[k] - a[k]);
  const was = new Map(before.map((g) => [g.name, g.count]));
  out.server_group_members = Math.max(0, ...after.filter((g) => g.count > (was.get(g.name) ?? -1)).map((g) => g.count));
  return out;
}

/** One step of a rolling replacement: `surge` new nodes of the group join before as many old ones go. */
export interface RollPhase {
  group: string;
  surge: number;
}

/**
 * The peak of a rolling replacement (upgrade, CA rotation): the phases run one after the other
 * (control planes first, one at a time; then each worker group by its batch), so each quota's peak is
 * the largest of the phases' surges over what the cluster holds.
 */
export function rollBill(spec: ClusterSpec, groups: readonly GroupShape[], phases: readonly RollPhase[]): Usage {
  const out = zero();
  for (const p of phases) {
    const surged = groups.map((g) => (g.name === p.group ? { ...g, count: g.count + p.surge } : g));
    const step = changeBill(spec, groups, surged);
    for (const k of QUOTA_NAMES) out[k] = Math.max(out[k], step[k]);
  }
  return out;
}

/** The phases of a roll: the control planes one at a time, then each rolled worker group by `batch` (at most its size). */
export function rollPhases(groups: readonly GroupShape[], rolled: readonly string[], batch: number): RollPhase[] {
  const phases: RollPhase[] = [];
  for (const g of groups) {
    if (!rolled.includes(g.name) || g.count === 0) continue;
    phases.push({ group: g.name, surge: g.role === 'master' ? 1 : Math.min(Math.max(1, batch), g.count) });
  }
  return phases.sort((a, b) => Number(groups.find((g) => g.name === b.group)?.role === 'master') - Number(groups.find((g) => g.name === a.group)?.role === 'master'));
}
