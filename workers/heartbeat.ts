// Records this worker process as alive in Redis every few seconds, so the API can list live
// workers (and tell a dead one by its stale heartbeat) instead of answering a constant.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { SERVICES_KEY, type Heartbeat } from '../src/queue/names.js';

export function startHeartbeat(redis: Redis, intervalMs: number): { id: string; stop(): Promise<void> } {
  // One field per worker instance, so several workers in one process stay distinct.
  const field = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const beat: Heartbeat = {
    host: hostname(),
    pid: process.pid,
    binary: 'magnum-conductor',
    started_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
    report_count: 0,
  };
  const write = async () => {
    beat.report_count++;
    beat.updated_at = new Date().toISOString();
    await redis.hset(SERVICES_KEY, field, JSON.stringify(beat));
  };
  const timer = setInterval(() => void write().catch(() => undefined), intervalMs);
  timer.unref();
  void write().catch(() => undefined);
  return {
    id: field,
    async stop() {
      clearInterval(timer);
      await redis.hdel(SERVICES_KEY, field).catch(() => undefined);
    },
  };
}
