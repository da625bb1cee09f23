// Intent before action: an operation row is written in the same transaction as the rows it acts
// on, then relayed to BullMQ with the row's id as the job id. A relay that runs twice adds the
// same job id twice, which BullMQ ignores; a relay that never ran is caught up by the next pass
// (woken by NOTIFY operation_pending, and by a periodic sweep), so no operation is lost or doubled.
// The sweep also finds operations still queued or running whose job has ended without ending them
// (it stalled more often than BullMQ allows, a closing worker's run stopped, the job was removed)
// and queues them again: the row, not the job, says what is left to do.
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { DataSource, EntityManager } from 'typeorm';
import pg from 'pg';
import { OperationEntity, type OperationRow } from '../db/entities/operation.js';
import { ACTIVE_STATES, type OperationKind } from '../domain/operations.js';
import { errors } from '../domain/errors.js';

/** Finished jobs are kept a while for inspection, then removed (Redis does not grow with history). */
export const JOB_RETENTION = { removeOnComplete: { age: 3600, count: 5000 }, removeOnFail: { age: 7 * 86400 } } as const;

/** Job states in which no worker will run the job again. */
const ENDED_JOB_STATES = new Set(['completed', 'failed', 'unknown']);

/** What a queued job carries: the operation row is the source of truth, the job only points at it. */
export interface OperationJob {
  operationId: string;
  clusterId: string;
}

/**
 * Writes the operation inside `em`'s transaction. A second active operation on the cluster (two
 * deletes, or two of anything else) violates a unique index and becomes Magnum's 409.
 */
export async function writeOperation(
  em: EntityManager,
  clusterId: string,
  kind: OperationKind,
  params: Record<string, unknown> = {},
  clusterName = clusterId,
): Promise<OperationRow> {
  const row: OperationRow = {
    id: randomUUID(),
    cluster_id: clusterId,
    kind,
    params,
    state: 'pending',
    error: null,
    attempts: 0,
    created_at: new Date(),
    updated_at: null,
    enqueued_at: null,
    started_at: null,
    finished_at: null,
  };
  try {
    await em.query('SAVEPOINT write_operation');
    await em.getRepository(OperationEntity).insert(row as never);
    await em.query('RELEASE SAVEPOINT write_operation');
  } catch (e) {
    const err = e as { code?: string; constraint?: string; driverError?: { constraint?: string } };
    const constraint = err.constraint ?? err.driverError?.constraint;
    if (err.code === '23505' && (constraint === 'operation_one_active' || constraint === 'operation_one_delete')) {
      await em.query('ROLLBACK TO SAVEPOINT write_operation');
      const active = await activeOperation(em, clusterId);
      throw errors.operationInProgress(clusterName, active?.kind ?? 'unknown');
    }
    throw e;
  }
  return row;
}

/** The cluster's active operation other than a delete, if any. */
export async function activeOperation(em: EntityManager, clusterId: string): Promise<OperationRow | null> {
  return em
    .getRepository(OperationEntity)
    .createQueryBuilder('o')
    .where('o.cluster_id = :c AND o.state IN (:...s)', { c: clusterId, s: ACTIVE_STATES })
    .orderBy('o.created_at', 'DESC')
    .getOne();
}

/** Relays pending operations to the queue; one per process (API and workers may all run one). */
export class OperationRelay {
  private listener: pg.Client | undefined;
  private sweep: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private recovering: Promise<number> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly ds: DataSource,
    private readonly queue: Queue,
    private readonly opts: {
      databaseUrl: string;
      sweepMs?: number;
      onError?: (e: Error) => void;
      /** An operation whose job had ended without ending it was queued again. */
      onRecovered?: (r: { operation: string; cluster: string; kind: string; state: string; job: string }) => void;
    },
  ) {}

  async start(): Promise<void> {
    this.listener = new pg.Client({ connectionString: this.opts.databaseUrl, application_name: 'magnum-ts-relay' });
    this.listener.on('error', (e) => this.opts.onError?.(e));
    this.listener.on('notification', () => void this.kick());
    await this.listener.connect();
    await this.listener.query('LISTEN operation_pending');
    this.sweep = setInterval(() => {
      void this.kick();
      void this.recover().catch((e: Error) => this.opts.onError?.(e));
    }, this.opts.sweepMs ?? 5000);
    this.sweep.unref();
    await this.kick();
  }

  /** Relays now (coalescing concurrent calls); resolves with how many operations went to the queue. */
  kick(): Promise<number> {
    if (this.closed) return Promise.resolve(0);
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let total = 0;
      do {
        this.again = false;
        try {
          total += await this.relayOnce();
        } catch (e) {
          this.opts.onError?.(e as Error);
        }
      } while (this.again && !this.closed);
      return total;
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async relayOnce(): Promise<number> {
    return this.ds.transaction(async (em) => {
      const rows: { id: string; cluster_id: string; kind: string }[] = await em.query(
        `SELECT id, cluster_id, kind FROM operation WHERE state = 'pending' ORDER BY created_at LIMIT 200 FOR UPDATE SKIP LOCKED`,
      );
      if (rows.length === 0) return 0;
      await this.queue.addBulk(
        rows.map((r) => ({ name: r.kind, data: { operationId: r.id, clusterId: r.cluster_id } satisfies OperationJob, opts: { jobId: r.id, ...JOB_RETENTION } })),
      );
      await em.query(`UPDATE operation SET state = 'queued', enqueued_at = now(), updated_at = now() WHERE id = ANY($1) AND state = 'pending'`, [
        rows.map((r) => r.id),
      ]);
      return rows.length;
    });
  }

  /**
   * Queues again the queued or running operations whose job no worker will run (ended or gone).
   * The job's state is read before the row is locked and read again: a run ends its operation in
   * the database before its job completes, so a row still active behind an ended job is lost.
   */
  recover(): Promise<number> {
    if (this.closed) return Promise.resolve(0);
    this.recovering ??= this.recoverOnce().finally(() => {
      this.recovering = undefined;
    });
    return this.recovering;
  }

  private async recoverOnce(): Promise<number> {
    const active: { id: string }[] = await this.ds.query(
      `SELECT id FROM operation WHERE state IN ('queued', 'running') ORDER BY created_at LIMIT 1000`,
    );
    if (active.length === 0) return 0;
    const states = await Promise.all(active.map(async (r) => ({ id: r.id, state: await this.queue.getJobState(r.id) })));
    const ended = states.filter((s) => ENDED_JOB_STATES.has(s.state));
    if (ended.length === 0) return 0;
    return this.ds.transaction(async (em) => {
      // One recovery at a time across every process that runs a relay.
      const [{ locked }] = await em.query(`SELECT pg_try_advisory_xact_lock(hashtext('operation-recovery')) AS locked`);
      if (!locked) return 0;
      const rows: { id: string; cluster_id: string; kind: string; state: string }[] = await em.query(
        `SELECT id, cluster_id, kind, state FROM operation WHERE id = ANY($1) AND state IN ('queued', 'running') FOR UPDATE SKIP LOCKED`,
        [ended.map((s) => s.id)],
      );
      let recovered = 0;
      for (const r of rows) {
        // Read again under the lock: another relay may have queued it since.
        const now = await this.queue.getJobState(r.id);
        if (!ENDED_JOB_STATES.has(now)) continue;
        // A completed or failed job keeps its id: BullMQ would ignore a new job with the same one.
        await this.queue.remove(r.id);
        await this.queue.add(r.kind, { operationId: r.id, clusterId: r.cluster_id } satisfies OperationJob, { jobId: r.id, ...JOB_RETENTION });
        recovered++;
        this.opts.onRecovered?.({ operation: r.id, cluster: r.cluster_id, kind: r.kind, state: r.state, job: now });
      }
      return recovered;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweep) clearInterval(this.sweep);
    await this.running;
    await this.recovering?.catch(() => undefined);
    await this.listener?.end().catch(() => undefined);
  }
}
