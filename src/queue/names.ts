// Queue and key names shared by the API and the workers.

/** Long-running cluster operations (create, resize, upgrade, delete, CA rotation). */
export const OPERATIONS_QUEUE = 'cluster-operations';

/** Redis hash of live workers: field `<host>:<pid>:<instance>`, value a JSON heartbeat. */
export const SERVICES_KEY = 'magnum:services';

export interface Heartbeat {
  host: string;
  pid: number;
  binary: string;
  started_at: string;
  updated_at: string;
  report_count: number;
}
