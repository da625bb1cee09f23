// The registry of operations a worker can run, keyed by job name. Each operation module adds
// itself here; a job naming no registered operation fails at once (never retried).
import { UnrecoverableError, type Job } from 'bullmq';
import { createOperation } from './cluster/create.js';
import { deleteOperation } from './cluster/delete.js';
import { hibernateOperation, wakeOperation } from './cluster/hibernate.js';
import { repairOperation } from './cluster/repair.js';
import { rotateCredentialOperation } from './cluster/rotate-credential.js';
import { rotateCaOperation, upgradeOperation } from './cluster/roll.js';
import { nodegroupCreateOperation, nodegroupDeleteOperation, nodegroupUpdateOperation, resizeOperation, updateOperation } from './cluster/scale.js';
import { operationRunner, type RunnerDeps } from './runner.js';

export type Operation = (job: Job, token?: string) => Promise<unknown>;

/** Operations registered by hand (tests); the cluster operations come from clusterOperations(). */
export const operations = new Map<string, Operation>();

/** Every cluster operation, bound to a worker's database, Redis and cloud clients. */
export function clusterOperations(deps: RunnerDeps): Map<string, Operation> {
  const specs = [createOperation, deleteOperation, resizeOperation, updateOperation, upgradeOperation, rotateCaOperation, rotateCredentialOperation, repairOperation, nodegroupCreateOperation, nodegroupUpdateOperation, nodegroupDeleteOperation, hibernateOperation, wakeOperation];
  return new Map<string, Operation>(specs.map((s) => [s.kind, operationRunner(deps, s)]));
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
