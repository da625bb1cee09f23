// Deterministic names and the tag of every cloud resource a cluster owns, so that a resource whose
// create answered but was never recorded (a crash in between) is found again, never made twice.
import { createHash } from 'node:crypto';
import type { ClusterRow } from '../db/entities/cluster.js';

export { clusterTag, META } from '../domain/cloud-marks.js';

/** Description marker (Neutron tags come only after the create: the name and this cover the gap). */
export const clusterDescription = (uuid: string): string => `Magnum cluster ${uuid.toLowerCase()}`;

export type Role = 'network' | 'subnet' | 'router' | 'secgroup-controlplane' | 'secgroup-worker' | 'kubeapi' | 'kubeapi-6443';
export const ROLES: readonly Role[] = ['network', 'subnet', 'router', 'secgroup-controlplane', 'secgroup-worker', 'kubeapi', 'kubeapi-6443'];

/** `magnum-<name, sanitised, ≤20>-<uuid8>-<role>`. */
export function resourceName(c: Pick<ClusterRow, 'name' | 'uuid'>, role: Role): string {
  const base = c.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 20).replace(/-+$/, '') || 'k8s';
  return `magnum-${base}-${c.uuid.toLowerCase().slice(0, 8)}-${role}`;
}

/** A node group's server group: Nova server groups carry neither tags nor descriptions, so the full uuid goes in the name. */
export function serverGroupName(c: Pick<ClusterRow, 'uuid'>, nodegroup: string): string {
  return `magnum-${c.uuid.toLowerCase()}-${nodegroup}`.slice(0, 255);
}

/**
 * The i-th server a given operation adds to a node group: `<short name>-<group>-<5 chars>`, the
 * suffix derived from the operation, group and index, so a resumed run names it the same and finds
 * it instead of booting a second one. Lowercase RFC 1123 (it is the Kubernetes node name too).
 */
export function serverName(shortName: string, group: string, operationId: string, groupUuid: string, index: number): string {
  const digest = createHash('sha256').update(`${operationId}:${groupUuid}:${index}`).digest();
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += 'abcdefghijklmnopqrstuvwxyz0123456789'[digest[i]! % 36];
  const g = group.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 20).replace(/-+$/, '') || 'nodes';
  return `${shortName}-${g}-${suffix}`.slice(0, 63).replace(/-+$/, '');
}
