// A uwsgi master in a process group of its own, on a loopback port the test picked: started, awaited
// until a URL answers, stopped by its PID (SIGTERM to the group, SIGKILL after 10 s), and killed when
// the test process ends.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';

export const UWSGI = '/usr/bin/uwsgi-core';

const live = new Set<number>();
let hooked = false;

function killAllOnExit(): void {
  if (hooked) return;
  hooked = true;
  const killAll = () => {
    for (const pid of live) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    live.clear();
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killAll();
      process.kill(process.pid, sig);
    });
  }
}

const alive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface UwsgiProcess {
  pid: number;
  stop(): Promise<void>;
}

/** The last `max` characters of a log file. */
export function tail(path: string, max = 8000): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.length > max ? `…${text.slice(-max)}` : text;
  } catch {
    return '(no log)';
  }
}

/**
 * Writes `ini` to `iniPath`, starts uwsgi on it with its output appended to `logPath`, and waits until
 * `ready()` is true (it is polled; uwsgi exiting or `timeoutMs` passing is an error carrying the log's tail).
 */
export async function startUwsgi(opts: { ini: string; iniPath: string; logPath: string; cwd: string; ready: () => Promise<boolean>; timeoutMs?: number }): Promise<UwsgiProcess> {
  await writeFile(opts.iniPath, opts.ini);
  const fd = openSync(opts.logPath, 'a');
  let child;
  try {
    child = spawn(UWSGI, ['--ini', opts.iniPath], { cwd: opts.cwd, stdio: ['ignore', fd, fd], detached: true });
  } finally {
    closeSync(fd);
  }
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error(`uwsgi did not start; log ${opts.logPath}:\n${tail(opts.logPath)}`);
  live.add(pid);
  killAllOnExit();
  let exited: string | undefined;
  child.on('exit', (code, signal) => (exited = `uwsgi exited (code ${code}, signal ${signal})`));
  const stop = async () => {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // gone
    }
    for (let end = Date.now() + 10_000; alive(pid) && Date.now() < end; ) await sleep(100);
    if (alive(pid)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
      for (let end = Date.now() + 5_000; alive(pid) && Date.now() < end; ) await sleep(50);
    }
    live.delete(pid);
  };
  const end = Date.now() + (opts.timeoutMs ?? 90_000);
  while (exited === undefined && Date.now() < end) {
    if (await opts.ready().catch(() => false)) return { pid, stop };
    await sleep(250);
  }
  await stop();
  throw new Error(`${exited ?? `uwsgi was not ready within ${(opts.timeoutMs ?? 90_000) / 1000} s`}; log ${opts.logPath}:\n${tail(opts.logPath)}`);
}
