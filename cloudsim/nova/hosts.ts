// The simulated compute hosts: the availability zones (from the seed file) and the hosts in each,
// the scheduler's choice of hosts for a zone, and what a host's hypervisor reports (its capacity,
// and the usage of the servers placed on it). The first zone is Nova's default_availability_zone:
// its hosts are in no aggregate; every other zone is a host aggregate with that zone in its metadata.
import { createHash } from 'node:crypto';
import type { Server } from './servers.js';

export interface ComputeZone {
  name: string;
  hosts: string[];
}

/** `compute-NN` names, numbered from `first`. */
export const hostNames = (first: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `compute-${String(first + i).padStart(2, '0')}`);

/** Zones given as host counts (the seed file's form), hosts numbered across the zones in order. */
export function zonesOf(counts: { name: string; hosts: number }[]): ComputeZone[] {
  let next = 1;
  return counts.map((z) => {
    const hosts = hostNames(next, z.hosts);
    next += z.hosts;
    return { name: z.name, hosts };
  });
}

/** One zone, `nova`, with sixteen hosts: the simulator's default without a seed file. */
export const DEFAULT_ZONES: ComputeZone[] = [{ name: 'nova', hosts: hostNames(1, 16) }];

export const allHosts = (zones: ComputeZone[]): string[] => zones.flatMap((z) => z.hosts);

/** The hosts the scheduler may pick for a server asking for `zone` (any host when it asks for none). */
export const hostsIn = (zones: ComputeZone[], zone: string | null): string[] =>
  zone === null ? allHosts(zones) : (zones.find((z) => z.name === zone)?.hosts ?? []);

export const zoneOfHost = (zones: ComputeZone[], host: string): string | undefined => zones.find((z) => z.hosts.includes(host))?.name;

/** A stable UUID for a name (the same host has the same compute node and service UUIDs on every start). */
export function stableUuid(kind: string, name: string): string {
  const h = createHash('sha1').update(`cloudsim:${kind}:${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

/** Every simulated hypervisor is the same machine: libvirt/QEMU with this much room. */
export const HYPERVISOR = { type: 'QEMU', version: 8002002, vcpus: 64, memoryMb: 262_144, localGb: 2_048 } as const;

/** What Nova's compute node record says of a host. */
export interface HostFacts {
  /** 1-based position among all hosts: the compute node id before 2.53. */
  index: number;
  host: string;
  zone: string;
  uuid: string;
  serviceUuid: string;
  hypervisorHostname: string;
  hostIp: string;
  vcpusUsed: number;
  memoryMbUsed: number;
  localGbUsed: number;
  runningVms: number;
  servers: Server[];
}

/** The hypervisor name Nova reports for a host (also a server's OS-EXT-SRV-ATTR:hypervisor_hostname). */
export const hypervisorHostname = (host: string): string => `${host}.cloudsim`;

/** The compute nodes, in host order, with the usage of the servers on them (deleted and failed ones hold nothing). */
export function computeNodes(zones: ComputeZone[], servers: Iterable<Server>): HostFacts[] {
  const placed = new Map<string, Server[]>();
  for (const s of servers) {
    if (!s.host || s.vmState === 'deleted' || s.vmState === 'error') continue;
    placed.set(s.host, [...(placed.get(s.host) ?? []), s]);
  }
  return zones.flatMap((z) => z.hosts.map((host) => ({ host, zone: z.name }))).map(({ host, zone }, i) => {
    const on = placed.get(host) ?? [];
    return {
      index: i + 1,
      host,
      zone,
      uuid: stableUuid('compute-node', host),
      serviceUuid: stableUuid('service', host),
      hypervisorHostname: hypervisorHostname(host),
      hostIp: `192.0.2.${10 + i}`,
      vcpusUsed: on.reduce((n, s) => n + s.flavor.vcpus, 0),
      memoryMbUsed: 512 + on.reduce((n, s) => n + s.flavor.ram, 0),
      localGbUsed: on.reduce((n, s) => n + s.flavor.disk + s.flavor.ephemeral, 0),
      runningVms: on.length,
      servers: on,
    };
  });
}
