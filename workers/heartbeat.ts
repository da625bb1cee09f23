// Records this worker process as alive in Redis every few seconds, so the API can list live
// workers (GET /v1/mservices, `openstack coe service list`) and tell a dead one by its stale
// heartbeat. Each process has a row of its own, keyed by host as Magnum keys its services: the
// first worker of a host has the row named by the host, a second one at the same time `<host>#2`,
// and so on. A worker started again (after a crash or SIGKILL) takes back the row its predecessor
// left, with its id and creation time, instead of leaving it "up" for SERVICE_DOWN_TIME beside a
// new one; a row is taken over only when the process that held it is gone (same host, pid no
// longer running or now ours) or it has been silent for SERVICE_DOWN_TIME.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { servicesKey, type Heartbeat } from '../src/operations/queue.js';

/**
 * Writes ARGV[2] (a heartbeat as JSON, without its id) into field ARGV[1] when the field holds
 * exactly ARGV[3] ('' = absent: a claim of a row as read), or (ARGV[3] = '*') when it is absent or
 * already this process's (instance ARGV[4]): a beat. The row keeps the id it has; a new row takes
 * the lowest id no other row holds. Returns the id, or -1 when the row is someone else's now.
 * Atomic, so two workers claiming one row, or registering at once, never share it or an id.
 */
const WRITE = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
local id = nil
if ARGV[3] == '*' then
  if current then
    local ok, beat = pcall(cjson.decode, current)
    if not (ok and type(beat) == 'table' and beat.instance == ARGV[4]) then return -1 end
    id = tonumber(beat.id)
  end
else
  if (current or '') ~= ARGV[3] then return -1 end
  if current then
    local ok, beat = pcall(cjson.decode, current)
    if ok and type(beat) == 'table' then id = tonumber(beat.id) end
  end
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
  /** A row silent this long may be taken over whoever held it (SERVICE_DOWN_TIME). Default 180 s. */
  staleMs?: number;
  /** The host the rows are named by. Default the machine's host name. */
  host?: string;
}

export interface HeartbeatHandle {
  /** The worker's field in the hash ('' until the first heartbeat is written). */
  readonly id: string;
  /** Settles after the first heartbeat was written (or failed to be). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

/** The field of the n-th row of a host. */
const rowOf = (host: string, n: number): string => (n === 1 ? host : `${host}#${n}`);

function parse(raw: string | null): Heartbeat | undefined {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Heartbeat;
  } catch {
    return undefined;
  }
}

/** The heartbeats this process writes (tests run several workers in one process). */
const OURS = new Set<string>();

/** True when the writer of `b`, a process of this host, still runs. */
function running(b: Heartbeat): boolean {
  if (b.instance !== undefined && OURS.has(b.instance)) return true;
  const pid = b.pid;
  // Our own pid but none of our heartbeats: a predecessor that had our pid (a container's pid 1).
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function startHeartbeat(redis: Redis, opts: HeartbeatOptions): HeartbeatHandle {
  const key = servicesKey(opts.prefix);
  const host = opts.host ?? hostname();
  const staleMs = opts.staleMs ?? 180_000;
  const instance = randomBytes(6).toString('hex');
  OURS.add(instance);
  const beat: Omit<Heartbeat, 'id'> = {
    host,
    machine: host,
    pid: process.pid,
    instance,
    binary: 'magnum-conductor',
    started_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
    report_count: 0,
  };
  let field = '';
  /** Lost a row to another process once: from then on only absent or stale rows are claimed (two processes never trade one row). */
  let lostOne = false;

  /** May this process take the row, as read? */
  const claimable = (b: Heartbeat | undefined, raw: string | null): boolean => {
    if (raw === null) return true;
    if (!b || Number.isNaN(Date.parse(b.updated_at))) return true;
    if (Date.now() - Date.parse(b.updated_at) > staleMs) return true;
    return !lostOne && (b.machine ?? b.host) === host && !running(b);
  };

  /** Takes the first row of the host that is free, keeping a taken-over row's id, creation time and count. */
  const claim = async (): Promise<void> => {
    for (let n = 1; ; n++) {
      const f = rowOf(host, n);
      const raw = await redis.hget(key, f);
      const b = parse(raw);
      if (!claimable(b, raw)) continue;
      // The row's name is the host Magnum shows.
      const next = { ...beat, host: f, updated_at: new Date().toISOString(), report_count: 1 };
      if (b && raw !== null && (b.machine ?? b.host) === host) {
        next.started_at = b.started_at;
        next.report_count = (b.report_count ?? 0) + 1;
      }
      const id = await redis.eval(WRITE, 1, key, f, JSON.stringify(next), raw ?? '', instance);
      if (id !== -1) {
        Object.assign(beat, next);
        field = f;
        return;
      }
    }
  };

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // Beats never overlap: the next is scheduled when the previous has settled, none after stop().
  const beatOnce = async (): Promise<void> => {
    try {
      if (!field) {
        await claim();
      } else {
        beat.report_count++;
        beat.updated_at = new Date().toISOString();
        const id = await redis.eval(WRITE, 1, key, field, JSON.stringify(beat), '*', instance);
        if (id === -1) {
          // Another process took the row (this one was silent too long): a row of its own again.
          lostOne = true;
          field = '';
          beat.report_count = 0;
          beat.started_at = new Date().toISOString();
          await claim();
        }
      }
    } catch {
      // Redis away: the entry goes stale and the API shows the worker down until it is back.
    }
    if (!stopped) timer = setTimeout(() => void (inflight = beatOnce()), opts.intervalMs).unref();
  };
  let inflight = beatOnce();
  return {
    get id() {
      return field;
    },
    ready: inflight,
    async stop() {
      stopped = true;
      OURS.delete(instance);
      clearTimeout(timer);
      await inflight;
      // Only this process's row goes (it may have been taken over meanwhile).
      if (field) await redis.eval(`if redis.call('HGET', KEYS[1], ARGV[1]) and string.find(redis.call('HGET', KEYS[1], ARGV[1]), ARGV[2], 1, true) then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0`, 1, key, field, `"instance":"${instance}"`).catch(() => undefined);
    },
  };
}
