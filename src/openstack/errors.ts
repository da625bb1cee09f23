// The one error every OpenStack client throws, what the service said in its own envelope, and
// the classification of a failure (spec openstack-apis §7.3), decided here and nowhere else.

/** What went wrong, decided once from the status (0 when there was no HTTP answer). */
export type FailureKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'over_limit'
  | 'server'
  | 'unexpected'
  | 'unreachable'
  | 'timeout'
  | 'no_endpoint';

/** The service's own account of the failure, whatever its envelope. */
export interface Fault {
  /** Neutron's NeutronError.type, Nova's and Cinder's fault name, Designate's type. */
  type: string | undefined;
  message: string | undefined;
}

export class OpenStackError extends Error {
  constructor(
    /** Catalog type of the service, e.g. 'image'. */
    readonly service: string,
    /** HTTP status; 0 when the service did not answer (unreachable, timeout, not in the catalog). */
    readonly status: number,
    /** The service's x-openstack-request-id, when it answered. */
    readonly requestId: string | undefined,
    /** The parsed error body (JSON when it was JSON, else text). */
    readonly body: unknown,
    readonly kind: FailureKind,
    message: string,
    /** The answer's Retry-After, in milliseconds, when it had one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'OpenStackError';
  }

  /** Worth retrying later: 5xx, no answer. Not the service missing from the catalog. */
  get retryable(): boolean {
    return this.kind === 'server' || this.kind === 'unreachable' || this.kind === 'timeout';
  }

  get fault(): Fault {
    return faultOf(this.body);
  }
}

export function kindOf(status: number): FailureKind {
  if (status === 400) return 'bad_request';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 413 || status === 429) return 'over_limit';
  if (status >= 500) return 'server';
  return 'unexpected';
}

export const isNotFound = (e: unknown): e is OpenStackError => e instanceof OpenStackError && e.kind === 'not_found';
/** The service's policy refused the call (a 403 that is not a quota's). */
export const isForbidden = (e: unknown): e is OpenStackError => e instanceof OpenStackError && e.kind === 'forbidden' && !isCapacityError(e);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Reads every envelope of spec §0: Neutron, Octavia (WSME), Keystone, Designate, Glance, Nova/Cinder. */
export function faultOf(body: unknown): Fault {
  if (typeof body === 'string') return { type: undefined, message: body || undefined };
  if (!body || typeof body !== 'object') return { type: undefined, message: undefined };
  const o = body as Record<string, unknown>;
  const inner = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined);
  const neutron = inner(o.NeutronError);
  if (neutron) return { type: str(neutron.type), message: str(neutron.message) };
  if ('faultstring' in o) return { type: str(o.faultcode), message: str(o.faultstring) };
  const keystone = inner(o.error);
  if (keystone) return { type: str(keystone.title), message: str(keystone.message) };
  if (typeof o.message === 'string') return { type: str(o.type) ?? str(o.title), message: o.message };
  const keys = Object.keys(o);
  const nova = keys.length === 1 ? inner(o[keys[0]!]) : undefined;
  if (nova && 'message' in nova) return { type: keys[0], message: str(nova.message) };
  return { type: undefined, message: undefined };
}

/**
 * Out of capacity (spec §7.3): Neutron 409 OverQuota or IpAddressGenerationFailure, Nova 403
 * "Quota exceeded", Octavia 403 "Quota has been met", Cinder 413. Terminal: surface it to the user.
 */
export function isCapacityError(e: unknown): e is OpenStackError {
  if (!(e instanceof OpenStackError)) return false;
  const { type, message = '' } = e.fault;
  if (e.status === 409) return type === 'OverQuota' || type === 'IpAddressGenerationFailure';
  if (e.status === 403) return /quota exceeded|quota has been met|maximum number of .* exceeded/i.test(message);
  return e.status === 413 && e.service === 'block-storage';
}

/**
 * Why a failed call may be sent again, or undefined when it may not (spec §7.3):
 * - `no_answer`, `server`: the request may have been carried out; only idempotent ones are repeated;
 * - `busy`, `rate_limited`: the service refused it before acting, so any method may be repeated:
 *   Octavia's 409 while the load balancer is PENDING_*, its 503 "Project busy", Neutron's 409
 *   `*InUse` on a delete (dependents still going away), and 429 from a gateway.
 * Nova's 409 "while it is in vm_state ..." is not repeated here: the state changes in minutes, so
 * the caller waits for it and asks again.
 */
export type RetryReason = 'no_answer' | 'server' | 'busy' | 'rate_limited';

export function retryReason(e: OpenStackError, method: string): RetryReason | undefined {
  if (e.kind === 'timeout' || e.kind === 'unreachable') return 'no_answer';
  if (e.status === 429) return 'rate_limited';
  const { type = '', message = '' } = e.fault;
  if (e.service === 'load-balancer') {
    if (e.status === 409 && /is immutable|Invalid state PENDING_/.test(message)) return 'busy';
    if (e.status === 503 && /Project busy/i.test(message)) return 'busy';
  }
  if (e.service === 'network' && e.status === 409 && method === 'DELETE' && /InUse$/.test(type) && type !== 'ServicePortInUse') return 'busy';
  if (e.status >= 500 && e.status !== 501) return 'server';
  return undefined;
}

/** Seconds or an HTTP date, as Retry-After carries them; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
