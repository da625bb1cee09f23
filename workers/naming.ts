// Deterministic names and the tag of every cloud resource a cluster owns, so that a resource whose
// create answered but was never recorded (a crash in between) is found again, never made twice.
import type { ClusterRow } from '../src/db/entities/cluster.js';

/** Neutron/Octavia/Nova tag carried by every resource of the cluster. */
export const clusterTag = (uuid: string): string => `magnum-cluster=${uuid.toLowerCase()}`;

/** Description marker (Neutron tags come only after the create: the name and this cover the gap). */
export const clusterDescription = (uuid: string): string => `Magnum cluster ${uuid.toLowerCase()}`;

export type Role = 'network' | 'subnet' | 'router' | 'secgroup-controlplane' | 'secgroup-worker';
export const ROLES: readonly Role[] = ['network', 'subnet', 'router', 'secgroup-controlplane', 'secgroup-worker'];

/** `magnum-<name, sanitised, ≤20>-<uuid8>-<role>`. */
export function resourceName(c: Pick<ClusterRow, 'name' | 'uuid'>, role: Role): string {
  const base = c.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 20).replace(/-+$/, '') || 'k8s';
  return `magnum-${base}-${c.uuid.toLowerCase().slice(0, 8)}-${role}`;
}
