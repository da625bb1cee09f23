// How a step ends other than by finishing: it waits for the cloud (Wait), it fails for good with a
// reason code (StepFailure), or it notices its operation was cancelled or its lock lost. Errors are
// classified here, once: retryable ones re-queue the job with backoff, the rest end the step. Retryable:
// the cloud's 5xx and silences, a cluster API that does not answer or is busy, and the service's own
// PostgreSQL and Redis failing for a moment (a restart, a failover, a dropped connection, a
// serialization failure or deadlock, a timeout).
import { transientInfraError } from '../process/transient.js';
import { KubeError } from '../kube/api-client.js';
import { isCapacityError, OpenStackError, retryReason } from '../openstack/errors.js';
import type { ConditionType } from '../domain/cluster-status.js';

/** The cloud is not there yet: run the operation again in `ms` (never sleep in a worker). */
export class Wait extends Error {
  constructor(
    readonly ms: number,
    readonly why: string,
  ) {
    super(`waiting ${ms} ms: ${why}`);
    this.name = 'Wait';
  }
}

/** Terminal: the operation fails with this reason on this condition. */
export class StepFailure extends Error {
  constructor(
    readonly reason: string,
    message: string,
    /** The condition to mark False; the running step's when absent. */
    readonly condition?: ConditionType,
  ) {
    super(message);
    this.name = 'StepFailure';
  }
}

/** The operation was cancelled (a delete overtook it) or this run lost the cluster lock: stop, touch nothing. */
export class Stop extends Error {
  constructor(readonly why: 'cancelled' | 'lock_lost' | 'gone') {
    super(`stopped: ${why}`);
    this.name = 'Stop';
  }
}

/**
 * Worth running again later: the cloud's 5xx, no answer, 429, Octavia busy, Neutron *InUse (spec §7.3);
 * the cluster API unreachable, silent or busy; PostgreSQL or Redis failing transiently.
 */
export function isRetryable(e: unknown): boolean {
  if (e instanceof StepFailure || e instanceof Wait || e instanceof Stop) return false;
  if (e instanceof OpenStackError) {
    if (isCapacityError(e as unknown)) return false;
    // The step is re-run from a lookup, so even a POST's ambiguous failure is safe to repeat here.
    return e.retryable || retryReason(e, 'DELETE') !== undefined;
  }
  if (e instanceof KubeError) return e.retryable;
  return transientInfraError(e) !== undefined;
}

export { transientInfraError };

/**
 * What a condition says while its step retries after a passing error (issue 28, issue 25): the service, the call
 * and its answer (Nova's or Neutron's own message), how many tries so far of how many, and when the next one is.
 * Written on the step's condition (its reason CloudErrorRetrying: one timeline event per storm, the condition's
 * message updated at each try), so a cloud answering 500 is seen while it lasts, not only in the worker's log.
 */
export function retryNote(e: unknown, tries: number, maxTries: number, next: Date): string {
  let what: string;
  if (e instanceof OpenStackError) {
    const fault = e.fault.message;
    what = `${e.message}${fault && !e.message.includes(fault) ? `: ${fault}` : ''}`;
  } else {
    what = (e as Error)?.message ?? String(e);
  }
  return `Retrying after an error: ${what} (try ${tries} of ${maxTries}; the next at ${next.toISOString()}).`;
}

/** A terminal cloud error as a reason code and message for the failing condition. */
export function failureOf(e: unknown): StepFailure {
  if (e instanceof StepFailure) return e;
  if (e instanceof OpenStackError) {
    const detail = e.fault.message ?? e.message;
    const where = `${e.service}${e.requestId ? ` (request ${e.requestId})` : ''}`;
    const kind: string = e.kind;
    if (isCapacityError(e)) return new StepFailure('QuotaExceeded', `${where}: ${detail}`);
    const reason: Record<string, string> = {
      not_found: 'NotFound',
      forbidden: 'Forbidden',
      unauthorized: 'Unauthorized',
      bad_request: 'InvalidRequest',
      conflict: 'Conflict',
      no_endpoint: 'NoEndpoint',
      timeout: 'CloudUnavailable',
      unreachable: 'CloudUnavailable',
      server: 'CloudUnavailable',
    };
    return new StepFailure(reason[kind] ?? 'CloudError', `${where}: ${detail}`);
  }
  if (e instanceof KubeError) {
    const reason = e.reason === 'ResponseTooLarge' ? 'ClusterApiResponseTooLarge' : e.retryable ? 'ClusterApiUnavailable' : 'ClusterApiError';
    return new StepFailure(reason, `The cluster's Kubernetes API: ${e.message}`);
  }
  const transient = transientInfraError(e);
  if (transient) return new StepFailure('ServiceUnavailable', `The service's database or queue kept failing (${transient}).`);
  return new StepFailure('InternalError', (e as Error)?.message ?? String(e));
}
