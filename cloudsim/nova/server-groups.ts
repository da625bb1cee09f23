// Server groups (spec openstack-apis §2.8) and the scheduler's use of them: a server joins its
// group at create; placement honours affinity and anti-affinity over the simulated hosts, and a
// hard policy that cannot be met is a NoValidHost.
import type { SeededRandom } from '../common/clock.js';

export const POLICIES = ['anti-affinity', 'affinity', 'soft-anti-affinity', 'soft-affinity'] as const;
export type Policy = (typeof POLICIES)[number];

export interface ServerGroup {
  id: string;
  name: string;
  policy: Policy;
  /** Only anti-affinity: max_server_per_host (default 1). */
  rules: { max_server_per_host?: number };
  /** Server ids, in join order. */
  members: string[];
  projectId: string;
  userId: string;
  createdAt: number;
}

/** Where group members run now: host → how many. */
export type HostLoad = Map<string, number>;

/**
 * Picks a host among `hosts` for a new member of `group` (undefined: no valid host). Without a
 * group any host does; the choice is drawn from the seeded stream.
 */
export function pickHost(hosts: string[], group: ServerGroup | undefined, load: HostLoad, random: SeededRandom): string | undefined {
  const any = (from: string[]) => (from.length === 0 ? undefined : from[Math.floor(random.random() * from.length)]);
  if (!group) return any(hosts);
  const used = [...load.entries()].filter(([, n]) => n > 0);
  switch (group.policy) {
    case 'affinity':
      return used.length > 0 ? used[0]![0] : any(hosts);
    case 'soft-affinity': {
      const busiest = used.sort((a, b) => b[1] - a[1])[0];
      return busiest ? busiest[0] : any(hosts);
    }
    case 'anti-affinity': {
      const max = group.rules.max_server_per_host ?? 1;
      return any(hosts.filter((h) => (load.get(h) ?? 0) < max));
    }
    case 'soft-anti-affinity': {
      const least = Math.min(...hosts.map((h) => load.get(h) ?? 0));
      return any(hosts.filter((h) => (load.get(h) ?? 0) === least));
    }
  }
}
