// Operations the service starts by itself (auto-healing's repair, the autoscaler's resize), written as the API
// writes one: in one transaction with the cluster row locked, only when the cluster is settled and nothing else
// runs, with the status derived from the new operation and an event saying why.
import type { DataSource, EntityManager } from 'typeorm';
import { ClusterEntity } from '../src/db/entities/cluster.js';
import { ClusterEventEntity } from '../src/db/entities/cluster-event.js';
import type { OperationKind } from '../src/domain/operations.js';
import { COMPLETE_SET, deriveStatus } from '../src/domain/cluster-status.js';
import { writeOperation } from '../src/operations/outbox.js';

export interface ServiceOperation {
  kind: OperationKind;
  params: Record<string, unknown>;
  /** The event's reason and message. */
  reason: string;
  message: string;
  /** Further writes in the same transaction (a node group's new size). */
  change?: (em: EntityManager) => Promise<void>;
}

/** Undefined when queued; otherwise why not (the cluster is gone, not settled, or busy). */
export async function startServiceOperation(ds: DataSource, clusterId: string, clusterName: string, op: ServiceOperation, now = new Date()): Promise<string | undefined> {
  return ds.transaction(async (em): Promise<string | undefined> => {
    const locked = await em.getRepository(ClusterEntity).createQueryBuilder('c').setLock('pessimistic_write').where('c.uuid = :u', { u: clusterId }).getOne();
    if (!locked) return 'the cluster is gone';
    if (!COMPLETE_SET.has(locked.status)) return `the cluster is ${locked.status}`;
    const active = await em.query(`SELECT 1 FROM operation WHERE cluster_id = $1 AND state IN ('pending', 'queued', 'running') LIMIT 1`, [clusterId]);
    if (active.length > 0) return 'another operation runs';
    const row = await writeOperation(em, clusterId, op.kind, op.params, clusterName);
    await op.change?.(em);
    const { status, status_reason } = deriveStatus(row, locked.conditions);
    await em.getRepository(ClusterEntity).update({ uuid: clusterId }, { status, status_reason, updated_at: now });
    await em.getRepository(ClusterEventEntity).insert({ cluster_id: clusterId, operation_id: row.id, at: now, type: 'operation', reason: op.reason, severity: 'warning', message: op.message });
    return undefined;
  });
}
