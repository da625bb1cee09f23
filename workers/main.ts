// The worker process: consumes the operations queue with bounded concurrency and reports a
// heartbeat. Shuts down gracefully, letting running jobs finish; a killed worker's jobs stall and
// BullMQ hands them to another worker (stalled-job recovery), whose run resumes at the first step.
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { OPERATIONS_QUEUE } from '../src/operations/queue.js';
import { deadline } from '../src/operations/bounded-close.js';
import { CloudFactory } from '../src/steps/cloud.js';
import { healthPass } from './health.js';
import { fireSchedules } from '../src/clusters/hibernation-schedule.js';
import { maintenancePass, type MaintenanceConfig } from './maintenance.js';
import { acquireClusterLock } from './lock.js';
import { startHeartbeat } from './heartbeat.js';
import { clusterOperations, dispatcher, type Operation } from './operations.js';
import type { RunnerDeps } from './runner.js';

export interface WorkerOptions {
  redisUrl: string;
  concurrency: number;
  heartbeatMs?: number;
  /** BullMQ key prefix of the queue and of the heartbeat (QUEUE_PREFIX; tests use their own). Default 'bull'. */
  prefix?: string;
  /** With both, the cluster operations (create, delete) are registered; without, only the shared registry. */
  db?: DataSource;
  config?: MaintenanceConfig;
  /** A job whose worker stops renewing its lock this long is stalled and handed on. Default 30 s. */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for. Default 30 s. */
  stalledIntervalMs?: number;
  /** A heartbeat row silent this long may be taken over by a new worker of its host (SERVICE_DOWN_TIME). Default 180 s. */
  heartbeatStaleMs?: number;
  /** How often the health of settled clusters is checked (one job for all workers). Default 60 s; 0 = never. */
  healthIntervalMs?: number;
  /** How often the clusters' hibernation schedules and maintenance windows are looked at (one job for all workers). Default 30 s; 0 = never. */
  scheduleIntervalMs?: number;
  /**
   * How long close() waits for running jobs and for Redis before it stops them and disconnects (they
   * stall and another worker resumes them). Default 10 s.
   */
  closeTimeoutMs?: number;
  /** Runner tuning and test hooks (lock retry delay, backoff, afterCreate). */
  runner?: Pick<RunnerDeps, 'lockRetryMs' | 'backoff' | 'hooks' | 'lockTtlMs' | 'pollMs'>;
}

export interface WorkerHandle {
  /** Its row in the heartbeat hash (GET /v1/mservices). */
  readonly id: string;
  /** True while the worker takes jobs from the queue. */
  consuming(): boolean;
  /** Resolves when the worker's Redis connection answers. */
  ping(): Promise<unknown>;
  close(force?: boolean): Promise<void>;
}

export async function startWorker(opts: WorkerOptions): Promise<WorkerHandle> {
  const connection = new Redis(opts.redisUrl, { maxRetriesPerRequest: null });
  // BullMQ reports the connection's errors as the worker's (logged below) but lets go of them while it
  // closes: a Redis outage then is not an unhandled 'error' event.
  connection.on('error', () => undefined);
  const prefix = opts.prefix ?? 'bull';
  const closing = new AbortController();
  let registered = new Map<string, Operation>();
  let scheduler: Queue | undefined;
  if (opts.db && opts.config) {
    const ds = opts.db;
    const cloud = new CloudFactory(opts.config);
    registered = clusterOperations({
      ds,
      redis: connection,
      prefix,
      cloud,
      signal: closing.signal,
      lockTtlMs: opts.lockDurationMs ?? 30_000,
      ...opts.runner,
    });
    // The scheduler adds the next health job as soon as a worker takes the current one: a pass longer
    // than the interval (tens of thousands of clusters) would run beside the next, on any worker.
    // One pass at a time in the deployment: the others skip.
    registered.set('health', async () => {
      const lock = await acquireClusterLock(connection, `${prefix}:magnum:health-pass`, opts.lockDurationMs ?? 30_000, closing.signal);
      if (!lock) return { skipped: 'a health pass is running' };
      try {
        return { checked: await healthPass(ds, cloud, () => lock.held) };
      } finally {
        await lock.release();
      }
    });
    // Each firing is claimed in its cluster's row first: two passes at once (two workers) fire it once.
    registered.set('hibernation-schedule', async () => ({ fired: await fireSchedules(ds, new Date()) }));
    // Each window is claimed in its cluster's row in its upgrade's start transaction: the same at-most-once.
    const maintenance = maintenancePass(ds, opts.config, cloud);
    registered.set('maintenance-window', async () => ({ ran: await maintenance(new Date()) }));
    const every = opts.healthIntervalMs ?? 60_000;
    if (every > 0) {
      scheduler = new Queue(OPERATIONS_QUEUE, { connection, prefix });
      await scheduler.upsertJobScheduler('health', { every }, { name: 'health', opts: { removeOnComplete: true, removeOnFail: 100 } });
    }
    const schedules = opts.scheduleIntervalMs ?? 30_000;
    if (schedules > 0) {
      scheduler ??= new Queue(OPERATIONS_QUEUE, { connection, prefix });
      await scheduler.upsertJobScheduler('hibernation-schedule', { every: schedules }, { name: 'hibernation-schedule', opts: { removeOnComplete: true, removeOnFail: 100 } });
      await scheduler.upsertJobScheduler('maintenance-window', { every: schedules }, { name: 'maintenance-window', opts: { removeOnComplete: true, removeOnFail: 100 } });
    }
  }
  const heartbeat = startHeartbeat(connection, { prefix, intervalMs: opts.heartbeatMs ?? 10_000, ...(opts.heartbeatStaleMs ? { staleMs: opts.heartbeatStaleMs } : {}) });
  const worker = new Worker(OPERATIONS_QUEUE, dispatcher(registered), {
    connection,
    concurrency: opts.concurrency,
    prefix,
    lockDuration: opts.lockDurationMs ?? 30_000,
    stalledInterval: opts.stalledIntervalMs ?? 30_000,
    // A job may stall a few times (worker restarts) before BullMQ gives up on it.
    maxStalledCount: 5,
  });
  worker.on('failed', (job, err) => {
    console.error(JSON.stringify({ level: 'error', msg: 'operation failed', job: job?.name, job_id: job?.id, reason: err.message }));
  });
  worker.on('error', (err) => {
    console.error(JSON.stringify({ level: 'error', msg: 'worker error', reason: err.message }));
  });
  // Listed by GET /v1/mservices as soon as this returns.
  await Promise.all([worker.waitUntilReady(), heartbeat.ready]);
  return {
    get id() {
      return heartbeat.id;
    },
    consuming: () => worker.isRunning() && !worker.closing,
    ping: () => connection.ping(),
    /**
     * `force`: do not wait for running jobs (they stall and another worker resumes them). Bounded by
     * closeTimeoutMs even when Redis does not answer: then the runs are stopped and the connections cut.
     */
    async close(force = false) {
      const d = deadline(opts.closeTimeoutMs ?? 10_000);
      if (force) closing.abort();
      const closed = await d.within(worker.close(force));
      closing.abort();
      await d.within(heartbeat.stop());
      await d.within(scheduler?.close());
      if (!closed) await d.within(worker.disconnect());
      connection.disconnect();
    },
  };
}
