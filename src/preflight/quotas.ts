// The units of the quota bill: every quota a cluster can consume (by the service that keeps it, in that
// service's own name), an amount of each (Usage), the node groups as the bill sees them, and what a worker
// step declares beside its ensure and purge: the part of a cluster it makes (StepBill). The bill of an
// operation is summed from the steps of the create graph (footprint.ts), so a step that makes something
// in the cloud says so where it makes it.
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

export const zero = (): Usage => Object.fromEntries(QUOTA_NAMES.map((k) => [k, 0])) as Usage;

/** The quotas that are a limit per object (a group, a zone) rather than a project total. */
export const PER_OBJECT: ReadonlySet<QuotaName> = new Set(['server_group_members', 'zone_recordsets']);

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

/** What a step's bill is computed from: the cluster's spec and its node groups. */
export interface BillInput {
  spec: ClusterSpec;
  groups: readonly GroupShape[];
}

/** The part of a cluster a step makes in the cloud (the quotas it does not name: none). */
export type StepBill = (input: BillInput) => Partial<Usage>;

/** A step as the bill sees it: its name and, when it makes anything that counts against a quota, its bill. */
export interface Billed {
  name: string;
  bill?: StepBill;
}

/**
 * `part` added into `into`: sums, but for the members of a server group, which is the largest group's size (each
 * group its own server group). The records of a zone sum: every record the cluster publishes is in the API's zone.
 */
export function addUsage(into: Usage, part: Partial<Usage>): Usage {
  for (const [k, v] of Object.entries(part) as [QuotaName, number][]) into[k] = k === 'server_group_members' ? Math.max(into[k], v) : into[k] + v;
  return into;
}

/** `count` nodes of group `g`: the servers, their flavor's vCPUs and RAM, their volumes and (floating_ip_enabled) their floating IPs. */
export function nodesUsage(spec: ClusterSpec, g: GroupShape, count: number): Partial<Usage> {
  if (count <= 0) return {};
  const { bootVolume, etcdVolume } = spec.nodes;
  const volumes = [bootVolume?.sizeGb, g.role === 'master' ? etcdVolume?.sizeGb : undefined, g.runtimeVolumeGb ?? undefined].filter((x): x is number => !!x);
  return {
    instances: count,
    cores: count * g.flavor.vcpus,
    ram: count * g.flavor.ram,
    volumes: count * volumes.length,
    gigabytes: count * volumes.reduce((a, b) => a + b, 0),
    floatingip: spec.nodeOps.floatingIp ? count : 0,
  };
}

/** The nodes of the groups `role` picks, summed (their ports and servers are made group by group). */
export function roleNodes(input: BillInput, role: 'master' | 'worker'): Partial<Usage> {
  const u = zero();
  for (const g of input.groups) if (g.role === role) addUsage(u, nodesUsage(input.spec, g, g.count));
  return u;
}

export const masterCount = (groups: readonly GroupShape[]): number => groups.filter((g) => g.role === 'master').reduce((n, g) => n + g.count, 0);
export const nodeCount = (groups: readonly GroupShape[]): number => groups.reduce((n, g) => n + g.count, 0);
