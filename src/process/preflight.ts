// Before a process starts its work: PostgreSQL and Redis answer, and the schema is the one this
// build expects. A failure names the dependency and the variable that points at it, so the one
// line a failed start prints says what to fix.
import { Redis } from 'ioredis';
import { assertSchemaCurrent, SchemaBehindError } from '../db/schema-check.js';
import { describeError } from './startup-error.js';

/** Runs `fn`; an error (but a schema behind the build) becomes "<what> at <host> (<variable>): <reason>". */
export async function reaching<T>(what: string, variable: string, url: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof SchemaBehindError) throw e;
    throw new Error(`${what} at ${new URL(url).host} (${variable}): ${describeError(e)}`, { cause: e });
  }
}

export async function pingRedis(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 10_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // ioredis rejects with "Connection is closed"; the socket's own error says why.
  let cause: Error | undefined;
  redis.on('error', (e: Error) => (cause ??= e));
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    throw cause ?? e;
  } finally {
    redis.disconnect();
  }
}

/** PostgreSQL reachable with the current schema, Redis reachable. */
export async function preflight(config: { databaseUrl: string; redisUrl: string }): Promise<void> {
  await reaching('PostgreSQL', 'DATABASE_URL', config.databaseUrl, () => assertSchemaCurrent(config.databaseUrl));
  await reaching('Redis', 'REDIS_URL', config.redisUrl, () => pingRedis(config.redisUrl));
}
