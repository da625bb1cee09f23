// DELETE /v1/clusters/{cluster}/nodegroups/{nodegroup} (spec §3.4): any group but the default ones, begun as the
// nodegroup_delete operation (its nodes drained and removed, then its server group and row).
import type { ClusterRepo } from '../db/repos/clusters.js';
import type { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { errors } from '../domain/errors.js';
import { enforce } from '../domain/policy.js';
import { beginOperation, started, type OperationDeps } from '../operations/begin.js';
import { findCluster, findNodegroup, ownScope, type Caller } from './lookup.js';

export interface NodegroupDeleteDeps {
  clusters: Pick<ClusterRepo, 'find'>;
  nodegroups: Pick<NodeGroupRepo, 'find' | 'update'>;
  outbox: OperationDeps;
}

export async function startNodegroupDelete(deps: NodegroupDeleteDeps, who: Caller, clusterIdent: string, ngIdent: string): Promise<void> {
  enforce(who.ctx, 'nodegroup:delete');
  const scope = ownScope(who.ctx);
  const found = await findCluster(deps.clusters, clusterIdent, scope);
  const foundNg = await findNodegroup(deps.nodegroups, found.uuid, ngIdent, scope);
  if (foundNg.is_default) throw errors.deleteDefaultNodegroup();
  const begun = await beginOperation(deps.outbox, found.uuid, {
    kind: 'nodegroup_delete',
    check: (em, cluster) => findNodegroup(deps.nodegroups, cluster.uuid, foundNg.uuid, scope, em, true),
    change: (em, _cluster, ng) => deps.nodegroups.update(em, ng.id, { status: 'DELETE_IN_PROGRESS', status_reason: null, updated_at: new Date() }),
    params: { nodegroup: foundNg.uuid },
    event: { reason: 'NodeGroupDeleteAccepted', message: `Delete of node group ${foundNg.name} accepted.` },
  });
  started(begun, () => errors.notFound('Cluster', found.uuid));
}
