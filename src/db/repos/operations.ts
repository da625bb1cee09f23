// The operation rows: written with the change they carry (the outbox), relayed to the queue, run
// and ended by the workers. Calls inside a transaction take its EntityManager.
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { ACTIVE_STATES, type OperationKind, type OperationParams, type OperationState } from '../../domain/operations.js';
import { OperationEntity, type OperationRow } from '../entities/operation.js';
import { returnedRows } from '../returning.js';

/** A relayed or recovered operation: what its job needs. */
export interface OperationRef {
  id: string;
  cluster_id: string;
  kind: string;
}

/** A new operation, pending until the relay queues it. */
export function newOperation(clusterId: string, kind: OperationKind, params: OperationParams = {}, now = new Date()): OperationRow {
  return {
    id: randomUUID(),
    cluster_id: clusterId,
    kind,
    params,
    state: 'pending',
    error: null,
    attempts: 0,
    created_at: now,
    updated_at: null,
    enqueued_at: null,
    started_at: null,
    finished_at: null,
  };
}

const UNIQUE_VIOLATION = '23505';
const ONE_ACTIVE = new Set(['operation_one_active', 'operation_one_delete']);

export class OperationRepo {
  constructor(private readonly ds: DataSource) {}

  get(id: string): Promise<OperationRow | null> {
    return this.ds.getRepository(OperationEntity).findOneBy({ id });
  }

  /** The operation's state and how many runs have started it; undefined when its row is gone. */
  async state(id: string): Promise<{ state: OperationState; attempts: number } | undefined> {
    const rows: { state: OperationState; attempts: number }[] = await this.ds.query('SELECT state, attempts FROM operation WHERE id = $1', [id]);
    return rows[0];
  }

  /**
   * Inserts under the caller's transaction. A second active operation on the cluster (two deletes,
   * or two of anything else) violates a unique index: 'busy', and the transaction goes on.
   */
  async insert(em: EntityManager, row: OperationRow): Promise<OperationRow | 'busy'> {
    try {
      await em.query('SAVEPOINT write_operation');
      await em.query(
        `INSERT INTO operation (id, cluster_id, kind, params, state, error, attempts, created_at, updated_at, enqueued_at, started_at, finished_at)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [row.id, row.cluster_id, row.kind, JSON.stringify(row.params), row.state, row.error, row.attempts, row.created_at, row.updated_at, row.enqueued_at, row.started_at, row.finished_at],
      );
      await em.query('RELEASE SAVEPOINT write_operation');
      return row;
    } catch (e) {
      const err = e as { code?: string; constraint?: string; driverError?: { constraint?: string } };
      if (err.code === UNIQUE_VIOLATION && ONE_ACTIVE.has(err.constraint ?? err.driverError?.constraint ?? '')) {
        await em.query('ROLLBACK TO SAVEPOINT write_operation');
        return 'busy';
      }
      throw e;
    }
  }

  /** The cluster's active operations, newest first. */
  active(em: EntityManager, clusterId: string): Promise<OperationRow[]> {
    return em
      .getRepository(OperationEntity)
      .createQueryBuilder('o')
      .where('o.cluster_id = :c AND o.state IN (:...s)', { c: clusterId, s: ACTIVE_STATES })
      .orderBy('o.created_at', 'DESC')
      .getMany();
  }

  /** Ends the cluster's other active operations but deletes as cancelled; returns them. */
  async cancelOthers(em: EntityManager, clusterId: string, keep: string, error: string): Promise<{ id: string; kind: string }[]> {
    return returnedRows(
      await em.query(
        `UPDATE operation SET state = 'cancelled', error = $3, finished_at = now(), updated_at = now()
         WHERE cluster_id = $1 AND id <> $2 AND kind <> 'delete' AND state IN ('pending', 'queued', 'running') RETURNING id, kind`,
        [clusterId, keep, error],
      ),
    );
  }

  /** Marks an active operation running (attempts + 1); undefined when it has ended meanwhile. */
  async markRunning(em: EntityManager, id: string): Promise<OperationRow | undefined> {
    const rows = returnedRows<OperationRow>(
      await em.query(
        `UPDATE operation SET state = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now()), updated_at = now()
         WHERE id = $1 AND state IN ('pending', 'queued', 'running') RETURNING *`,
        [id],
      ),
    );
    return rows[0];
  }

  /**
   * Ends a running operation, as the run that started it the `attempt`-th time; undefined when it was
   * not running (cancelled meanwhile) or a later run has started it since (this one is stale).
   */
  async end(em: EntityManager, id: string, attempt: number, state: 'succeeded' | 'failed', error: string | null): Promise<OperationRow | undefined> {
    const rows = returnedRows<OperationRow>(
      await em.query(`UPDATE operation SET state = $2, error = $3, finished_at = now(), updated_at = now() WHERE id = $1 AND state = 'running' AND attempts = $4 RETURNING *`, [
        id,
        state,
        error,
        attempt,
      ]),
    );
    return rows[0];
  }

  /** Is `id` the operation the cluster's status speaks of: its active one, else its latest? */
  async speaks(em: EntityManager, clusterId: string, id: string): Promise<boolean> {
    const latest: { id: string }[] = await em.query(
      `SELECT id FROM operation WHERE cluster_id = $1 ORDER BY (state IN ('pending', 'queued', 'running')) DESC, created_at DESC LIMIT 1`,
      [clusterId],
    );
    return latest[0]?.id === id;
  }

  async setParams(em: EntityManager, id: string, params: OperationParams): Promise<void> {
    await em.query('UPDATE operation SET params = $2::jsonb WHERE id = $1', [id, JSON.stringify(params)]);
  }

  /**
   * Claims up to `limit` pending operations, oldest first, for `leaseMs` under `token`, in one
   * statement that commits at once: unclaimed rows, or rows whose claim lapsed (its relay died or
   * hangs); rows another relay is claiming now are skipped. No lock outlives the statement.
   */
  claimPending(limit: number, leaseMs: number, token: string): Promise<OperationRef[]> {
    return this.ds.query(
      `UPDATE operation SET claim_token = $3, claimed_until = now() + $2 * interval '1 millisecond'
       WHERE id IN (
         SELECT id FROM operation WHERE state = 'pending' AND (claimed_until IS NULL OR claimed_until < now())
         ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING id, cluster_id, kind`,
      [limit, leaseMs, token],
    ).then((r) => returnedRows<OperationRef>(r));
  }

  /**
   * What `token` claimed and published is queued (a row a worker already started stays as it is);
   * the claim ends. Rows claimed since by another relay (this one's lease lapsed) are theirs.
   */
  async markQueued(ids: string[], token: string): Promise<void> {
    await this.ds.query(
      `UPDATE operation SET state = CASE WHEN state = 'pending' THEN 'queued' ELSE state END, enqueued_at = coalesce(enqueued_at, now()),
         updated_at = now(), claim_token = NULL, claimed_until = NULL
       WHERE id = ANY($1) AND claim_token = $2`,
      [ids, token],
    );
  }

  /** Lets `token`'s claims go (its publish failed): the next pass takes the rows again. */
  async releaseClaims(ids: string[], token: string): Promise<void> {
    await this.ds.query(`UPDATE operation SET claim_token = NULL, claimed_until = NULL WHERE id = ANY($1) AND claim_token = $2`, [ids, token]);
  }

  /** Ids of the operations handed to the queue and not ended, oldest first. */
  async handedOver(limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.ds.query(`SELECT id FROM operation WHERE state IN ('queued', 'running') ORDER BY created_at LIMIT $1`, [limit]);
    return rows.map((r) => r.id);
  }

  /** Claims `id` for `leaseMs` under `token` while it is still queued or running and nobody else claims it (one statement). */
  async claimHandedOver(id: string, leaseMs: number, token: string): Promise<(OperationRef & { state: string }) | undefined> {
    const rows = returnedRows<OperationRef & { state: string }>(
      await this.ds.query(
        `UPDATE operation SET claim_token = $3, claimed_until = now() + $2 * interval '1 millisecond'
         WHERE id = $1 AND state IN ('queued', 'running') AND (claimed_until IS NULL OR claimed_until < now())
         RETURNING id, cluster_id, kind, state`,
        [id, leaseMs, token],
      ),
    );
    return rows[0];
  }
}
