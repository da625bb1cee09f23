// Whether an error is a transient failure of the service's own infrastructure: PostgreSQL or Redis
// restarting, failing over, refusing for a moment, or the connection to them lost. The worker
// retries the step (workers/errors.ts); the API answers 503 with Retry-After (src/api/plugins/
// envelope.ts) instead of a 500, so clients try again as they do for any 503.

/** Connection-level failures (Node's codes) of PostgreSQL, Redis or anything else reached over TCP. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN', 'ECONNABORTED', 'ENOTCONN']);

/**
 * PostgreSQL SQLSTATEs that a later attempt may not meet: 57P01-57P03 (the server shutting down or
 * starting), 40001 and 40P01 (serialization failure, deadlock), 53300 (too many connections), 55P03
 * (lock not available), 57014 (statement timeout), 25P03 (idle-in-transaction timeout); and class 08,
 * connection exceptions.
 */
const PG_STATES = new Set(['57P01', '57P02', '57P03', '40001', '40P01', '53300', '55P03', '57014', '25P03']);

/** Messages of the pg driver and pool, and of ioredis, for a lost or unobtainable connection (they carry no code). */
const TRANSIENT_MESSAGES = [
  /^Connection terminated/, // pg: the server went away, or connectionTimeoutMillis
  /^timeout exceeded when trying to connect/, // pg-pool: connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable/, // pg
  /^Query read timeout/, // pg: query_timeout
  /^Connection is closed\.?$/, // ioredis
  /^Reached the max retries per request limit/, // ioredis MaxRetriesPerRequestError
  /^Stream isn't writeable/, // ioredis without offline queue
  /^Command timed out/, // ioredis commandTimeout
  /^(LOADING|READONLY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN|BUSY) /, // Redis: loading its data, a failover, a busy script
];

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  driverError?: unknown;
  errors?: unknown;
}

/**
 * Why `e` is a transient failure of the service's own infrastructure (PostgreSQL, Redis, the network
 * to them), or undefined when it is not. Looks through causes, TypeORM's driverError and AggregateErrors.
 */
export function transientInfraError(e: unknown, depth = 0): string | undefined {
  if (depth > 4 || e === null || typeof e !== 'object') return undefined;
  const x = e as ErrorLike;
  const code = typeof x.code === 'string' ? x.code : undefined;
  if (code !== undefined) {
    if (NETWORK_CODES.has(code)) return `connection failure ${code}`;
    if (PG_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return `PostgreSQL ${code}`;
  }
  if (x.name === 'MaxRetriesPerRequestError' || x.name === 'TimeoutError') return String(x.name);
  // TypeORM's answer to the next statement of a transaction whose connection failed under it.
  if (x.name === 'QueryRunnerProviderAlreadyReleasedError') return 'the connection of the transaction was lost';
  const message = typeof x.message === 'string' ? x.message : '';
  if (TRANSIENT_MESSAGES.some((re) => re.test(message))) return message;
  for (const inner of [x.driverError, x.cause, ...(Array.isArray(x.errors) ? x.errors : [])]) {
    const why = transientInfraError(inner, depth + 1);
    if (why) return why;
  }
  return undefined;
}
