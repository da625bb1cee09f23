// One JSON request function for every OpenStack client: the token (fixed, or renewed by a token
// source), a global request id (spec §7.2), a timeout per attempt, retries by the session's
// policy, one record per attempt for logs and metrics, and one typed error for every failure.
// Nothing logged or put in an error message carries the token.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CatalogEntry } from '../keystone/context.js';
import { findEndpoint, type EndpointFilter } from './catalog.js';
import { kindOf, OpenStackError, parseRetryAfter, type FailureKind } from './errors.js';
import { IDEMPOTENT_METHODS, mayRetry, NO_RETRY, retryDelay, type RetryPolicy } from './retry.js';

export { isNotFound, kindOf, OpenStackError, type FailureKind } from './errors.js';

/** One attempt of one call, for logs and metrics; holds no token and no body. */
export interface CallRecord {
  service: string;
  /** What the client was doing, e.g. 'servers.create' (method and path when the caller named none). */
  operation: string;
  method: string;
  path: string;
  /** HTTP status; 0 when there was no answer. */
  status: number;
  /** Set when the attempt failed. */
  kind: FailureKind | undefined;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  requestId: string | undefined;
  globalRequestId: string;
  ms: number;
}

/** One answered attempt with what was asked and what came back (the differential test compares these). */
export interface CallTrace {
  service: string;
  method: string;
  path: string;
  /** The query string sent, without '?'. */
  query: string;
  status: number;
  /** The answer parsed as JSON, or its text when it was not JSON; undefined when empty. */
  body: unknown;
}

/** Told of every attempt (counters, latency histograms): see metrics.ts. */
export interface CallMetrics {
  observe(call: CallRecord): void;
}

/** A token that can change: fetched and renewed on demand (auth.ts), dropped when refused. */
export interface TokenSource {
  token(): Promise<string>;
  /** A service answered 401 to `token`: forget it, so the next token() authenticates again. */
  invalidate(token: string): void;
}

/** A service endpoint as one caller sees it. */
export interface Session {
  service: string;
  /** Endpoint URL from the catalog, without trailing slash. */
  baseUrl: string;
  /** Sent as X-Auth-Token; a token source is asked on each attempt, and re-asked once after a 401. */
  token?: string | TokenSource;
  /** Per attempt. */
  timeoutMs: number;
  /** Sent as X-OpenStack-Request-ID; a fresh req-<uuid> per call when absent. */
  globalRequestId?: string;
  /** Headers sent on every call (e.g. a microversion). */
  headers?: Record<string, string>;
  /** Retries of failed calls; one attempt only when absent. */
  retry?: RetryPolicy;
  log?: (call: CallRecord) => void;
  metrics?: CallMetrics;
  /** Told of every answered attempt with its query and body (tests only: bodies may hold secrets). */
  trace?: (call: CallTrace) => void;
}

export interface SessionOptions extends EndpointFilter {
  timeoutMs: number;
  globalRequestId?: string;
  retry?: RetryPolicy;
  log?: (call: CallRecord) => void;
  metrics?: CallMetrics;
  trace?: (call: CallTrace) => void;
}

/** The session of `type` from a token's catalog; OpenStackError `no_endpoint` when the catalog lacks it. */
export function sessionFor(catalog: CatalogEntry[], token: string | TokenSource, type: string, opts: SessionOptions): Session {
  const baseUrl = findEndpoint(catalog, type, opts);
  if (baseUrl === undefined) {
    const where = `interface ${opts.interface ?? 'public'}${opts.region ? `, region ${opts.region}` : ''}`;
    throw new OpenStackError(type, 0, undefined, undefined, 'no_endpoint', `no ${type} endpoint in the catalog (${where})`);
  }
  return {
    service: type,
    baseUrl,
    token,
    timeoutMs: opts.timeoutMs,
    ...(opts.globalRequestId !== undefined ? { globalRequestId: opts.globalRequestId } : {}),
    ...(opts.retry ? { retry: opts.retry } : {}),
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...(opts.trace ? { trace: opts.trace } : {}),
  };
}

export type QueryValue = string | number | boolean | undefined | (string | number | boolean)[];
export type Query = Record<string, QueryValue> | URLSearchParams;

export interface JsonRequest {
  method?: string;
  /** Appended to the session's base URL, e.g. '/v2/images'. */
  path: string;
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  /** Metrics and log label, e.g. 'servers.create'. */
  operation?: string;
  /** Safe to repeat after an ambiguous failure; default: GET, HEAD, PUT, DELETE are, POST is not. */
  idempotent?: boolean;
}

export interface JsonResult<T> {
  status: number;
  body: T;
  headers: Headers;
  requestId: string | undefined;
}

export function toSearchParams(query: Query | undefined): URLSearchParams {
  if (query instanceof URLSearchParams) return query;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item));
  }
  return params;
}

export const newRequestId = (): string => `req-${randomUUID()}`;

const isTokenSource = (t: Session['token']): t is TokenSource => typeof t === 'object' && t !== null;

/**
 * Calls the service; resolves for 2xx (and 3xx), throws OpenStackError otherwise. Failed attempts
 * are repeated as the session's policy and mayRetry() allow, all under one global request id; a
 * 401 with a token source gets one more attempt with a fresh token, outside the policy.
 */
export async function requestJson<T>(s: Session, req: JsonRequest): Promise<JsonResult<T>> {
  const call = {
    method: req.method ?? 'GET',
    globalRequestId: s.globalRequestId ?? newRequestId(),
    operation: req.operation ?? `${req.method ?? 'GET'} ${req.path}`,
  };
  const policy = s.retry ?? NO_RETRY;
  const idempotent = req.idempotent ?? IDEMPOTENT_METHODS.has(call.method);
  const started = Date.now();
  let retries = 0;
  let reauthenticated = false;
  for (let attempt = 1; ; attempt++) {
    const token = isTokenSource(s.token) ? await s.token.token() : s.token;
    try {
      return await attemptOnce<T>(s, req, { ...call, attempt, token });
    } catch (e) {
      if (!(e instanceof OpenStackError)) throw e;
      if (e.kind === 'unauthorized' && isTokenSource(s.token) && token !== undefined && !reauthenticated) {
        s.token.invalidate(token);
        reauthenticated = true;
        continue;
      }
      if (retries + 1 >= policy.maxAttempts || !mayRetry(e, call.method, idempotent)) throw e;
      const wait = retryDelay(policy, ++retries, e.retryAfterMs);
      if (Date.now() - started + wait > policy.budgetMs) throw e;
      await sleep(wait);
    }
  }
}

interface Attempt {
  method: string;
  globalRequestId: string;
  operation: string;
  attempt: number;
  token: string | undefined;
}

async function attemptOnce<T>(s: Session, req: JsonRequest, a: Attempt): Promise<JsonResult<T>> {
  const { method } = a;
  const qs = toSearchParams(req.query).toString();
  const url = `${s.baseUrl}${req.path}${qs ? `?${qs}` : ''}`;
  const started = Date.now();
  const record = (status: number, requestId: string | undefined, kind: FailureKind | undefined) => {
    const call: CallRecord = {
      service: s.service,
      operation: a.operation,
      method,
      path: req.path,
      status,
      kind,
      attempt: a.attempt,
      requestId,
      globalRequestId: a.globalRequestId,
      ms: Date.now() - started,
    };
    s.log?.(call);
    s.metrics?.observe(call);
  };
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(a.token !== undefined ? { 'x-auth-token': a.token } : {}),
        'x-openstack-request-id': a.globalRequestId,
        ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...s.headers,
        ...req.headers,
      },
      body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
      signal: AbortSignal.timeout(s.timeoutMs),
    });
  } catch (e) {
    const timedOut = (e as Error).name === 'TimeoutError';
    record(0, undefined, timedOut ? 'timeout' : 'unreachable');
    const cause = ((e as { cause?: { code?: string; message?: string } }).cause?.code ?? (e as Error).message) || 'error';
    throw new OpenStackError(
      s.service,
      0,
      undefined,
      undefined,
      timedOut ? 'timeout' : 'unreachable',
      `${s.service} ${method} ${req.path}: ${timedOut ? `no answer within ${s.timeoutMs} ms` : `unreachable (${cause})`}`,
    );
  }
  const requestId = res.headers.get('x-openstack-request-id') ?? res.headers.get('x-compute-request-id') ?? undefined;
  let body: unknown;
  try {
    body = parseBody(await res.text());
  } catch (e) {
    const timedOut = (e as Error).name === 'TimeoutError';
    record(0, requestId, timedOut ? 'timeout' : 'unreachable');
    throw new OpenStackError(s.service, 0, requestId, undefined, timedOut ? 'timeout' : 'unreachable', `${s.service} ${method} ${req.path}: connection lost (${(e as Error).message})`);
  }
  s.trace?.({ service: s.service, method, path: req.path, query: qs, status: res.status, body });
  if (res.status >= 400) {
    const kind = kindOf(res.status);
    record(res.status, requestId, kind);
    throw new OpenStackError(
      s.service,
      res.status,
      requestId,
      body,
      kind,
      `${s.service} ${method} ${req.path}: HTTP ${res.status}${requestId ? ` (${requestId})` : ''}`,
      parseRetryAfter(res.headers.get('retry-after')),
    );
  }
  record(res.status, requestId, undefined);
  return { status: res.status, body: body as T, headers: res.headers, requestId };
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
