// Starting an operation on an existing cluster: in one transaction the cluster row is locked, its
// state checked, the change written, the operation queued in the outbox and the status derived.
import type { EntityManager } from 'typeorm';
import { ClusterEntity, type ClusterRow } from '../../../../db/entities/cluster.js';
import { ClusterEventEntity } from '../../../../db/entities/cluster-event.js';
import type { OperationKind } from '../../../../domain/operations.js';
import { COMPLETE_SET, deriveStatus } from '../../../../domain/cluster-status.js';
import { errors } from '../../../../domain/errors.js';
import { writeOperation } from '../../../../operations/outbox.js';
import type { Services } from '../../../services.js';

/** Statuses from which each kind of operation may start (Magnum §5.3, plus retry after a failed update). */
const ALLOWED: Record<Exclude<OperationKind, 'create'>, (status: string) => boolean> = {
  update: (st) => COMPLETE_SET.has(st) || st === 'UPDATE_FAILED',
  resize: (st) => COMPLETE_SET.has(st) || st === 'UPDATE_FAILED',
  upgrade: (st) => COMPLETE_SET.has(st) || st === 'UPDATE_FAILED',
  rotate_ca: (st) => COMPLETE_SET.has(st),
  repair: (st) => COMPLETE_SET.has(st),
  nodegroup_create: (st) => COMPLETE_SET.has(st) || st === 'UPDATE_FAILED',
  nodegroup_update: (st) => COMPLETE_SET.has(st) || st === 'UPDATE_FAILED',
  nodegroup_delete: () => true,
  delete: () => true,
};

const ACTION_NAMES: Record<OperationKind, string> = {
  create: 'create',
  update: 'an update',
  resize: 'a resize',
  upgrade: 'an upgrade',
  delete: 'a delete',
  rotate_ca: 'a CA rotation',
  repair: 'a repair',
  nodegroup_create: 'a node group create',
  nodegroup_update: 'a node group update',
  nodegroup_delete: 'a node group delete',
};

export interface StartOptions {
  kind: Exclude<OperationKind, 'create'>;
  params?: Record<string, unknown>;
  /** Writes the operation's own changes (node group counts, template) on the locked row. */
  change?: (em: EntityManager, locked: ClusterRow) => Promise<void>;
  /** The event's reason and message. */
  event: { reason: string; message: string };
}

/** Runs the transaction; returns the cluster as it was written. 404 if it vanished, 409 if its state forbids the operation. */
export async function startOperation(s: Services, cluster: ClusterRow, opts: StartOptions): Promise<ClusterRow> {
  const written = await s.db.transaction(async (em) => {
    const locked = await s.clusters.lock(em, cluster.uuid);
    if (!locked) throw errors.notFound('Cluster', cluster.uuid);
    if (!ALLOWED[opts.kind](locked.status)) throw errors.clusterStateConflict(locked.name, locked.status, ACTION_NAMES[opts.kind]);
    await opts.change?.(em, locked);
    const op = await writeOperation(em, locked.uuid, opts.kind, opts.params ?? {}, locked.name);
    const { status, status_reason } = deriveStatus(op, locked.conditions);
    const updated_at = new Date();
    await em.getRepository(ClusterEntity).update({ uuid: locked.uuid }, { status, status_reason, updated_at });
    await em.getRepository(ClusterEventEntity).insert({
      cluster_id: locked.uuid,
      operation_id: op.id,
      at: updated_at,
      type: 'operation',
      reason: opts.event.reason,
      message: opts.event.message,
      severity: 'info',
    });
    return { ...locked, status, status_reason, updated_at };
  });
  void s.relay.kick();
  return written;
}
