// The operations queue as the API's relay and the workers share it: its name, what a job carries,
// how long finished jobs are kept, and the live workers' registry under the same prefix.

/** Long-running cluster operations (create, resize, upgrade, delete, CA rotation, ...). */
export const OPERATIONS_QUEUE = 'cluster-operations';

/** What a queued job carries: the operation row is the source of truth, the job only points at it. */
export interface OperationJob {
  operationId: string;
  clusterId: string;
}

/** Finished jobs are kept a while for inspection, then removed (Redis does not grow with history). */
export const JOB_RETENTION = { removeOnComplete: { age: 3600, count: 5000 }, removeOnFail: { age: 7 * 86400 } } as const;

/**
 * Redis hash of live workers under the deployment's BullMQ prefix (deployments or tests sharing
 * one Redis do not see each other's): field `<host>` (a host's second worker `<host>#2`, ...),
 * value a JSON Heartbeat (workers/heartbeat.ts).
 */
export const servicesKey = (prefix: string): string => `${prefix}:magnum:services`;

export interface Heartbeat {
  /** Small and stable while the worker lives: the lowest id free when it registered. */
  id: number;
  /** What `coe service list` shows: the machine's host name, `<host>#2` for its second worker at once, ... */
  host: string;
  /** The machine's host name (rows are taken over only by a worker of the same machine). */
  machine?: string;
  pid: number;
  /** Random per process start: who writes the row now (a restarted worker takes its predecessor's row over). */
  instance?: string;
  binary: string;
  started_at: string;
  updated_at: string;
  report_count: number;
}
