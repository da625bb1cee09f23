// The cloud's daemons as plain background processes: started detached (they outlive the test process, so the
// next test file or run finds them), each its own process group, as its own system user, logging into its
// folder; tracked by a PID file checked against /proc (the command line must name the cloud's folder, so a
// reused PID is never taken for ours); stopped by PID. Also the bring-up lock and small waiting helpers.
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ids = new Map<string, { uid: number; gid: number }>();

/** uid and gid of a system user (cached). */
export async function userIds(user: string): Promise<{ uid: number; gid: number }> {
  let found = ids.get(user);
  if (!found) {
    const uid = Number((await exec('id', ['-u', user])).stdout.trim());
    const gid = Number((await exec('id', ['-g', user])).stdout.trim());
    found = { uid, gid };
    ids.set(user, found);
  }
  return found;
}

/** The last lines of a log, for an error message. */
export function tail(path: string, lines = 25): string {
  try {
    const all = readFileSync(path, 'utf8').split('\n');
    return all.slice(-lines - 1).join('\n').trimEnd();
  } catch {
    return '(no log)';
  }
}

/** Runs a command to completion; the error names the command and quotes its output's end. */
export async function runTool(
  what: string,
  cmd: string,
  args: string[],
  opts: { user?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<string> {
  const ugid = opts.user ? await userIds(opts.user) : {};
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { ...ugid, env: opts.env ?? process.env, cwd: opts.cwd, timeout: opts.timeoutMs ?? 600_000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const out = `${stdout}\n${stderr}`.trim().split('\n').slice(-25).join('\n');
        reject(new Error(`${what} failed (${cmd} ${args.join(' ')}): ${err.message.split('\n')[0]}\n${out}`));
      },
    );
    // A tool that does not read its input closes the pipe early: that is no failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input ?? '');
  });
}

export interface Daemon {
  name: string; // e.g. nova-api; its PID file is <dir>/<name>.pid and its log <dir>/<name>.log
  dir: string;
  user: string;
  cmd: string;
  args: string[];
  env?: Record<string, string>;
}

export const pidFile = (d: Pick<Daemon, 'dir' | 'name'>) => join(d.dir, `${d.name}.pid`);
export const logFile = (d: Pick<Daemon, 'dir' | 'name'>) => join(d.dir, `${d.name}.log`);

/** The PID recorded for `d` when that process is alive and is really ours (its command line names `mark`). */
export async function livePid(d: Pick<Daemon, 'dir' | 'name'>, mark: string): Promise<number | undefined> {
  const pid = Number((await readFile(pidFile(d), 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 1) return undefined;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (/\) Z /.test(stat)) return undefined; // a zombie is gone
  return cmdline.replace(/\0/g, ' ').includes(mark) ? pid : undefined;
}

/** Starts `d` detached, as its user, with stdout and stderr appended to its log; writes its PID file. */
export async function startDaemon(d: Daemon): Promise<number> {
  const { uid, gid } = await userIds(d.user);
  const fd = openSync(logFile(d), 'a');
  try {
    const child = spawn(d.cmd, d.args, {
      cwd: d.dir,
      uid,
      gid,
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', HOME: d.dir, ...d.env },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    const pid = child.pid;
    if (pid === undefined) {
      const failed = await new Promise<Error>((r) => child.once('error', r));
      throw new Error(`${d.name} could not start: ${failed.message}`);
    }
    child.on('error', () => undefined);
    child.unref();
    await writeFile(pidFile(d), `${pid}\n`);
    return pid;
  } finally {
    closeSync(fd);
  }
}

/** Whether signal 0 reaches `target` (a PID, or a process group as -PGID). */
function reachable(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the process group `pid` leads, SIGKILL after `graceMs`; then its PID file goes. */
export async function stopGroup(d: Pick<Daemon, 'dir' | 'name'>, pid: number, graceMs = 15_000): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig); // not a group leader (an adopted process)
      } catch {
        // gone
      }
    }
  };
  const alive = () => reachable(-pid) || reachable(pid);
  signal('SIGTERM');
  let deadline = Date.now() + graceMs;
  while (alive() && Date.now() < deadline) await sleep(100);
  if (alive()) {
    signal('SIGKILL');
    deadline = Date.now() + 5_000;
    while (alive() && Date.now() < deadline) await sleep(50);
  }
  await rm(pidFile(d), { force: true });
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ port, host });
    s.setTimeout(1000);
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('timeout', () => { s.destroy(); resolve(false); });
    s.once('error', () => resolve(false));
  });
}

/** GET url: the status, or undefined when nothing answers. */
export async function httpStatus(target: string): Promise<number | undefined> {
  try {
    const res = await fetch(target, { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

/**
 * Polls `ready` until it is true; fails when `deadlineMs` passes or the daemon's process dies first, naming the
 * daemon and quoting the end of its log.
 */
export async function waitReady(
  d: Pick<Daemon, 'dir' | 'name'>,
  pid: number | undefined,
  ready: () => Promise<boolean>,
  deadlineMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await ready()) return;
    const dead = pid !== undefined && !reachable(pid);
    if (dead || Date.now() > deadline) {
      const why = dead ? 'exited' : `was not ${what} within ${Math.round(deadlineMs / 1000)} s`;
      throw new Error(`${d.name} ${why}; the end of ${logFile(d)}:\n${tail(logFile(d))}`);
    }
    await sleep(250);
  }
}

/**
 * An exclusive lock on `file` held by a flock(1) child until release() (or until this process dies: the child's
 * stdin closes and it exits). Waits up to `timeoutMs` for another holder.
 */
/**
 * `takeLock`, held until this process ends (the lock's holder exits when its stdin closes): one test file at a time
 * uses the checkout's test cloud, since its tests change what the cloud does (Octavia's policy).
 */
export async function holdForProcess(file: string, timeoutMs = 1_800_000): Promise<void> {
  const child = spawn('flock', ['-x', '-w', String(Math.ceil(timeoutMs / 1000)), file, 'sh', '-c', 'echo locked; exec cat'], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      if (b.toString().includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`could not take the lock ${file} (flock exited ${code})`)));
    child.once('error', reject);
  });
  child.removeAllListeners('exit');
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  (child.stdout as unknown as { unref(): void }).unref();
}

export async function takeLock(file: string, timeoutMs = 900_000): Promise<() => void> {
  const child = spawn('flock', ['-x', '-w', String(Math.ceil(timeoutMs / 1000)), file, 'sh', '-c', 'echo locked; exec cat'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`could not take the lock ${file} (flock exited ${code})`)));
    child.once('error', reject);
  });
  child.removeAllListeners('exit');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    child.stdin.end();
  };
}
