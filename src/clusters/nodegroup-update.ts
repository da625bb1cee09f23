// PATCH /v1/clusters/{cluster}/nodegroups/{nodegroup} (spec §3.4, §5): a JSON patch of which only the group's
// min_node_count and max_node_count may change, applied and checked under the cluster's lock, begun as the
// nodegroup_update operation (an unchanged group begins nothing).
import type { Config } from '../config.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import type { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { errors } from '../domain/errors.js';
import { applyPatch, BASE_INTERNAL, type PatchOp, type PatchRules } from '../domain/json-patch.js';
import { checkAtMost } from '../domain/limits.js';
import { atLeast, NODE_LABELS_VERSION, type ApiVersion } from '../domain/microversion.js';
import { enforce } from '../domain/policy.js';
import { beginOperation, started, UNCHANGED, type OperationDeps } from '../operations/begin.js';
import { findCluster, findNodegroup, ownScope } from './lookup.js';
import type { NodegroupCaller, Written } from './nodegroup-create.js';
import { checkBounds, checkCounts, checkNodegroupUpdatable } from './nodegroup-rules.js';

export interface NodegroupUpdateDeps {
  config: { limits: Pick<Config['limits'], 'maxNodeCount'> };
  clusters: Pick<ClusterRepo, 'find'>;
  nodegroups: Pick<NodeGroupRepo, 'find' | 'update'>;
  outbox: OperationDeps;
}

/** Only min_node_count and max_node_count may change (spec §5). */
const INTERNAL = [
  ...BASE_INTERNAL,
  '/name',
  '/cluster_id',
  '/project_id',
  '/docker_volume_size',
  '/labels',
  '/flavor_id',
  '/image_id',
  '/node_addresses',
  '/node_count',
  '/role',
  '/is_default',
  '/stack_id',
  '/status',
  '/status_reason',
  '/version',
];
const PATCH_RULES: PatchRules = { internal: new Set(INTERNAL), nonRemovable: new Set(), dictPaths: new Set() };
const PATCH_RULES_14: PatchRules = { ...PATCH_RULES, internal: new Set([...INTERNAL, '/node_labels', '/node_taints']) };


/** The group's attributes as a patch sees them (its stored fields). */
function patchDocument(ng: NodeGroupRow, version: ApiVersion): Record<string, unknown> {
  const { node_labels, node_taints, ...rest } = ng;
  return atLeast(version, NODE_LABELS_VERSION) ? { ...rest, node_labels, node_taints } : { ...rest };
}

/** PATCH of a node group: only min_node_count and max_node_count may change, checked under the cluster's lock. */
export async function startNodegroupUpdate(deps: NodegroupUpdateDeps, who: NodegroupCaller, clusterIdent: string, ngIdent: string, ops: PatchOp[]): Promise<Written> {
  const scope = ownScope(who.ctx);
  const found = await findCluster(deps.clusters, clusterIdent, scope);
  enforce(who.ctx, 'nodegroup:update');
  const foundNg = await findNodegroup(deps.nodegroups, found.uuid, ngIdent, scope);
  const rules = atLeast(who.version, NODE_LABELS_VERSION) ? PATCH_RULES_14 : PATCH_RULES;
  let ng = foundNg;
  const begun = await beginOperation(deps.outbox, found.uuid, {
    kind: 'nodegroup_update',
    check: async (em, cluster) => {
      ng = await findNodegroup(deps.nodegroups, cluster.uuid, foundNg.uuid, scope, em, true);
      const after = applyPatch(patchDocument(ng, who.version), ops, rules);
      const bounds: Record<string, unknown> = { min_node_count: after.min_node_count, max_node_count: after.max_node_count };
      checkBounds(bounds);
      for (const f of ['min_node_count', 'max_node_count'] as const) checkAtMost(f, bounds[f] as number | null, deps.config.limits.maxNodeCount);
      // A removed minimum returns to its default; a removed maximum means no bound.
      const next = { min_node_count: (bounds.min_node_count as number | null) ?? 0, max_node_count: bounds.max_node_count as number | null };
      checkCounts(ng.name, { node_count: ng.node_count, ...next });
      if (next.min_node_count === ng.min_node_count && next.max_node_count === ng.max_node_count) return UNCHANGED;
      checkNodegroupUpdatable(ng);
      return next;
    },
    change: async (em, _cluster, next) => {
      const changes = { ...next, status: 'UPDATE_IN_PROGRESS', status_reason: null, updated_at: new Date() };
      await deps.nodegroups.update(em, ng.id, changes);
      return { ...ng, ...changes };
    },
    params: (changed) => ({ nodegroup: changed.uuid }),
    event: (changed) => ({
      reason: 'NodeGroupUpdateAccepted',
      message: `Node group ${changed.name}: min_node_count ${changed.min_node_count}, max_node_count ${changed.max_node_count ?? 'none'}.`,
    }),
  });
  if (begun.outcome === 'unchanged') return { ng, cluster: begun.cluster };
  const { value, cluster } = started(begun, () => errors.notFound('Cluster', found.uuid));
  return { ng: value, cluster };
}
