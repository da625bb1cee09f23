// The registry of operations a worker can run, keyed by job name. Each operation module adds
// itself here; a job naming no registered operation fails at once (never retried).
import { UnrecoverableError, type Job } from 'bullmq';
import { createOperation } from './cluster/create.js';
import { deleteOperation } from './cluster/delete.js';
import { operationRunner, type RunnerDeps } from './runner.js';

export type Operation = (job: Job, token?: string) => Promise<unknown>;

/** Operations registered by hand (tests); the cluster operations come from clusterOperations(). */
export const operations = new Map<string, Operation>();

/**
 * The cluster operations implemented so far, bound to a worker's database, Redis and cloud
 * clients. Other kinds (update, resize, upgrade, rotate_ca, nodegroup_*) are not registered:
 * their jobs fail at once as unknown.
 */
export function clusterOperations(deps: RunnerDeps): Map<string, Operation> {
  return new Map<string, Operation>([
    ['create', operationRunner(deps, createOperation)],
    ['delete', operationRunner(deps, deleteOperation)],
  ]);
}

/** The job handler: `registered` first, then the shared registry. */
export function dispatcher(registered: ReadonlyMap<string, Operation> = new Map()): Operation {
  return (job, token) => {
    const op = registered.get(job.name) ?? operations.get(job.name);
    if (!op) throw new UnrecoverableError(`no operation named "${job.name}"`);
    return op(job, token);
  };
}

export const dispatch: Operation = dispatcher();
