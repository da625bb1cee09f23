// Whether Octavia's policy lets the caller make and manage load balancers: Zed's shipped policy gives a plain
// `member` 403 even on reads, and an observer role reads but may not write. What the caller may not do, the
// cluster's application credential made from the caller's roles may not do either: a create with a load balancer
// (src/preflight/headroom.ts) and a credential rotation of a cluster with one (src/clusters/rotate-credential.ts)
// are refused up front, naming the role.
import type { CallerCloud, CloudCaller } from '../openstack/caller.js';
import { isForbidden } from '../openstack/errors.js';
import { clusterTag } from '../domain/cloud-marks.js';

export const LB_ROLE = 'load-balancer_member';

/** Roles under which an observer's reads pass and writes would not: the caller may read, not make. */
export function observerOnly(roles: readonly string[]): boolean {
  const held = new Set(roles.map((r) => r.toLowerCase()));
  const observer = held.has('load-balancer_observer') || held.has('load-balancer_global_observer');
  return observer && ![LB_ROLE, 'load-balancer_admin', 'admin'].some((r) => held.has(r));
}

/**
 * Whether the caller lacks what managing the cluster's load balancer needs (true: refuse), asked of Octavia the way
 * its policy decides: one list, of the load balancers tagged as the cluster's (its own, one page). A cloud without
 * Octavia: false.
 */
export async function lacksLoadBalancerRole(who: CloudCaller, cloud: CallerCloud, clusterUuid: string): Promise<boolean> {
  if (!cloud.offers('load-balancer')) return false;
  if (observerOnly(who.ctx.roles)) return true;
  try {
    await cloud.octavia().listLoadBalancers({ tags: clusterTag(clusterUuid) });
    return false;
  } catch (e) {
    if (isForbidden(e)) return true;
    throw e;
  }
}
