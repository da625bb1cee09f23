// The worker process: consumes the operations queue with bounded concurrency and reports a
// heartbeat. Shuts down gracefully, letting running jobs finish (BullMQ recovers stalled ones).
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { OPERATIONS_QUEUE } from '../src/queue/names.js';
import { startHeartbeat } from './heartbeat.js';
import { dispatch } from './operations.js';

export interface WorkerOptions {
  redisUrl: string;
  concurrency: number;
  heartbeatMs?: number;
  /** BullMQ key prefix of the queue and of the heartbeat (QUEUE_PREFIX; tests use their own). Default 'bull'. */
  prefix?: string;
}

export async function startWorker(opts: WorkerOptions): Promise<{ id: string; close(): Promise<void> }> {
  const connection = new Redis(opts.redisUrl, { maxRetriesPerRequest: null });
  const prefix = opts.prefix ?? 'bull';
  const heartbeat = startHeartbeat(connection, { prefix, intervalMs: opts.heartbeatMs ?? 10_000 });
  const worker = new Worker(OPERATIONS_QUEUE, dispatch, { connection, concurrency: opts.concurrency, prefix });
  worker.on('failed', (job, err) => {
    console.error(JSON.stringify({ level: 'error', msg: 'operation failed', job: job?.name, job_id: job?.id, reason: err.message }));
  });
  // Listed by GET /v1/mservices as soon as this returns.
  await Promise.all([worker.waitUntilReady(), heartbeat.ready]);
  return {
    id: heartbeat.id,
    async close() {
      await worker.close();
      await heartbeat.stop();
      connection.disconnect();
    },
  };
}
