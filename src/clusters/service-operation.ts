// Operations the service starts by itself (auto-healing's repair, the autoscaler's resize), through the one
// beginOperation the API uses: with the cluster row locked, only when the transition table allows it to the
// service (a settled cluster with nothing else running), the status derived from the new operation, and an
// event saying why. The relay's listener (NOTIFY operation_pending) queues it.
import type { DataSource, EntityManager } from 'typeorm';
import type { OperationKind, OperationParams } from '../domain/operations.js';
import { beginOperation } from '../operations/begin.js';

export interface ServiceOperation {
  kind: OperationKind;
  params: OperationParams;
  /** The event's reason and message. */
  reason: string;
  message: string;
  /** Further writes in the same transaction (a node group's new size). */
  change?: (em: EntityManager) => Promise<void>;
}

/** Undefined when queued; otherwise why not (the cluster is gone, not settled, or busy). */
export async function startServiceOperation(ds: DataSource, clusterId: string, op: ServiceOperation, now = new Date()): Promise<string | undefined> {
  const begun = await beginOperation({ db: ds }, clusterId, {
    kind: op.kind,
    origin: 'service',
    params: op.params,
    ...(op.change ? { change: op.change } : {}),
    event: { reason: op.reason, message: op.message, severity: 'warning' },
    now,
  });
  switch (begun.outcome) {
    case 'started':
      return undefined;
    case 'gone':
      return 'the cluster is gone';
    case 'refused':
      return begun.why === 'state' ? `the cluster is ${begun.status}` : 'another operation runs';
    default:
      return `the cluster's operation is ${begun.outcome}`;
  }
}
