// Auto-healing's repair (src/features/auto-healing): the unhealthy workers it names replaced, begun by the
// service through the one beginOperation, only on a settled cluster with nothing else running.
import { beginOperation, type OperationDeps } from '../operations/begin.js';
import { serviceOutcome } from './service-operation.js';

export interface RepairRequest {
  /** The servers to replace (Nova ids), and their names for the event. */
  servers: string[];
  names: string[];
  /** Nodes whose servers no longer exist, to delete from the cluster. */
  staleNodes: string[];
  message: string;
}

/** Undefined when queued, else why not. */
export async function startRepair(s: { outbox: OperationDeps }, clusterId: string, r: RepairRequest, now = new Date()): Promise<string | undefined> {
  const begun = await beginOperation(s.outbox, clusterId, {
    kind: 'repair',
    origin: 'service',
    params: { servers: r.servers, names: r.names, stale_nodes: r.staleNodes },
    event: { reason: 'AutoHealing', message: r.message, severity: 'warning' },
    now,
  });
  return serviceOutcome(begun);
}
