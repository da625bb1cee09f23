// Horizon with magnum-ui (Debian's openstack-dashboard and python3-magnum-ui, Zed) for the browser lane:
// installed when missing, served by uwsgi on a loopback port of the test's own, as the `horizon` user,
// from an instance folder with a private local_settings.py pointed at the test's Keystone. The static
// files Debian's settings need (offline compression) are collected and compressed once, as root, into
// the state folder, and reused until a package changes. The state folder is <repo>/.local/horizon, or
// /var/tmp/magnum-ts-horizon-<hash of the checkout's path> when the horizon user cannot reach the checkout.
// HORIZON_KEEP_LOGS=1 keeps an instance's folder (its uwsgi.log) after stop(); HORIZON_KEEP_FAILED=1 that of a failed start.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { aptInstall } from './apt.js';
import { closedPort } from './net.js';
import { installedVersion, staticFiles, writeInstance } from './horizon-static.js';
import { startUwsgi, type UwsgiProcess } from './uwsgi-process.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Debian's packages: Horizon, the magnum-ui plugin (its enabled/ files go to openstack_dashboard/local/enabled), uwsgi's Python. */
const PACKAGES = ['openstack-dashboard', 'python3-magnum-ui', 'uwsgi-core', 'uwsgi-plugin-python3'];
const ENABLED = '/usr/lib/python3/dist-packages/openstack_dashboard/local/enabled';
const PLUGIN_ENABLED = '/usr/lib/python3/dist-packages/magnum_ui/enabled';

let packagesReady: Promise<void> | undefined;

/** Installs what is missing (as root; no daemon started by the maintainer scripts) and checks magnum-ui's panels are enabled. */
export function ensureHorizonPackages(): Promise<void> {
  packagesReady ??= (async () => {
    const missing: string[] = [];
    for (const p of PACKAGES) if (!(await installedVersion(p))) missing.push(p);
    if (missing.length > 0) {
      if (process.getuid?.() !== 0) throw new Error(`package ${missing[0]} is not installed and installing it needs root`);
      await aptInstall(missing, process.env, { noServices: true });
    }
    const panels = (await readdir(PLUGIN_ENABLED)).filter((f) => /^_\d+_.*\.py$/.test(f));
    const enabled = new Set(await readdir(ENABLED).catch(() => []));
    const absent = panels.filter((f) => !enabled.has(f));
    if (absent.length > 0) throw new Error(`magnum-ui's panels ${absent.join(', ')} are not in ${ENABLED} (python3-magnum-ui installs them there)`);
  })().catch((e) => {
    packagesReady = undefined;
    throw e;
  });
  return packagesReady;
}

let stateReady: Promise<string> | undefined;

/** <repo>/.local/horizon when the horizon user can enter it, else a folder of this checkout's own under /var/tmp. */
function stateDir(): Promise<string> {
  stateReady ??= (async () => {
    const preferred = join(REPO_ROOT, '.local', 'horizon');
    await mkdir(preferred, { recursive: true });
    for (const p of [preferred, join(REPO_ROOT, '.local')]) await chmod(p, 0o755).catch(() => undefined);
    if (await run('runuser', ['-u', 'horizon', '--', 'test', '-x', preferred]).then(() => true, () => false)) return preferred;
    const fallback = join('/var/tmp', `magnum-ts-horizon-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}`);
    await mkdir(fallback, { recursive: true, mode: 0o755 });
    await chmod(fallback, 0o755);
    return fallback;
  })();
  return stateReady;
}

export interface Horizon {
  /** http://127.0.0.1:<port> */
  url: string;
  /** uwsgi's log: Horizon's own log lines and Python tracebacks. */
  logPath: string;
  /** The Python tracebacks in the log so far (each with the log line before it). */
  tracebacks(): Promise<string[]>;
  stop(): Promise<void>;
}

/** Horizon under uwsgi as the horizon user, /static/ served by uwsgi from the built folder. */
function uwsgiIni(dir: string, port: number, staticRoot: string): string {
  return `[uwsgi]
plugins = python3
master = true
http-socket = 127.0.0.1:${port}
wsgi-file = ${join(dir, 'wsgi.py')}
processes = 2
threads = 4
uid = horizon
gid = horizon
chdir = ${dir}
static-map = /static=${staticRoot}
buffer-size = 65535
need-app = true
no-orphans = true
die-on-term = true
skip-atexit-teardown = true
env = PYTHONDONTWRITEBYTECODE=1
env = LANG=C.UTF-8
env = PYTHONWARNINGS=ignore
disable-logging = true
pidfile = ${join(dir, 'uwsgi.pid')}
`;
}

/** A Horizon whose login and catalog come from the Keystone at `keystoneUrl` (…/v3). */
export async function startHorizon(opts: { keystoneUrl: string }): Promise<Horizon> {
  await ensureHorizonPackages();
  const state = await stateDir();
  await cleanupStale(state);
  const staticRoot = await staticFiles(state);
  const dir = join(state, `hz-${randomBytes(6).toString('hex')}`);
  await writeInstance(dir, { keystoneUrl: opts.keystoneUrl, secretKey: randomBytes(32).toString('hex'), staticRoot });
  await writeFile(join(dir, 'owner.pid'), String(process.pid));
  const logPath = join(dir, 'uwsgi.log');
  let started: { url: string; proc: UwsgiProcess } | undefined;
  // A port picked free may be taken before uwsgi binds it: another one then, twice at most.
  for (let attempt = 0; !started; attempt++) {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const proc = await startUwsgi({
      ini: uwsgiIni(dir, port, staticRoot),
      iniPath: join(dir, 'uwsgi.ini'),
      logPath,
      cwd: dir,
      ready: async () => (await fetch(`${url}/auth/login/`, { signal: AbortSignal.timeout(10_000) })).status === 200,
    }).catch(async (e: Error) => {
      if (attempt < 2 && /Address already in use/.test(e.message)) return undefined;
      if (!process.env.HORIZON_KEEP_FAILED) await rm(dir, { recursive: true, force: true });
      throw e;
    });
    if (proc) started = { url, proc };
  }
  const { url, proc } = started;
  return {
    url,
    logPath,
    tracebacks: async () => pythonTracebacks(await readFile(logPath, 'utf8').catch(() => '')),
    async stop() {
      await proc.stop();
      if (!process.env.HORIZON_KEEP_LOGS) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The Python tracebacks in a log, chained ones as one, each with the log line before it. */
export function pythonTracebacks(log: string): string[] {
  const lines = log.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('Traceback (most recent call last)')) continue;
    let j = i + 1;
    for (;;) {
      while (j < lines.length && /^(\s|$)/.test(lines[j]!)) j++; // the frames; lines[j] is the exception
      let k = j + 1;
      while (k < lines.length && lines[k] === '') k++;
      if (k >= lines.length || !/^(During handling|The above exception)/.test(lines[k]!)) break;
      j = k + 1;
      while (j < lines.length && (lines[j] === '' || lines[j]!.startsWith('Traceback'))) j++;
    }
    out.push([lines[i - 1] ?? '', ...lines.slice(i, j + 1)].join('\n'));
    i = j;
  }
  return out;
}

/** Instance folders of test processes that are gone: their uwsgi (when its command line names the folder) is killed, the folder removed. */
async function cleanupStale(state: string): Promise<void> {
  for (const name of await readdir(state).catch(() => [] as string[])) {
    if (!name.startsWith('hz-')) continue;
    const dir = join(state, name);
    const owner = Number(await readFile(join(dir, 'owner.pid'), 'utf8').catch(() => '0'));
    if (owner && (await run('kill', ['-0', String(owner)]).then(() => true, () => false))) continue;
    const pid = Number(await readFile(join(dir, 'uwsgi.pid'), 'utf8').catch(() => '0'));
    const cmdline = pid ? await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '') : '';
    if (pid && cmdline.includes(join(dir, 'uwsgi.ini'))) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await rm(dir, { recursive: true, force: true });
  }
}
