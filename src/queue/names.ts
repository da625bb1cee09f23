// Queue and key names shared by the API and the workers.

/** Long-running cluster operations (create, resize, upgrade, delete, CA rotation). */
export const OPERATIONS_QUEUE = 'cluster-operations';

/**
 * Redis hash of live workers under the deployment's BullMQ prefix (deployments or tests sharing
 * one Redis do not see each other's): field `<host>:<pid>:<instance>`, value a JSON Heartbeat.
 */
export const servicesKey = (prefix: string): string => `${prefix}:magnum:services`;

export interface Heartbeat {
  /** Small and stable while the worker lives: the lowest id free when it registered. */
  id: number;
  host: string;
  pid: number;
  binary: string;
  started_at: string;
  updated_at: string;
  report_count: number;
}
