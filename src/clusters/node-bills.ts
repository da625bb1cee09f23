// The bills of the node changes started outside the cluster routes: a node group create (what its nodes
// and its server group add) and a CA rotation (the roll's peak: one control plane, then one node of each
// group at a time). Both weigh against the project's quotas as every other operation does (preflight.ts).
import type { ClusterRow } from '../db/entities/cluster.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { Services } from '../api/services.js';
import { templateOf } from './actions.js';
import type { Assessment } from '../preflight/assess.js';
import { clusterSpecOf, groupPlan, groupPlans, preflight, type Caller } from '../preflight/preflight.js';

export type NewGroup = Pick<NodeGroupRow, 'name' | 'role' | 'node_count' | 'flavor_id' | 'docker_volume_size'>;

async function context(s: Services, who: Caller, c: ClusterRow) {
  const t = await templateOf(s, c);
  const groups = await s.clusters.nodegroups([c.uuid]);
  return { t, groups, spec: await clusterSpecOf(s, who, c, t, groups) };
}

/** What a new node group adds: its nodes, their ports, floating IPs and volumes, and its server group. */
export async function nodegroupCreateBill(s: Services, who: Caller, c: ClusterRow, group: NewGroup): Promise<Assessment> {
  const { t, groups, spec } = await context(s, who, c);
  const before = groupPlans(c, t, groups);
  return preflight(s, who, { template: t, cluster: c, spec, bill: { kind: 'change', before, after: [...before, groupPlan(c, t, group)] } });
}

/** A CA rotation's peak: every group rolled, control planes first, one node at a time. */
export async function rotationBill(s: Services, who: Caller, c: ClusterRow): Promise<Assessment> {
  const { t, groups, spec } = await context(s, who, c);
  return preflight(s, who, { template: t, cluster: c, spec, bill: { kind: 'roll', groups: groupPlans(c, t, groups), rolled: groups.map((g) => g.name), batch: 1 } });
}
