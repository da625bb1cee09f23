// Neutron's resources, in memory (their shapes: resources.ts): networks, subnets, ports, routers,
// security groups and their rules, floating IPs, each in an IndexedMap, and per-project quotas. The
// routes enforce the API rules; tests and the seed may also add networks and subnets here directly.
import { randomUUID } from 'node:crypto';
import type { AuditResource, Auditable, Snapshotable } from '../common/audit.js';
import { Faults } from '../common/faults.js';
import { IndexedMap } from '../common/indexed-map.js';
import { parseIp } from './ip.js';
import type { FloatingIp, Network, NewNetwork, NewSubnet, Port, Router, SecurityGroup, SecurityGroupRule, Standard, Subnet } from './resources.js';

export type { FixedIp, FloatingIp, GatewayInfo, Network, NewNetwork, NewSubnet, Pool, Port, Router, SecurityGroup, SecurityGroupRule, Standard, Subnet } from './resources.js';

export const QUOTA_RESOURCES = ['network', 'subnet', 'port', 'router', 'floatingip', 'security_group', 'security_group_rule'] as const;
export type QuotaResource = (typeof QUOTA_RESOURCES)[number];

/** Neutron's default quotas (neutron.conf [quotas]); -1 is unlimited. */
export const DEFAULT_QUOTAS: Record<QuotaResource, number> = {
  network: 100,
  subnet: 100,
  port: 500,
  router: 10,
  floatingip: 50,
  security_group: 10,
  security_group_rule: 100,
};

const standard = (input: { id?: string; projectId?: string }): Standard => {
  const now = Date.now();
  return { id: input.id ?? randomUUID(), projectId: '', name: '', description: '', tags: [], createdAt: now, updatedAt: now, revisionNumber: 1 };
};

interface NeutronSnapshot {
  networks: Network[];
  subnets: Subnet[];
  ports: Port[];
  routers: Router[];
  securityGroups: SecurityGroup[];
  securityGroupRules: SecurityGroupRule[];
  floatingIps: FloatingIp[];
  /** Per-project overrides; the defaults are configuration (the seed file), not state. */
  quotas: Record<string, Partial<Record<QuotaResource, number>>>;
}

/** The indexes every resource with the standard attributes has: what the API filters on most. */
const STANDARD = {
  project: (i: Standard) => i.projectId,
  name: (i: Standard) => i.name,
  tag: (i: Standard) => i.tags,
};

/** Where IPAM starts looking in a subnet: its `pool`-th pool, from address `ip` (a number). */
export interface FreeFrom {
  pool: number;
  ip: number;
}

/** The key of a port's address in the `address` index: `subnet|ip`. */
export const addressKey = (subnetId: string, ip: string): string => `${subnetId}|${ip}`;

export class NeutronState implements Auditable, Snapshotable {
  /** `open`: shared or external, what every project sees. */
  readonly networks = new IndexedMap<Network, keyof typeof STANDARD | 'open'>({ ...STANDARD, open: (n) => (n.shared || n.external ? 'yes' : null) });
  readonly subnets = new IndexedMap<Subnet, keyof typeof STANDARD | 'network'>({ ...STANDARD, network: (s) => s.networkId });
  /**
   * Per subnet, where IPAM starts looking for a free address (a pool, in the subnet's order, and an
   * address of it): every pool address before it is held. An address released before it moves it
   * back; a change of the pools forgets it.
   */
  readonly freeFrom = new Map<string, FreeFrom>();
  /** `device`: device_id; `subnet`: the subnets of its fixed IPs; `address`: addressKey of each; `ip`: each IP on any subnet; `group`: its security groups. */
  readonly ports = new IndexedMap<Port, keyof typeof STANDARD | 'network' | 'device' | 'subnet' | 'address' | 'ip' | 'mac' | 'group'>(
    {
      ...STANDARD,
      network: (p) => p.networkId,
      device: (p) => p.deviceId,
      subnet: (p) => p.fixedIps.map((f) => f.subnetId),
      address: (p) => p.fixedIps.map((f) => addressKey(f.subnetId, f.ipAddress)),
      ip: (p) => p.fixedIps.map((f) => f.ipAddress),
      mac: (p) => p.macAddress,
      group: (p) => p.securityGroups,
    },
    { address: (key) => this.released(key) },
  );
  readonly routers = new IndexedMap<Router, keyof typeof STANDARD>(STANDARD);
  /** `projectName`: `project|name` (a project's `default` group). */
  readonly securityGroups = new IndexedMap<SecurityGroup, keyof typeof STANDARD | 'projectName'>({ ...STANDARD, projectName: (g) => `${g.projectId}|${g.name}` });
  /** `group`: the rule's group; `remote`: the group it lets in. */
  readonly securityGroupRules = new IndexedMap<SecurityGroupRule, 'project' | 'group' | 'remote'>({
    project: (r) => r.projectId,
    group: (r) => r.securityGroupId,
    remote: (r) => r.remoteGroupId,
  });
  /** `address`: floating_ip_address; `port`: the port it points at; `router`: the router it goes through. */
  readonly floatingIps = new IndexedMap<FloatingIp, 'project' | 'tag' | 'address' | 'port' | 'router' | 'network'>({
    project: (f) => f.projectId,
    tag: (f) => f.tags,
    address: (f) => f.floatingIpAddress,
    port: (f) => f.portId,
    router: (f) => f.routerId,
    network: (f) => f.floatingNetworkId,
  });
  /** Per-project overrides of DEFAULT_QUOTAS. */
  readonly quotas = new Map<string, Partial<Record<QuotaResource, number>>>();
  /** The quotas of projects without overrides (the seed file may change them). */
  defaultQuotas: Record<QuotaResource, number> = { ...DEFAULT_QUOTAS };
  /** The zones of the simulated DHCP and L3 agents (every network and router is in all of them). */
  readonly zones: string[] = ['nova'];
  readonly faults = new Faults();

  addNetwork(input: NewNetwork): Network {
    const network: Network = {
      ...standard(input),
      adminStateUp: true,
      status: 'ACTIVE',
      shared: false,
      external: false,
      mtu: 1500,
      subnets: [],
      portSecurityEnabled: true,
      availabilityZoneHints: [],
      availabilityZones: [...this.zones],
      isDefault: false,
      providerNetworkType: 'vxlan',
      providerPhysicalNetwork: null,
      providerSegmentationId: null,
      ...input,
    };
    if (this.networks.has(network.id)) throw new Error(`neutron sim: network ${network.id} exists`);
    this.networks.set(network.id, network);
    return network;
  }

  /** Adds a subnet as given (no validation: the API route validates); pools default to nothing. */
  addSubnet(input: NewSubnet): Subnet {
    const network = this.networks.get(input.networkId);
    if (!network) throw new Error(`neutron sim: no network ${input.networkId}`);
    const subnet: Subnet = {
      ...standard(input),
      projectId: network.projectId,
      ipVersion: 4,
      gatewayIp: null,
      enableDhcp: true,
      dnsNameservers: [],
      allocationPools: [],
      hostRoutes: [],
      ...input,
    };
    this.subnets.set(subnet.id, subnet);
    network.subnets.push(subnet.id);
    return subnet;
  }

  addPort(input: Partial<Port> & Pick<Port, 'networkId' | 'macAddress'>): Port {
    const port: Port = {
      ...standard(input),
      adminStateUp: true,
      status: 'DOWN',
      fixedIps: [],
      deviceId: '',
      deviceOwner: '',
      securityGroups: [],
      portSecurityEnabled: true,
      allowedAddressPairs: [],
      bindingHostId: '',
      bindingVnicType: 'normal',
      ...input,
    };
    this.ports.set(port.id, port);
    return port;
  }

  /** An address went back to its subnet: IPAM looks from there again. */
  private released(key: string): void {
    const [subnetId, ip] = key.split('|') as [string, string];
    const from = this.freeFrom.get(subnetId);
    const n = parseIp(ip);
    if (from === undefined || n === undefined) return;
    const pool = this.subnets.get(subnetId)?.allocationPools.findIndex((p) => parseIp(p.start)! <= n && n <= parseIp(p.end)!) ?? -1;
    if (pool >= 0 && (pool < from.pool || (pool === from.pool && n < from.ip))) this.freeFrom.set(subnetId, { pool, ip: n });
  }

  newStandard(projectId: string): Standard {
    return { ...standard({}), projectId };
  }

  /** Files a resource changed in place (its name, tags, device, addresses...) again in its map's indexes. */
  refile(item: { id: string }): void {
    const maps: { get(id: string): unknown; refile(id: string): void }[] = [this.networks, this.subnets, this.ports, this.routers, this.securityGroups, this.securityGroupRules, this.floatingIps];
    for (const map of maps) {
      if (map.get(item.id) === item) map.refile(item.id);
    }
  }

  /** Removes a network with its subnets and ports (test clean-up; the API refuses networks in use). */
  removeNetwork(id: string): void {
    for (const p of this.ports.by('network', id)) this.ports.delete(p.id);
    for (const s of this.subnets.by('network', id)) {
      this.subnets.delete(s.id);
      this.freeFrom.delete(s.id);
    }
    this.networks.delete(id);
  }

  quota(projectId: string, resource: QuotaResource): number {
    return this.quotas.get(projectId)?.[resource] ?? this.defaultQuotas[resource];
  }

  /** How many `resource`s the project holds now. */
  usage(projectId: string, resource: QuotaResource): number {
    const maps: Record<QuotaResource, { count(index: 'project', key: string): number }> = {
      network: this.networks,
      subnet: this.subnets,
      port: this.ports,
      router: this.routers,
      floatingip: this.floatingIps,
      security_group: this.securityGroups,
      security_group_rule: this.securityGroupRules,
    };
    return maps[resource].count('project', projectId);
  }

  auditResources(): AuditResource[] {
    const of = (type: string, items: Iterable<Standard>) =>
      [...items].map((i) => ({ type, id: i.id, project_id: i.projectId, name: i.name, tags: [...i.tags] }));
    return [
      ...of('network', this.networks.values()),
      ...of('subnet', this.subnets.values()),
      ...of('port', this.ports.values()),
      ...of('router', this.routers.values()),
      ...of('security_group', this.securityGroups.values()),
      ...[...this.floatingIps.values()].map((f) => ({ type: 'floatingip', id: f.id, project_id: f.projectId, name: f.floatingIpAddress, tags: [...f.tags] })),
    ];
  }

  snapshot(): NeutronSnapshot {
    return {
      networks: [...this.networks.values()],
      subnets: [...this.subnets.values()],
      ports: [...this.ports.values()],
      routers: [...this.routers.values()],
      securityGroups: [...this.securityGroups.values()],
      securityGroupRules: [...this.securityGroupRules.values()],
      floatingIps: [...this.floatingIps.values()],
      quotas: Object.fromEntries(this.quotas),
    };
  }

  restore(snapshot: unknown): void {
    const s = snapshot as NeutronSnapshot;
    const load = <T extends { id: string }>(map: Map<string, T>, items: T[]) => {
      map.clear();
      for (const i of items) map.set(i.id, i);
    };
    load(this.networks, s.networks);
    load(this.subnets, s.subnets);
    load(this.ports, s.ports);
    load(this.routers, s.routers);
    load(this.securityGroups, s.securityGroups);
    load(this.securityGroupRules, s.securityGroupRules);
    load(this.floatingIps, s.floatingIps);
    this.freeFrom.clear();
    this.quotas.clear();
    for (const [p, q] of Object.entries(s.quotas)) this.quotas.set(p, q);
  }
}
