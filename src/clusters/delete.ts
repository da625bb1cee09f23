// DELETE /clusters/{id} and /bays/{id}: allowed in any state (it overtakes what runs); a second delete while one
// runs is the same delete. The worker removes every resource of the cluster, its credential last.
import type { ClusterRow } from '../db/entities/cluster.js';
import type { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { enforce } from '../domain/policy.js';
import { beginOperation, type OperationDeps } from '../operations/begin.js';
import type { Flavor } from './create.js';
import type { Caller } from './lookup.js';

export interface DeleteDeps {
  nodegroups: Pick<NodeGroupRepo, 'updateOfCluster'>;
  outbox: OperationDeps;
}

/** DELETE: allowed in any state; a second delete while one runs is the same delete (204, nothing new queued). */
export async function startDelete(s: DeleteDeps, who: Caller, c: ClusterRow, flavor: Flavor): Promise<void> {
  enforce(who.ctx, flavor === 'bay' ? 'bay:delete' : 'cluster:delete', c);
  // Gone meanwhile, or the same delete already running: nothing more to do.
  await beginOperation(s.outbox, c.uuid, {
    kind: 'delete',
    change: (em, locked) => s.nodegroups.updateOfCluster(em, locked.uuid, { status: 'DELETE_IN_PROGRESS', updated_at: new Date() }),
    event: { reason: 'DeleteAccepted', message: 'Delete accepted; every resource of the cluster is removed, its credential last.' },
  });
}
