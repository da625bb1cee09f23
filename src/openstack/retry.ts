// How often and how patiently a failed call is sent again: exponential backoff with jitter,
// bounded by a number of attempts and a time budget, honouring Retry-After (spec §7.3, §7.4).
// What may be retried at all is errors.ts' retryReason; POSTs are repeated only when the service
// refused them before acting (the caller looks up what an ambiguous POST left behind, §7.5).
import { OpenStackError, retryReason } from './errors.js';

export interface RetryPolicy {
  /** Attempts in all, the first included; 1 = never retry. */
  maxAttempts: number;
  /** Wait before the first retry, before jitter. */
  baseDelayMs: number;
  /** Each wait is the previous one times this. */
  multiplier: number;
  /** Ceiling of one wait (Retry-After included). */
  maxDelayMs: number;
  /** Share of each wait drawn at random, 0 (none) to 1 (full jitter). */
  jitter: number;
  /** No retry starts once this long has passed since the first attempt began. */
  budgetMs: number;
}

/** Up to 5 attempts, waits of ~0.25, 0.5, 1, 2 s (each 50–100 % of that), within 30 s. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 250,
  multiplier: 2,
  maxDelayMs: 8000,
  jitter: 0.5,
  budgetMs: 30_000,
});

/** One attempt only: what a session without a policy does (the API answering a user). */
export const NO_RETRY: Readonly<RetryPolicy> = Object.freeze({ ...DEFAULT_RETRY_POLICY, maxAttempts: 1 });

/**
 * The API's own calls, answering a user who waits: `attempts` in all, after waits of ~0.1, 0.2, 0.4 s; no retry
 * starts after 2 s (a call that timed out is not repeated: the user has waited long enough).
 */
export function answeringPolicy(attempts: number): RetryPolicy {
  return { maxAttempts: attempts, baseDelayMs: 100, multiplier: 2, maxDelayMs: 1000, jitter: 0.5, budgetMs: 2000 };
}

/** Methods that may be repeated after an ambiguous failure (a timeout, a 5xx). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * The wait before retry number `retry` (1 for the first retry): base × multiplier^(retry-1),
 * capped, minus up to `jitter` of it at random; at least Retry-After when the service sent one.
 */
export function retryDelay(policy: RetryPolicy, retry: number, retryAfterMs?: number, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * policy.multiplier ** (retry - 1));
  const jittered = exponential * (1 - policy.jitter * random());
  return Math.round(retryAfterMs === undefined ? jittered : Math.min(policy.maxDelayMs, Math.max(jittered, retryAfterMs)));
}

/** Whether this failure of this request may be sent again at all (attempts aside). */
export function mayRetry(e: OpenStackError, method: string, idempotent: boolean): boolean {
  const reason = retryReason(e, method);
  if (reason === undefined) return false;
  return reason === 'busy' || reason === 'rate_limited' || idempotent;
}
