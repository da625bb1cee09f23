// The registry of operations a worker can run, keyed by job name. Each operation module adds
// itself here; a job naming no registered operation fails at once (never retried).
import { UnrecoverableError, type Job } from 'bullmq';

export type Operation = (job: Job) => Promise<unknown>;

export const operations = new Map<string, Operation>();

export async function dispatch(job: Job): Promise<unknown> {
  const op = operations.get(job.name);
  if (!op) throw new UnrecoverableError(`no operation named "${job.name}"`);
  return op(job);
}
