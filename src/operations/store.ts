// What a run of an operation records (workers/runner.ts runs the steps): the operation's life
// from queued to ended, the conditions the steps observe, the status derived from both, and the
// events that tell it. Each write locks the cluster row, as beginOperation does, so the status is
// always derived from what was committed; only the cluster's latest operation speaks for it.
import type { DataSource, EntityManager } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { OperationRow } from '../db/entities/operation.js';
import { ClusterRepo } from '../db/repos/clusters.js';
import { ClusterEventRepo } from '../db/repos/events.js';
import { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { OperationRepo } from '../db/repos/operations.js';
import { deriveStatus } from '../domain/cluster-status.js';
import type { Condition, ConditionType } from '../domain/cluster-status.js';
import type { OperationState } from '../domain/operations.js';
import { boundedMessage } from '../domain/limits.js';

export type Severity = 'info' | 'warning' | 'error';

/** Writes of an ending operation in its transaction, on the locked cluster row. */
export type EndChange = (em: EntityManager, cluster: ClusterRow) => Promise<void>;

/** Why a write found nothing to write to: the cluster is gone, or the operation no longer runs. */
export type Lost = 'gone' | 'not-running';

const pascal = (kind: string): string => kind.charAt(0).toUpperCase() + kind.slice(1).replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());

export class OperationStore {
  private readonly clusters: ClusterRepo;
  private readonly operations: OperationRepo;
  private readonly events: ClusterEventRepo;
  private readonly nodegroups: NodeGroupRepo;

  constructor(private readonly ds: DataSource) {
    this.clusters = new ClusterRepo(ds);
    this.operations = new OperationRepo(ds);
    this.events = new ClusterEventRepo(ds);
    this.nodegroups = new NodeGroupRepo(ds);
  }

  load(id: string): Promise<OperationRow | null> {
    return this.operations.get(id);
  }

  /** The operation's state and its runs so far (a run's checkpoint); undefined when its row is gone. */
  state(id: string): Promise<{ state: OperationState; attempts: number } | undefined> {
    return this.operations.state(id);
  }

  /** An event of the cluster (GET /v1/clusters/{id}/events). */
  event(clusterId: string, opId: string, type: string, reason: string, message: string, severity: Severity = 'info', em?: EntityManager): Promise<void> {
    return this.events.insert({ cluster_id: clusterId, operation_id: opId, at: new Date(), type, reason, message, severity }, em);
  }

  /**
   * A delete overtakes what runs: the cluster's other active operations end as cancelled, each with an event. The
   * cluster row is locked first, as every other write here does: taking the operations' rows first, the events'
   * reference to the cluster row would wait on a run that holds it and waits for those rows (a deadlock).
   */
  async cancelOthers(op: OperationRow): Promise<void> {
    await this.ds.transaction(async (em) => {
      if (!(await this.clusters.lock(em, op.cluster_id))) return;
      const cancelled = await this.operations.cancelOthers(em, op.cluster_id, op.id, 'Cancelled by a delete of the cluster.');
      for (const c of cancelled) await this.event(op.cluster_id, c.id, 'operation', 'Cancelled', `The ${c.kind} was cancelled by the delete.`, 'warning', em);
    });
  }

  /** Marks the operation running (attempts + 1) and the cluster's status; undefined when it is no longer runnable. */
  startRun(op: OperationRow): Promise<{ op: OperationRow; cluster: ClusterRow } | undefined> {
    return this.ds.transaction(async (em) => {
      const cluster = await this.clusters.lock(em, op.cluster_id);
      if (!cluster) return undefined;
      const running = await this.operations.markRunning(em, op.id);
      if (!running) return undefined;
      if (running.attempts === 1) await this.event(cluster.uuid, op.id, 'operation', 'Started', `The ${op.kind} started.`, 'info', em);
      await this.writeStatus(em, cluster, running);
      return { op: running, cluster };
    });
  }

  /**
   * Sets a condition (an event when its status or reason changes) and the status derived with `op`:
   * the cluster as written, undefined when the condition was already so, 'gone' with the cluster.
   */
  setCondition(clusterId: string, op: OperationRow, type: ConditionType, status: Condition['status'], reason: string, message: string): Promise<ClusterRow | undefined | 'gone'> {
    return this.ds.transaction(async (em) => {
      const row = await this.clusters.lock(em, clusterId);
      if (!row) return 'gone';
      const old = row.conditions[type];
      message = boundedMessage(message);
      if (old && old.status === status && old.reason === reason && old.message === message) return undefined;
      const since = old && old.status === status ? old.since : new Date().toISOString();
      row.conditions = { ...row.conditions, [type]: { status, reason, message, since } };
      await this.clusters.update(clusterId, { conditions: row.conditions, updated_at: new Date() }, em);
      if (!old || old.status !== status || old.reason !== reason) {
        await this.event(clusterId, op.id, type, reason, message, status === 'False' ? 'error' : 'info', em);
      }
      await this.writeStatus(em, row, op);
      return row;
    });
  }

  /** The operation succeeded; `change` writes what it observed in the same transaction. */
  succeed(op: OperationRow, change?: EndChange): Promise<OperationRow | Lost> {
    return this.end(op, 'succeeded', null, change);
  }

  /** The operation failed with `error`: node groups of a create fail too, and those it was changing. */
  fail(op: OperationRow, failure: string): Promise<OperationRow | Lost> {
    const error = boundedMessage(failure);
    return this.end(op, 'failed', error, async (em) => {
      if (op.kind === 'create') {
        await this.nodegroups.updateOfCluster(em, op.cluster_id, { status: 'CREATE_FAILED', status_reason: error, updated_at: new Date() });
        return;
      }
      // The node groups the operation was changing (those it marked *_IN_PROGRESS) fail with it (its rollback, if it had begun one).
      const verb = op.params.rolling_back ? 'ROLLBACK' : op.kind === 'nodegroup_create' ? 'CREATE' : op.kind === 'nodegroup_delete' ? 'DELETE' : 'UPDATE';
      await this.nodegroups.failInProgress(em, op.cluster_id, `${verb}_FAILED`, error);
    });
  }

  /**
   * The operation failed and undid what it had changed (a resize asked with rollback=true): it ends
   * failed with the original error; deriveStatus shows ROLLBACK_COMPLETE; `change` writes what it observed.
   */
  rolledBack(op: OperationRow, error: string, change?: EndChange): Promise<OperationRow | Lost> {
    return this.end(op, 'failed', boundedMessage(error), change);
  }

  /** The operation ends; the cluster's status follows through deriveStatus, and an event says how. */
  private end(op: OperationRow, state: 'succeeded' | 'failed', error: string | null, change?: EndChange): Promise<OperationRow | Lost> {
    return this.ds.transaction(async (em) => {
      const row = await this.clusters.lock(em, op.cluster_id);
      if (!row) return 'gone';
      // Fenced: only the run that started the operation last may end it.
      const ended = await this.operations.end(em, op.id, op.attempts, state, error);
      if (!ended) return 'not-running';
      await change?.(em, row);
      await this.writeStatus(em, row, ended);
      const reason = `${pascal(ended.kind)}${state === 'succeeded' ? 'Succeeded' : 'Failed'}`;
      await this.event(row.uuid, ended.id, 'operation', reason, error ?? `The ${ended.kind} succeeded.`, state === 'failed' ? 'error' : 'info', em);
      return ended;
    });
  }

  /** status/status_reason from the operation and the conditions; only the cluster's latest operation speaks. */
  private async writeStatus(em: EntityManager, cluster: ClusterRow, op: OperationRow): Promise<void> {
    if (!(await this.operations.speaks(em, cluster.uuid, op.id))) return;
    const { status, status_reason } = deriveStatus(op, cluster.conditions);
    await this.clusters.update(cluster.uuid, { status, status_reason, updated_at: new Date() }, em);
  }
}
