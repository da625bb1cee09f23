// Intent before action: an operation row is written in the same transaction as the rows it acts
// on, then relayed to BullMQ with the row's id as the job id. A relay that runs twice adds the
// same job id twice, which BullMQ ignores; a relay that never ran is caught up by the next pass
// (woken by NOTIFY operation_pending, and by a periodic sweep), so no operation is lost or doubled.
// The LISTEN connection comes back by itself after PostgreSQL restarts (a ChangeFeed), and each
// time it does the relay passes once: what was written meanwhile does not wait for the sweep.
// The sweep also finds operations still queued or running whose job has ended without ending them
// (it stalled more often than BullMQ allows, a closing worker's run stopped, the job was removed)
// and queues them again: the row, not the job, says what is left to do.
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { ChangeFeed } from '../db/change-feed.js';
import { OperationRepo, tryNamedLock } from '../db/repos/operations.js';
import { JOB_RETENTION, type OperationJob } from './queue.js';

/** Job states in which no worker will run the job again. */
const ENDED_JOB_STATES = new Set(['completed', 'failed', 'unknown']);

/** Relays pending operations to the queue; one per process (API and workers may all run one). */
export class OperationRelay {
  private listener: ChangeFeed | undefined;
  private sweep: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private recovering: Promise<number> | undefined;
  private again = false;
  private closed = false;
  private readonly operations: OperationRepo;

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
  ) {
    this.operations = new OperationRepo(ds);
  }

  async start(): Promise<void> {
    this.listener = new ChangeFeed(this.opts.databaseUrl, 'operation_pending', () => void this.kick(), {
      warn: (obj, msg) => this.opts.onError?.(new Error(`${msg}: ${JSON.stringify(obj)}`)),
    });
    await this.listener.start();
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
      const rows = await this.operations.claimPending(em, 200);
      if (rows.length === 0) return 0;
      await this.queue.addBulk(
        rows.map((r) => ({ name: r.kind, data: { operationId: r.id, clusterId: r.cluster_id } satisfies OperationJob, opts: { jobId: r.id, ...JOB_RETENTION } })),
      );
      await this.operations.markQueued(
        em,
        rows.map((r) => r.id),
      );
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
    const active = await this.operations.handedOver(1000);
    if (active.length === 0) return 0;
    const states = await Promise.all(active.map(async (id) => ({ id, state: await this.queue.getJobState(id) })));
    const ended = states.filter((s) => ENDED_JOB_STATES.has(s.state));
    if (ended.length === 0) return 0;
    return this.ds.transaction(async (em) => {
      // One recovery at a time across every process that runs a relay.
      if (!(await tryNamedLock(em, 'operation-recovery'))) return 0;
      const rows = await this.operations.lockHandedOver(
        em,
        ended.map((s) => s.id),
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
    await this.listener?.close();
  }
}
