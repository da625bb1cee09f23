// The per-cluster lock: one run of one operation of a cluster at a time, across all workers.
// A Redis key with an expiry, renewed while the run lasts; a dead worker's lock simply expires.
// A run that fails to renew has lost the lock and must stop at its next step: a renewal that finds
// the key gone or taken, and also renewals that get no answer for as long as the key lives (Redis
// away): by then the key may have expired and another run taken it.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface ClusterLock {
  /** False once a renewal found the key gone or taken by someone else. */
  readonly held: boolean;
  release(): Promise<void>;
}

export const clusterLockKey = (prefix: string, uuid: string): string => `${prefix}:magnum:cluster-lock:${uuid}`;

/** The lock, or undefined when another run holds it. Renewed every ttl/3 until released or `signal` aborts. */
export async function acquireClusterLock(redis: Redis, key: string, ttlMs: number, signal?: AbortSignal): Promise<ClusterLock | undefined> {
  const value = randomBytes(12).toString('hex');
  const asked = Date.now();
  const ok = await redis.set(key, value, 'PX', ttlMs, 'NX');
  if (ok !== 'OK') return undefined;
  let held = true;
  // The key lives at least until ttl after the last command that set its expiry was sent; a margin
  // for the clocks of Redis and this process ticking apart.
  const margin = Math.min(1000, Math.floor(ttlMs / 10));
  let validUntil = asked + ttlMs - margin;
  const timer = setInterval(() => {
    if (signal?.aborted) {
      held = false;
      clearInterval(timer);
      return;
    }
    const sent = Date.now();
    redis.eval(RENEW, 1, key, value, String(ttlMs)).then(
      (r) => {
        if (r !== 1) held = false;
        else validUntil = Math.max(validUntil, sent + ttlMs - margin);
      },
      () => undefined, // Redis away: the next renewal tries again; validUntil ends the lock if it stays away.
    );
  }, Math.max(50, Math.floor(ttlMs / 3)));
  timer.unref();
  return {
    get held() {
      return held && !signal?.aborted && Date.now() < validUntil;
    },
    async release() {
      clearInterval(timer);
      held = false;
      await redis.eval(RELEASE, 1, key, value).catch(() => undefined);
    },
  };
}
