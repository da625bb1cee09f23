// Services a cloud may not offer (Designate, Manila, Barbican, ...): a catalog without them answers
// OpenStackError `no_endpoint` when their client is asked for.
import type { ConditionType } from '../domain/cluster-status.js';
import { OpenStackError } from '../openstack/errors.js';
import { StepFailure } from './errors.js';

const missing = (e: unknown): boolean => e instanceof OpenStackError && e.kind === 'no_endpoint';

/** The client, or undefined when the cloud has no such service (a delete: it then holds nothing of ours). */
export async function offered<T>(client: () => Promise<T>): Promise<T | undefined> {
  try {
    return await client();
  } catch (e) {
    if (missing(e)) return undefined;
    throw e;
  }
}

/** The client, or a step failure on `condition` saying which label needs the service the cloud lacks. */
export async function required<T>(client: () => Promise<T>, failure: { reason: string; label: string; service: string; condition: ConditionType }): Promise<T> {
  try {
    return await client();
  } catch (e) {
    if (missing(e)) throw new StepFailure(failure.reason, `The label ${failure.label} needs ${failure.service}, which the cloud does not offer.`, failure.condition);
    throw e;
  }
}
