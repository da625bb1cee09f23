// Starting, inspecting and stopping the cloud's daemons as a whole: infrastructure first (MariaDB, epmd,
// RabbitMQ), then every OpenStack process at once; stopped in the reverse order, by PID.
import { readdir, readFile } from 'node:fs/promises';
import { DAEMON_USERS, type Layout } from './layout.js';
import { livePid, logFile, portOpen, sleep, startDaemon, stopGroup, tail, userIds, waitReady } from './procs.js';
import type { CloudDaemon } from './services-infra.js';

const tracked = (d: CloudDaemon) => ({ dir: d.dir, name: d.trackedAs ?? d.name });

/** The daemons alive (and ours), by name → PID. */
export async function alive(daemons: CloudDaemon[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const d of daemons) {
    const pid = await livePid(tracked(d), d.mark);
    if (pid) out.set(d.name, pid);
  }
  return out;
}

/** Every daemon alive and answering. */
export async function allRunning(daemons: CloudDaemon[]): Promise<boolean> {
  const pids = await alive(daemons);
  if (pids.size !== daemons.length) return false;
  const ready = await Promise.all(daemons.map((d) => d.ready().catch(() => false)));
  return ready.every(Boolean);
}

/** Starts the daemons of one tier (infrastructure in order, each ready before the next); resolves to their PIDs. */
export async function startTier(daemons: CloudDaemon[], tier: CloudDaemon['tier']): Promise<Map<string, number>> {
  const pids = new Map<string, number>();
  for (const d of daemons.filter((x) => x.tier === tier)) {
    pids.set(d.name, await startDaemon(d));
    if (tier === 0) await waitReady(d, pids.get(d.name), d.ready, d.readyWithinMs, 'ready');
  }
  return pids;
}

/** Waits until each of `names` (started with `pids`) is ready; the error names the first that is not. */
export async function waitDaemons(daemons: CloudDaemon[], pids: Map<string, number>, names = [...pids.keys()]): Promise<void> {
  await Promise.all(names.map((n) => {
    const d = daemons.find((x) => x.name === n);
    if (!d) throw new Error(`no daemon ${n}`);
    return waitReady(d, pids.get(n), d.ready, d.readyWithinMs, 'answering');
  }));
}

/** Fails naming the daemon and quoting its log when one of them has died. */
export async function assertAlive(daemons: CloudDaemon[]): Promise<void> {
  const pids = await alive(daemons);
  const dead = daemons.find((d) => !pids.has(d.name));
  if (dead) throw new Error(`${dead.name} is not running; the end of ${logFile(dead)}:\n${tail(logFile(dead))}`);
}

/** Stops the daemons that are alive, the OpenStack ones first, infrastructure last. */
export async function stopAll(daemons: CloudDaemon[], l: Layout): Promise<void> {
  for (const tier of [3, 2, 1, 0] as const) {
    const group = daemons.filter((d) => d.tier === tier).reverse();
    await Promise.all(group.map(async (d) => {
      const pid = await livePid(tracked(d), d.mark);
      if (pid) await stopGroup(tracked(d), pid, d.tier === 0 ? 60_000 : 15_000);
      // RabbitMQ's launcher, when it is still there, with the node gone.
      if (d.trackedAs) {
        const launcher = await livePid(d, d.cmd);
        if (launcher) await stopGroup(d, launcher, 5_000);
      }
    }));
  }
  await killOrphans(l);
}

/**
 * Processes of this cloud whose PID files are lost (a deleted live folder, a crash between start and write):
 * found by their user (one of the daemon users) and their command line (naming the live folder, or, for the
 * cloud's epmd, its port), and killed.
 */
async function killOrphans(l: Layout): Promise<void> {
  const epmdMark = `epmd\0-port\0${l.ports.epmd}\0`;
  const uids = new Set(await Promise.all(DAEMON_USERS.map(async (u) => (await userIds(u)).uid)));
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    if (!uids.has(uid)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.includes(`${l.live}/`) && !cmdline.includes(epmdMark)) continue;
    try {
      process.kill(Number(entry), 'SIGTERM');
    } catch {
      // gone
    }
  }
  await sleep(200);
}

/** Fails when a port of the cloud is taken by something that is not this cloud. */
export async function assertPortsFree(l: Layout): Promise<void> {
  for (const [name, port] of Object.entries(l.ports)) {
    if (name === 'rabbitmqDist') continue; // bound only while the node runs, checked with it
    if (await portOpen(port)) {
      throw new Error(
        `port ${port} (${name} of the real-OpenStack test cloud) is in use by a process that is not this checkout's ` +
          'cloud: stop it, or set REAL_OPENSTACK_PORT_BASE to another base',
      );
    }
  }
}
