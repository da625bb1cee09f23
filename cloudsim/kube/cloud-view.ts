// What the simulated clusters see of the cloud, read from the other simulators' state: servers
// and their addresses, and whether an address:port reaches a control plane's apiserver through
// the network as the cloud has wired it (a fixed IP, a load balancer's VIP, a floating IP).
import type { GlanceState } from '../glance/state.js';
import type { LoadBalancer, Member as LbMember, OctaviaState } from '../octavia/state.js';
import { addressKey, type NeutronState } from '../neutron/state.js';
import type { NovaState } from '../nova/state.js';
import type { Server } from '../nova/servers.js';

export interface CloudStates {
  glance: GlanceState;
  nova: NovaState;
  neutron: NeutronState;
  octavia: OctaviaState;
}

export interface FixedAddress {
  ip: string;
  subnetId: string;
  portId: string;
}

/** An apiserver a packet may reach: its server and the port it binds. */
export interface ApiBackend {
  serverId: string;
  bindPort: number;
}

/** Settled objects of a load balancer's tree carry traffic. */
const settled = (o: { provisioning_status: string; admin_state_up: boolean }) =>
  o.admin_state_up && (o.provisioning_status === 'ACTIVE' || o.provisioning_status === 'PENDING_UPDATE');

export class CloudView {
  constructor(private readonly s: CloudStates) {}

  server(id: string): Server | undefined {
    return this.s.nova.servers.get(id);
  }

  /**
   * The properties of the image a server booted: its own, its boot volume's source, or the image a volume it
   * boots from was made of (Cinder's volume_image_metadata); {} when unknown.
   */
  imageProperties(s: Server): Record<string, string> {
    const boot = s.blockDevices.find((b) => b.bootIndex === 0);
    const fromVolume = boot?.sourceType === 'volume' && boot.volumeId ? this.s.nova.volumes?.volume(boot.volumeId, s.projectId)?.imageRef : undefined;
    const id = s.imageId || (boot?.sourceType === 'image' ? boot.uuid : fromVolume) || '';
    return { ...(this.s.glance.images.get(id)?.properties ?? {}) };
  }

  /** Appends to a server's console log (what its guest prints). */
  console(serverId: string, lines: string[]): void {
    if (lines.length > 0) this.s.nova.consoles.write(serverId, lines.join('\n'));
  }

  /** Servers not deleted yet. */
  liveServers(): Server[] {
    return this.s.nova.liveServers();
  }

  /** ACTIVE, not being deleted nor shelved: its kubelet and apiserver run. */
  alive(id: string): boolean {
    const s = this.server(id);
    return s !== undefined && s.vmState === 'active' && s.taskState !== 'deleting' && !s.taskState?.startsWith('shelving');
  }

  /** Shelved (or on the way in or out): its guest is off, its disk and ports kept for when it wakes. */
  sleeping(id: string): boolean {
    const s = this.server(id);
    if (s === undefined || s.taskState === 'deleting') return false;
    return s.vmState === 'shelved' || s.vmState === 'shelved_offloaded' || (s.vmState === 'active' && s.taskState?.startsWith('shelving') === true);
  }

  /** Live servers of a project with this name (how OCCM finds a node without a provider id). */
  serversNamed(projectId: string, name: string): Server[] {
    return this.s.nova.serversNamed(projectId, name).filter((x) => x.taskState !== 'deleting');
  }

  fixedAddresses(serverId: string): FixedAddress[] {
    const out: FixedAddress[] = [];
    for (const p of this.server(serverId)?.ports ?? []) {
      for (const f of this.s.neutron.ports.get(p.portId)?.fixedIps ?? []) out.push({ ip: f.ipAddress, subnetId: f.subnetId, portId: p.portId });
    }
    return out;
  }

  /** Floating IPs associated with one of the server's ports. */
  floatingAddresses(serverId: string): string[] {
    const ports = new Set((this.server(serverId)?.ports ?? []).map((p) => p.portId));
    return [...ports].flatMap((portId) => this.s.neutron.floatingIps.by('port', portId)).map((f) => f.floatingIpAddress);
  }

  /**
   * Every fixed IP `address` may lead to, as `network|ip` keys (`*|ip`: on any network): itself, the
   * members of a load balancer whose VIP it is, what a floating IP with that address points at (a
   * server's port or a VIP's load balancer). `from` as for `reaches`. A cheap superset, whatever the
   * states: it rules clusters out before `reaches` looks closer (hundreds of clusters share 10.0.0.0/24).
   */
  behind(address: string, from?: ReadonlySet<string>): Set<string> {
    const out = new Set<string>();
    const nets = from ?? ['*'];
    for (const net of nets) out.add(`${net}|${address}`);
    const o = this.s.octavia;
    const members = (lb: { id: string; vip_network_id: string }) => {
      for (const l of o.listenersOf(lb.id)) {
        if (!l.default_pool_id) continue;
        for (const m of o.membersOf(l.default_pool_id)) out.add(`${(m.subnet_id && this.networkOfSubnet(m.subnet_id)) || lb.vip_network_id}|${m.address}`);
      }
    };
    for (const lb of o.loadbalancers.by('vipAddress', address)) {
      if (from === undefined || from.has(lb.vip_network_id)) members(lb);
    }
    for (const fip of this.s.neutron.floatingIps.by('address', address)) {
      if (fip.portId === null) continue;
      for (const f of this.s.neutron.ports.get(fip.portId)?.fixedIps ?? []) out.add(`${this.networkOfSubnet(f.subnetId)}|${f.ipAddress}`);
      for (const lb of o.loadbalancers.by('vipPort', fip.portId)) members(lb);
    }
    return out;
  }

  /**
   * The servers holding a fixed address among `behind`'s keys (`network|ip`, or `*|ip` on any
   * network), each once: from the address to its ports, from a port to its device.
   */
  serversBehind(keys: ReadonlySet<string>): string[] {
    const n = this.s.neutron;
    const out = new Set<string>();
    for (const key of keys) {
      const bar = key.indexOf('|');
      const [net, ip] = [key.slice(0, bar), key.slice(bar + 1)];
      const ports = net === '*' ? n.ports.by('ip', ip) : n.subnets.by('network', net).flatMap((s) => n.ports.by('address', addressKey(s.id, ip)));
      for (const p of ports) if (this.s.nova.servers.has(p.deviceId)) out.add(p.deviceId);
    }
    return [...out];
  }

  /** Whether a fixed address is among `behind`'s keys. */
  isBehind(keys: ReadonlySet<string>, f: FixedAddress): boolean {
    return keys.has(`*|${f.ip}`) || keys.has(`${this.networkOfSubnet(f.subnetId)}|${f.ip}`);
  }

  private networkOfSubnet(subnetId: string): string {
    return this.s.neutron.subnets.get(subnetId)?.networkId ?? '';
  }

  /**
   * Whether `address:port` reaches one of `backends`: (a) a backend's fixed IP on its bind port;
   * (b) the VIP of an ACTIVE (or PENDING_UPDATE) load balancer whose listener on `port` has a default pool with a
   * member on a backend's address and bind port; (c) a floating IP on such a VIP port or on a backend's port.
   */
  /** The networks a server is attached to (where its private addresses resolve). */
  networksOf(serverId: string): Set<string> {
    const out = new Set<string>();
    for (const f of this.fixedAddresses(serverId)) {
      const net = this.s.neutron.subnets.get(f.subnetId)?.networkId;
      if (net) out.add(net);
    }
    return out;
  }

  /**
   * `from`: the networks the caller sits on; private addresses (fixed IPs, VIPs) resolve only on
   * them (two clusters of a project may both have 10.0.0.10). Without it (a client outside the
   * cloud, through the admin API) any matching private address answers.
   */
  reaches(address: string, port: number, backends: readonly ApiBackend[], from?: ReadonlySet<string>): boolean {
    const onNet = (subnetId: string) => from === undefined || from.has(this.s.neutron.subnets.get(subnetId)?.networkId ?? '');
    const byIp = new Map<string, { b: ApiBackend; f: FixedAddress }>();
    const byPort = new Map<string, { b: ApiBackend; f: FixedAddress }>();
    for (const b of backends) {
      for (const f of this.fixedAddresses(b.serverId)) {
        byIp.set(f.ip, { b, f });
        byPort.set(f.portId, { b, f });
      }
    }
    const direct = byIp.get(address);
    if (direct && direct.b.bindPort === port && onNet(direct.f.subnetId)) return true;
    const memberOk = (m: LbMember) => {
      const hit = byIp.get(m.address);
      return settled(m) && hit !== undefined && hit.b.bindPort === m.protocol_port && (m.subnet_id === null || m.subnet_id === hit.f.subnetId);
    };
    const viaLb = (lbs: LoadBalancer[], vip: (lb: LoadBalancer) => boolean) => {
      for (const lb of lbs) {
        // An amphora keeps serving its last configuration while a change is pushed (PENDING_UPDATE).
        if (!settled(lb) || !vip(lb)) continue;
        for (const l of this.s.octavia.listenersOf(lb.id)) {
          if (l.protocol_port !== port || !settled(l) || !l.default_pool_id) continue;
          const pool = this.s.octavia.pools.get(l.default_pool_id);
          if (pool && settled(pool) && this.s.octavia.membersOf(pool.id).some(memberOk)) return true;
        }
      }
      return false;
    };
    const lbs = this.s.octavia.loadbalancers;
    if (viaLb(lbs.by('vipAddress', address), (lb) => from === undefined || from.has(lb.vip_network_id))) return true;
    for (const fip of this.s.neutron.floatingIps.by('address', address)) {
      if (fip.portId === null) continue;
      const onServer = byPort.get(fip.portId);
      if (onServer && onServer.b.bindPort === port && (fip.fixedIpAddress === null || fip.fixedIpAddress === onServer.f.ip)) return true;
      if (viaLb(lbs.by('vipPort', fip.portId), () => true)) return true;
    }
    return false;
  }
}
