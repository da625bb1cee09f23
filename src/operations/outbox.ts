// Intent before action: an operation row is written in the same transaction as the rows it acts
// on, then relayed to BullMQ with the row's id as the job id. A relay that runs twice adds the
// same job id twice, which BullMQ ignores; a relay that never ran is caught up by the next pass
// (woken by NOTIFY operation_pending, and by a periodic sweep), so no operation is lost or doubled.
// The LISTEN connection comes back by itself after PostgreSQL restarts (a ChangeFeed), and each
// time it does the relay passes once: what was written meanwhile does not wait for the sweep.
// It never holds a PostgreSQL transaction while it waits on Redis: rows are claimed (a token and a
// lease, committed), published, then marked queued; a claim whose relay died lapses with its lease.
// The sweep also finds operations still queued or running whose job has ended without ending them
// (it stalled more often than BullMQ allows, a closing worker's run stopped, the job was removed)
// and queues them again: the row, not the job, says what is left to do.
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { ChangeFeed } from '../db/change-feed.js';
import { OperationRepo } from '../db/repos/operations.js';
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
  private readonly leaseMs: number;

  constructor(
    private readonly ds: DataSource,
    private readonly queue: Queue,
    private readonly opts: {
      databaseUrl: string;
      sweepMs?: number;
      /** How long a claim holds before another relay may take the row (a relay that died or hangs on Redis). Default 30 s. */
      leaseMs?: number;
      onError?: (e: Error) => void;
      /** An operation whose job had ended without ending it was queued again. */
      onRecovered?: (r: { operation: string; cluster: string; kind: string; state: string; job: string }) => void;
    },
  ) {
    this.operations = new OperationRepo(ds);
    this.leaseMs = opts.leaseMs ?? 30_000;
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

  /**
   * One pass: claim pending rows (committed at once), publish them with no transaction open (a
   * frozen Redis holds no row lock and no connection in a transaction), then mark them queued. A
   * failed publish lets the claims go for the next pass; a relay that dies or hangs mid-publish
   * leaves claims that lapse after the lease, and another relay publishes them again (the same job
   * ids: BullMQ keeps one job per id, and a run of an ended operation does nothing).
   */
  private async relayOnce(): Promise<number> {
    const token = randomUUID();
    const rows = await this.operations.claimPending(200, this.leaseMs, token);
    if (rows.length === 0) return 0;
    const ids = rows.map((r) => r.id);
    try {
      await this.queue.addBulk(
        rows.map((r) => ({ name: r.kind, data: { operationId: r.id, clusterId: r.cluster_id } satisfies OperationJob, opts: { jobId: r.id, ...JOB_RETENTION } })),
      );
    } catch (e) {
      await this.operations.releaseClaims(ids, token).catch(() => undefined);
      throw e;
    }
    await this.operations.markQueued(ids, token);
    return rows.length;
  }

  /**
   * Queues again the queued or running operations whose job no worker will run (ended or gone).
   * The job's state is read before the row is claimed and read again: a run ends its operation in
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
    let recovered = 0;
    for (const s of states.filter((x) => ENDED_JOB_STATES.has(x.state))) {
      if (this.closed) break;
      // One relay at a time per row (a claim committed at once, as the relay's): no transaction is
      // open while Redis is asked.
      const token = randomUUID();
      const r = await this.operations.claimHandedOver(s.id, this.leaseMs, token);
      if (!r) continue;
      try {
        // Again under the claim: another relay may have queued it since.
        const now = await this.queue.getJobState(r.id);
        if (!ENDED_JOB_STATES.has(now)) continue;
        // A completed or failed job keeps its id: BullMQ would ignore a new job with the same one.
        await this.queue.remove(r.id);
        await this.queue.add(r.kind, { operationId: r.id, clusterId: r.cluster_id } satisfies OperationJob, { jobId: r.id, ...JOB_RETENTION });
        recovered++;
        this.opts.onRecovered?.({ operation: r.id, cluster: r.cluster_id, kind: r.kind, state: r.state, job: now });
      } finally {
        await this.operations.releaseClaims([r.id], token).catch(() => undefined);
      }
    }
    return recovered;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweep) clearInterval(this.sweep);
    await this.running;
    await this.recovering?.catch(() => undefined);
    await this.listener?.close();
  }
}
