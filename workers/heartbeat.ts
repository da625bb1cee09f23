// Records this worker process as alive in Redis every few seconds, so the API can list live
// workers (and tell a dead one by its stale heartbeat) instead of answering a constant.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { servicesKey, type Heartbeat } from '../src/operations/queue.js';

/**
 * Writes one heartbeat (ARGV[2], JSON without its id) into field ARGV[1], keeping the id the
 * field already has; a new field (or one pruned while its worker was silent) takes the lowest id
 * no other entry holds. Atomic, so two workers registering at once never share an id.
 */
const BEAT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
local id = nil
if current then
  local ok, beat = pcall(cjson.decode, current)
  if ok and type(beat) == 'table' then id = tonumber(beat.id) end
end
if not id then
  local used = {}
  for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
    local ok, beat = pcall(cjson.decode, v)
    if ok and type(beat) == 'table' and tonumber(beat.id) then used[tonumber(beat.id)] = true end
  end
  id = 1
  while used[id] do id = id + 1 end
end
redis.call('HSET', KEYS[1], ARGV[1], '{"id":' .. id .. ',' .. string.sub(ARGV[2], 2))
return id
`;

export interface HeartbeatOptions {
  /** BullMQ key prefix of the deployment. */
  prefix: string;
  intervalMs: number;
}

export interface HeartbeatHandle {
  /** The worker's field in the hash. */
  id: string;
  /** Settles after the first heartbeat was written (or failed to be). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export function startHeartbeat(redis: Redis, opts: HeartbeatOptions): HeartbeatHandle {
  const key = servicesKey(opts.prefix);
  // One field per worker instance, so several workers in one process stay distinct.
  const field = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const beat: Omit<Heartbeat, 'id'> = {
    host: hostname(),
    pid: process.pid,
    binary: 'magnum-conductor',
    started_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
    report_count: 0,
  };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // Beats never overlap: the next is scheduled when the previous has settled, none after stop().
  const beatOnce = async (): Promise<void> => {
    beat.report_count++;
    beat.updated_at = new Date().toISOString();
    try {
      await redis.eval(BEAT, 1, key, field, JSON.stringify(beat));
    } catch {
      // Redis away: the entry goes stale and the API shows the worker down until it is back.
    }
    if (!stopped) timer = setTimeout(() => void (inflight = beatOnce()), opts.intervalMs).unref();
  };
  let inflight = beatOnce();
  const ready = inflight;
  return {
    id: field,
    ready,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inflight;
      await redis.hdel(key, field).catch(() => undefined);
    },
  };
}
