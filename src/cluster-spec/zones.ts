// Availability zones of a cluster's nodes. The labels (magnum-cluster-api's names where it has them):
// `availability_zone` (Magnum's: every node; a node group's own label: its nodes), the list
// `control_plane_availability_zones` the control planes are spread over, and the list
// `worker_availability_zones` (ours) the worker groups without a zone of their own are spread over.
// A node's zone follows from its index in its group (round-robin over the group's list), so the same
// node lands in the same zone on every retry of its operation, and a replacement in the zone of the node
// it replaces. Zone names become the Nodes' topology.kubernetes.io/zone label (OCCM copies the server's).
import { errors } from '../domain/errors.js';
import type { LabelType } from './labels/types.js';
import type { NodesSpec } from './types.js';

/** A Kubernetes label value: the cloud provider puts the zone's name in one. */
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** One zone's name ('' for none). */
export const zoneName: LabelType<string> = {
  accepts: 'availability zone name',
  parse(raw) {
    const v = raw.trim();
    if (v !== '' && !LABEL_VALUE.test(v)) {
      throw new Error(
        "Expected an availability zone name: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, no spaces (the cloud provider makes it the Nodes' topology.kubernetes.io/zone label).",
      );
    }
    return v;
  },
};

/** Comma-separated zone names, each once ('' for none). */
export const zoneList: LabelType<string[]> = {
  accepts: 'comma-separated availability zone names',
  parse(raw) {
    const zones = raw.split(',').map((z) => z.trim());
    if (zones.length === 1 && zones[0] === '') return [];
    for (const z of zones) {
      if (z === '') throw new Error('Expected zone names separated by commas, without an empty one.');
      try {
        zoneName.parse(z);
      } catch (e) {
        throw new Error(`'${z}': ${(e as Error).message}`);
      }
    }
    const twice = zones.find((z, i) => zones.indexOf(z) !== i);
    if (twice) throw new Error(`Zone ${twice} is listed twice.`);
    return zones;
  },
};

/** The labels naming zones, with the type of their values. */
export const ZONE_LABELS = {
  availability_zone: zoneName,
  control_plane_availability_zones: zoneList,
  worker_availability_zones: zoneList,
} as const;

/** Every zone the labels name, with the label naming it (a value that does not parse is the label's 400). */
export function zonesNamed(labels: Record<string, string> | null | undefined): { label: string; zone: string }[] {
  const out: { label: string; zone: string }[] = [];
  for (const [label, type] of Object.entries(ZONE_LABELS)) {
    const raw = labels?.[label];
    if (raw === undefined) continue;
    let parsed: string | string[];
    try {
      parsed = type.parse(raw);
    } catch (e) {
      throw errors.invalidLabel(label, raw, (e as Error).message);
    }
    for (const zone of Array.isArray(parsed) ? parsed : [parsed]) if (zone !== '') out.push({ label, zone });
  }
  return out;
}

export interface ZonedGroup {
  role: string;
  labels: Record<string, string> | null;
}

/**
 * A node group's own zone: its label availability_zone when it differs from the cluster's (a group given a
 * zone of its own; the default groups and the groups made without labels carry the cluster's).
 */
export function ownZone(group: ZonedGroup, clusterLabels: Record<string, string>): string | undefined {
  const v = group.labels?.availability_zone;
  if (v === undefined || v === clusterLabels.availability_zone) return undefined;
  const zone = zoneName.parse(v);
  return zone === '' ? undefined : zone;
}

/**
 * The zones a group's nodes are spread over, in order ([]: wherever Nova places them). Control planes:
 * control_plane_availability_zones, else availability_zone. A worker group: its own zone, else
 * worker_availability_zones, else availability_zone.
 */
export function groupZones(nodes: NodesSpec, group: ZonedGroup, clusterLabels: Record<string, string>): string[] {
  const all = nodes.availabilityZone ? [nodes.availabilityZone] : [];
  if (group.role === 'master') return nodes.controlPlaneZones.length > 0 ? nodes.controlPlaneZones : all;
  const own = ownZone(group, clusterLabels);
  if (own) return [own];
  return nodes.workerZones.length > 0 ? nodes.workerZones : all;
}

/** The zone of the node of index `index` in its group (round-robin); undefined: none asked. */
export const zoneOf = (zones: readonly string[], index: number): string | undefined => (zones.length > 0 ? zones[index % zones.length] : undefined);

export interface QuorumLoss {
  zone: string;
  /** Control planes in that zone. */
  members: number;
  /** etcd's quorum of the control planes. */
  quorum: number;
}

/**
 * Whether spreading `count` control planes round-robin over `zones` leaves etcd without quorum when one zone
 * is lost: the first zone holding the most members, or undefined when any single zone may go. Only asked of a
 * spread (two zones or more): one zone or one control plane tolerates no zone loss and claims none.
 */
export function quorumLoss(count: number, zones: readonly string[]): QuorumLoss | undefined {
  if (zones.length < 2 || count < 2) return undefined;
  const members = zones.map((_, z) => Array.from({ length: count }, (__, i) => i).filter((i) => i % zones.length === z).length);
  const most = Math.max(...members);
  const quorum = Math.floor(count / 2) + 1;
  if (count - most >= quorum) return undefined;
  return { zone: zones[members.indexOf(most)]!, members: most, quorum };
}

/**
 * The index each live node of a group holds: the one its server records, else (servers made before indexes
 * were recorded) the lowest index nobody records, in name order. Two nodes may hold one index while one
 * replaces the other.
 */
export function heldIndexes(nodes: readonly { name: string; index: number | null }[]): Map<string, number> {
  const held = new Map<string, number>();
  for (const n of nodes) if (n.index !== null) held.set(n.name, n.index);
  const unrecorded = nodes.filter((n) => n.index === null).map((n) => n.name).sort();
  const free = freeIndexes(held.values(), unrecorded.length);
  unrecorded.forEach((name, i) => held.set(name, free[i]!));
  return held;
}

/** The `count` lowest indexes not in `held`, in order: where new nodes of a group go. */
export function freeIndexes(held: Iterable<number>, count: number): number[] {
  const taken = new Set(held);
  const out: number[] = [];
  for (let i = 0; out.length < count; i++) if (!taken.has(i)) out.push(i);
  return out;
}
