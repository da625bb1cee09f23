// One JSON request function for every OpenStack client: the caller's token, a global request id
// (spec §7.2), a timeout, and one typed error for every failure (HTTP status or no answer at all).
// Nothing logged or put in an error message carries the token.
import { randomUUID } from 'node:crypto';
import type { CatalogEntry } from '../keystone/context.js';
import { findEndpoint, type EndpointFilter } from './catalog.js';

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
  ) {
    super(message);
    this.name = 'OpenStackError';
  }

  /** Worth retrying later: 5xx, no answer. Not the service missing from the catalog. */
  get retryable(): boolean {
    return this.kind === 'server' || this.kind === 'unreachable' || this.kind === 'timeout';
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

/** One finished call, for logs and metrics; holds no token and no body. */
export interface CallRecord {
  service: string;
  method: string;
  path: string;
  status: number;
  requestId: string | undefined;
  globalRequestId: string;
  ms: number;
}

/** A service endpoint as one caller sees it. */
export interface Session {
  service: string;
  /** Endpoint URL from the catalog, without trailing slash. */
  baseUrl: string;
  token: string;
  timeoutMs: number;
  /** Sent as X-OpenStack-Request-ID; a fresh req-<uuid> per call when absent. */
  globalRequestId?: string;
  /** Headers sent on every call (e.g. a microversion). */
  headers?: Record<string, string>;
  log?: (call: CallRecord) => void;
}

export interface SessionOptions extends EndpointFilter {
  timeoutMs: number;
  globalRequestId?: string;
  log?: (call: CallRecord) => void;
}

/** The session of `type` from a token's catalog; OpenStackError `no_endpoint` when the catalog lacks it. */
export function sessionFor(catalog: CatalogEntry[], token: string, type: string, opts: SessionOptions): Session {
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
    ...(opts.log ? { log: opts.log } : {}),
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

/** Calls the service; resolves for 2xx (and 3xx), throws OpenStackError otherwise. */
export async function requestJson<T>(s: Session, req: JsonRequest): Promise<JsonResult<T>> {
  const method = req.method ?? 'GET';
  const qs = toSearchParams(req.query).toString();
  const url = `${s.baseUrl}${req.path}${qs ? `?${qs}` : ''}`;
  const globalRequestId = s.globalRequestId ?? newRequestId();
  const started = Date.now();
  const record = (status: number, requestId: string | undefined) =>
    s.log?.({ service: s.service, method, path: req.path, status, requestId, globalRequestId, ms: Date.now() - started });
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        accept: 'application/json',
        'x-auth-token': s.token,
        'x-openstack-request-id': globalRequestId,
        ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...s.headers,
        ...req.headers,
      },
      body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
      signal: AbortSignal.timeout(s.timeoutMs),
    });
  } catch (e) {
    record(0, undefined);
    const timedOut = (e as Error).name === 'TimeoutError';
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
    record(0, requestId);
    throw new OpenStackError(s.service, 0, requestId, undefined, 'unreachable', `${s.service} ${method} ${req.path}: connection lost (${(e as Error).message})`);
  }
  record(res.status, requestId);
  if (res.status >= 400) {
    throw new OpenStackError(
      s.service,
      res.status,
      requestId,
      body,
      kindOf(res.status),
      `${s.service} ${method} ${req.path}: HTTP ${res.status}${requestId ? ` (${requestId})` : ''}`,
    );
  }
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
