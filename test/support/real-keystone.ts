// Test harness: runs Debian's real Keystone (uwsgi + SQLite) on a loopback port, one private instance per call.
// Follows shared/spec/keystone-local.md. The expensive part of the bring-up (db_sync, bootstrap, key setup) is
// done once per provider and kept as a pristine copy in <state>/cache-<provider>, where <state> is
// <repo>/.local/keystone, or, when the keystone user cannot reach into the checkout (a clone in a private home
// or a mktemp -d folder), /var/tmp/magnum-ts-keystone-<hash of the checkout's path>.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { chmod, chown, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.js';
import { aptInstall } from './apt.js';

export type KeystoneUser = 'admin' | 'demo' | 'demo-reader' | 'other' | 'magnum';
export type KeystoneProject = 'admin' | 'service' | 'demo' | 'other';

export interface RealKeystone {
  url: string; // http://127.0.0.1:<port>  (Keystone v3 at url + '/v3')
  dir: string; // the instance folder (database, keys, uwsgi.ini), removed by stop()
  authUrl: string; // url + '/v3'
  provider: 'fernet' | 'jws';
  jwsPublicKeyPath?: string; // SPKI PEM file of the JWS provider (jws only)
  users: Record<KeystoneUser, { name: string; password: string; project: string }>;
  projectIds: Record<KeystoneProject, string>;
  stop(): Promise<void>; // kills uwsgi and removes the instance folder
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGES = ['keystone', 'uwsgi', 'uwsgi-plugin-python3', 'python3-psycopg2'] as const;
const KEYSTONE_MANAGE = '/usr/bin/keystone-manage';
const UWSGI_PYTHON3_PLUGIN = '/usr/lib/uwsgi/plugins/python3_plugin.so';
const ADMIN_PASSWORD = 'admin-secret';
const START_TIMEOUT_MS = 60_000;

const USERS: Record<KeystoneUser, { name: string; password: string; project: KeystoneProject }> = {
  admin: { name: 'admin', password: ADMIN_PASSWORD, project: 'admin' },
  magnum: { name: 'magnum', password: 'magnum-secret', project: 'service' },
  demo: { name: 'demo', password: 'demo-secret', project: 'demo' },
  'demo-reader': { name: 'demo-reader', password: 'demo-reader-secret', project: 'demo' },
  other: { name: 'other', password: 'other-secret', project: 'other' },
};

// ---------------------------------------------------------------------------------------------------------------
// Small process helpers

interface RunResult {
  stdout: string;
  stderr: string;
}

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { cwd: opts.cwd, env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 300_000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as Error & { stdout?: string; stderr?: string };
          e.stdout = stdout;
          e.stderr = stderr;
          e.message = `${cmd} ${args.join(' ')} failed: ${err.message}\n${stderr}`.trim();
          reject(e);
        } else resolve({ stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

function lastLine(text: string | undefined): string {
  const lines = (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^E: /.test(l)) ?? lines[lines.length - 1] ?? '';
}

// ---------------------------------------------------------------------------------------------------------------
// Packages

async function missingPackages(): Promise<string[]> {
  const missing: string[] = [];
  for (const pkg of PACKAGES) {
    try {
      const { stdout } = await run('dpkg-query', ['-W', '-f=${Status}', pkg]);
      if (!/install ok installed/.test(stdout)) missing.push(pkg);
    } catch {
      missing.push(pkg);
    }
  }
  if (!missing.includes('keystone') && !existsSync(KEYSTONE_MANAGE)) missing.push('keystone');
  if (!missing.includes('uwsgi-plugin-python3') && !existsSync(UWSGI_PYTHON3_PLUGIN)) {
    missing.push('uwsgi-plugin-python3');
  }
  return missing;
}

let packagesReady: Promise<void> | undefined;

/** Installs keystone, uwsgi and friends non-interactively when missing (as root). */
export function ensureKeystonePackages(): Promise<void> {
  packagesReady ??= installPackages().catch((e) => {
    packagesReady = undefined;
    throw e;
  });
  return packagesReady;
}

async function installPackages(): Promise<void> {
  const missing = await missingPackages();
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`package ${missing[0]} is not installed and installing it needs root`);
  }
  await run('debconf-set-selections', [], {
    input: [
      'keystone keystone/configure_db boolean false',
      'keystone keystone/create-admin-tenant boolean false',
      'keystone keystone/register-endpoint boolean false',
      '',
    ].join('\n'),
  });
  const policyRcD = '/usr/sbin/policy-rc.d';
  const createdPolicy = !existsSync(policyRcD);
  if (createdPolicy) await writeFile(policyRcD, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    await aptInstall(missing);
  } catch (e) {
    const still = await missingPackages();
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(
      `could not install package ${still[0] ?? missing[0]}: ${lastLine(err.stderr) || lastLine(err.stdout) || String(e)}`,
    );
  } finally {
    if (createdPolicy) await rm(policyRcD, { force: true });
  }
  const still = await missingPackages();
  if (still.length > 0) throw new Error(`could not install package ${still[0]}: still missing after apt-get install`);
}

// ---------------------------------------------------------------------------------------------------------------
// Files

interface Layout {
  dir: string;
  conf: string;
  db: string;
  fernet: string;
  credential: string;
  jwsPublic: string;
  jwsPrivate: string;
}

function layout(dir: string): Layout {
  return {
    dir,
    conf: join(dir, 'keystone.conf'),
    db: join(dir, 'keystone.db'),
    fernet: join(dir, 'fernet-keys'),
    credential: join(dir, 'credential-keys'),
    jwsPublic: join(dir, 'jws-public'),
    jwsPrivate: join(dir, 'jws-private'),
  };
}

function keystoneConf(l: Layout, provider: 'fernet' | 'jws', expiration: number): string {
  return `[DEFAULT]
debug = false
use_stderr = true

[database]
connection = sqlite:///${l.db}

[identity]
password_hash_rounds = 4

[token]
provider = ${provider}
expiration = ${expiration}

[fernet_tokens]
key_repository = ${l.fernet}

[fernet_receipts]
key_repository = ${l.fernet}

[credential]
key_repository = ${l.credential}

[jwt_tokens]
jws_public_key_repository = ${l.jwsPublic}
jws_private_key_repository = ${l.jwsPrivate}
`;
}

let keystoneIds: Promise<{ uid: number; gid: number }> | undefined;

function keystoneUser(): Promise<{ uid: number; gid: number }> {
  keystoneIds ??= (async () => {
    const uid = Number((await run('id', ['-u', 'keystone'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'keystone'])).stdout.trim());
    return { uid, gid };
  })();
  return keystoneIds;
}

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  await chown(path, uid, gid);
  const st = await stat(path);
  if (!st.isDirectory()) return;
  for (const entry of await readdir(path)) await chownTree(join(path, entry), uid, gid);
}

/** Makes everything Keystone touches owned by keystone:keystone, key repositories mode 700. */
async function fixOwnership(l: Layout): Promise<void> {
  const { uid, gid } = await keystoneUser();
  await chownTree(l.dir, uid, gid);
  for (const repo of [l.fernet, l.credential, l.jwsPublic, l.jwsPrivate]) {
    if (existsSync(repo)) await chmod(repo, 0o700);
  }
  await chmod(l.dir, 0o750);
  await chmod(dirname(l.dir), 0o755).catch(() => undefined);
}

let stateReady: Promise<string> | undefined;

/**
 * The folder of instances and caches: <repo>/.local/keystone when the keystone user can reach it (Keystone
 * and uwsgi run as that user on the files there), else a folder of this checkout's own under /var/tmp.
 */
function stateDir(): Promise<string> {
  stateReady ??= (async () => {
    const preferred = join(REPO_ROOT, '.local', 'keystone');
    await mkdir(preferred, { recursive: true });
    for (const p of [preferred, join(REPO_ROOT, '.local')]) await chmod(p, 0o755).catch(() => undefined);
    const reachable = await run('runuser', ['-u', 'keystone', '--', 'test', '-x', preferred]).then(() => true, () => false);
    if (reachable) return preferred;
    const fallback = join('/var/tmp', `magnum-ts-keystone-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}`);
    await mkdir(fallback, { recursive: true, mode: 0o755 });
    await chmod(fallback, 0o755);
    return fallback;
  })();
  return stateReady;
}

/** Bump when what bootstrapInto() leaves in the cache changes: older caches are then rebuilt. */
const CACHE_FORMAT = 1;

/** Stamp of the cache: the Keystone package version (its db schema) and the cache format. */
async function keystoneVersion(): Promise<string> {
  const { stdout } = await run('dpkg-query', ['-W', '-f=${Version}', 'keystone']);
  return `${stdout.trim()} format ${CACHE_FORMAT}`;
}

function manage(l: Layout, ...args: string[]): Promise<RunResult> {
  return run(KEYSTONE_MANAGE, ['--config-file', l.conf, ...args], { cwd: l.dir });
}

/** Steps 1–4 of the bring-up into folder `l` (config already written there). */
async function bootstrapInto(l: Layout, provider: 'fernet' | 'jws', url: string): Promise<void> {
  for (const d of [l.fernet, l.credential, l.jwsPublic, l.jwsPrivate]) await mkdir(d, { recursive: true, mode: 0o700 });
  await fixOwnership(l);
  await manage(l, 'db_sync');
  await manage(l, 'fernet_setup', '--keystone-user', 'keystone', '--keystone-group', 'keystone');
  await manage(l, 'credential_setup', '--keystone-user', 'keystone', '--keystone-group', 'keystone');
  if (provider === 'jws') {
    // create_jws_keypair writes private.pem and public.pem into the current directory.
    const tmp = await mkdtemp(join(tmpdir(), 'jws-keypair-'));
    try {
      await run(
        KEYSTONE_MANAGE,
        ['--config-file', l.conf, 'create_jws_keypair', '--keystone-user', 'keystone', '--keystone-group', 'keystone'],
        { cwd: tmp },
      );
      await cp(join(tmp, 'private.pem'), join(l.jwsPrivate, 'private.pem'));
      await cp(join(tmp, 'public.pem'), join(l.jwsPublic, 'public.pem'));
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  await manage(
    l,
    'bootstrap',
    '--bootstrap-password', ADMIN_PASSWORD,
    '--bootstrap-username', 'admin',
    '--bootstrap-project-name', 'admin',
    '--bootstrap-role-name', 'admin',
    '--bootstrap-service-name', 'keystone',
    '--bootstrap-region-id', 'RegionOne',
    '--bootstrap-public-url', `${url}/v3`,
    '--bootstrap-internal-url', `${url}/v3`,
    '--bootstrap-admin-url', `${url}/v3`,
  );
  // Several uwsgi workers share the SQLite file, and Keystone can leave a read transaction open in an idle
  // worker; in the default rollback-journal mode that makes every write elsewhere fail with "database is
  // locked". In WAL mode readers never block writers. The mode is stored in the file (so in the cache too).
  await run('python3', ['-c', WAL_SCRIPT, l.db]);
  await fixOwnership(l);
}

const WAL_SCRIPT = `import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
mode = c.execute('PRAGMA journal_mode=WAL').fetchone()[0]
c.close()
sys.exit(0 if mode == 'wal' else 'journal_mode is ' + mode)`;

const CACHED = ['keystone.db', 'fernet-keys', 'credential-keys', 'jws-public', 'jws-private'];

/** The pristine copy of a provider's bring-up, beside the instance folders. */
function cacheDir(base: string, provider: string): string {
  return join(base, `cache-${provider}`);
}

/** Copies the pristine cache into the instance folder; false when there is no usable cache. */
async function restoreFromCache(l: Layout, provider: string, version: string): Promise<boolean> {
  const cache = cacheDir(dirname(l.dir), provider);
  try {
    if ((await readFile(join(cache, 'VERSION'), 'utf8')).trim() !== version) return false;
  } catch {
    return false;
  }
  for (const name of CACHED) if (!existsSync(join(cache, name))) return false;
  for (const name of CACHED) await cp(join(cache, name), join(l.dir, name), { recursive: true });
  await fixOwnership(l);
  return true;
}

/** Saves the freshly bootstrapped db and keys as the pristine cache (atomically; concurrent writers are fine). */
async function saveCache(l: Layout, provider: string, version: string): Promise<void> {
  const cache = cacheDir(dirname(l.dir), provider);
  const tmp = `${cache}.tmp-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(tmp, { recursive: true });
    for (const name of CACHED) await cp(join(l.dir, name), join(tmp, name), { recursive: true });
    await writeFile(join(tmp, 'VERSION'), `${version}\n`);
    await rm(cache, { recursive: true, force: true });
    await rename(tmp, cache);
  } catch {
    // another instance won the race, or the disk refused: the cache is an optimisation only
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// uwsgi

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function uwsgiIni(l: Layout, port: number): string {
  return `[uwsgi]
plugins = python3
master = true
http-socket = 127.0.0.1:${port}
wsgi-file = /usr/bin/keystone-wsgi-public
processes = 3
threads = 1
# The app is loaded once in the master and forked (no lazy-apps): a third of the CPU of loading it in each
# worker, which matters on small machines. Keystone opens no database connection while loading (and SQLAlchemy
# uses no pool for SQLite files), so nothing is shared across the fork.
lazy-apps = false
need-app = true
uid = keystone
gid = keystone
chdir = ${l.dir}
buffer-size = 65535
add-header = Connection: close
no-orphans = true
die-on-term = true
# Python's interpreter teardown segfaults in greenlet on worker exit; there is nothing to flush anyway.
skip-atexit-teardown = true
env = OS_KEYSTONE_CONFIG_FILES=${l.conf}
pidfile = ${join(l.dir, 'uwsgi.pid')}
`;
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Kills what is still running when the test process ends (also on SIGINT/SIGTERM/SIGHUP): uwsgi runs in
 * its own process group, so a Ctrl-C on the terminal would not reach it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const pgid of liveGroups) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    liveGroups.clear();
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killAll();
      process.kill(process.pid, sig); // the listener is gone: the default action (exit) follows
    });
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * SIGTERM to uwsgi's process group (the master runs with die-on-term and the workers with no-orphans, and the
 * group catches any straggler), SIGKILL after 10 s.
 */
async function stopGroup(child: ChildProcess): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    // gone
  }
  let deadline = Date.now() + 10_000;
  while (groupAlive(pgid) && Date.now() < deadline) await sleep(100);
  if (groupAlive(pgid)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
    deadline = Date.now() + 5_000;
    while (groupAlive(pgid) && Date.now() < deadline) await sleep(50);
  }
  liveGroups.delete(pgid);
}

function readLog(path: string): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.length > 8000 ? `…${text.slice(-8000)}` : text;
  } catch {
    return '(no log)';
  }
}

/** Starts uwsgi on a free port; resolves once GET /v3 answers. Retries with another port if the bind fails. */
async function startUwsgi(l: Layout): Promise<{ child: ChildProcess; url: string }> {
  const logPath = join(l.dir, 'uwsgi.log');
  const iniPath = join(l.dir, 'uwsgi.ini');
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await writeFile(iniPath, uwsgiIni(l, port));
    const fd = openSync(logPath, 'a');
    let child: ChildProcess;
    try {
      child = spawn('uwsgi', ['--ini', iniPath], {
        cwd: l.dir,
        env: { ...process.env, OS_KEYSTONE_CONFIG_FILES: l.conf },
        stdio: ['ignore', fd, fd],
        detached: true,
      });
    } finally {
      closeSync(fd);
    }
    child.unref();
    if (child.pid !== undefined) liveGroups.add(child.pid);
    installExitHook();
    let exitInfo: string | undefined;
    child.on('exit', (code, signal) => {
      exitInfo = `uwsgi exited (code ${code}, signal ${signal})`;
    });
    child.on('error', (e) => {
      exitInfo = `uwsgi could not start: ${e.message}`;
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline && exitInfo === undefined) {
      try {
        const res = await fetch(`${url}/v3`, { signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        if (res.status === 200) return { child, url };
      } catch {
        // not up yet
      }
      await sleep(200);
    }
    await stopGroup(child);
    const log = readLog(logPath);
    lastError = new Error(
      `Keystone (uwsgi) did not answer GET ${url}/v3 within ${START_TIMEOUT_MS / 1000} s` +
        `${exitInfo ? ` (${exitInfo})` : ''}; uwsgi log ${logPath}:\n${log}`,
    );
    // Only a lost race for the port is worth another try.
    if (!/Address already in use|bind\(\)/.test(log)) break;
  }
  throw lastError ?? new Error('Keystone did not start');
}

// ---------------------------------------------------------------------------------------------------------------
// REST helpers (also handy for tests)

export interface KeystoneCallOptions {
  token?: string;
  subject?: string;
  body?: unknown;
}

export async function keystoneCall(
  authUrl: string,
  method: string,
  path: string,
  opts: KeystoneCallOptions = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.token) headers['x-auth-token'] = opts.token;
  if (opts.subject) headers['x-subject-token'] = opts.subject;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${authUrl}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body };
}

async function expectCall(
  authUrl: string,
  method: string,
  path: string,
  opts: KeystoneCallOptions,
  ok: number[],
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await keystoneCall(authUrl, method, path, opts);
  if (!ok.includes(res.status)) {
    throw new Error(`Keystone ${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res;
}

/**
 * Password login of one of the harness users; scoped to the user's own project unless `project` (a name) says
 * otherwise. Returns the token id and the token body.
 */
export async function issueToken(
  ks: Pick<RealKeystone, 'authUrl' | 'users'>,
  who: KeystoneUser,
  project?: string,
): Promise<{ token: string; body: any }> {
  const u = ks.users[who];
  return passwordLogin(ks, u, { project: { name: project ?? u.project, domain: { id: 'default' } } });
}

/** Revokes `subject` with the admin's (or the given) token: DELETE /v3/auth/tokens → 204. */
export async function revokeToken(ks: Pick<RealKeystone, 'authUrl' | 'users'>, subject: string, token?: string) {
  const actor = token ?? (await issueToken(ks, 'admin')).token;
  await expectCall(ks.authUrl, 'DELETE', '/auth/tokens', { token: actor, subject }, [204]);
}

async function populate(authUrl: string, url: string, users: RealKeystone['users']): Promise<RealKeystone['projectIds']> {
  // Tokens may be short-lived (tokenExpirationSeconds) and a loaded machine slow: log in again on 401.
  let token = (await issueToken({ authUrl, users }, 'admin')).token;
  const call = async (method: string, path: string, body: unknown | undefined, ok: number[]) => {
    const res = await keystoneCall(authUrl, method, path, { token, body });
    if (res.status !== 401) {
      if (!ok.includes(res.status)) {
        throw new Error(`Keystone ${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      }
      return res;
    }
    token = (await issueToken({ authUrl, users }, 'admin')).token;
    return expectCall(authUrl, method, path, { token, body }, ok);
  };

  // The catalog came from the cache with another port: point the identity endpoints at this instance.
  const endpoints = (await call('GET', '/endpoints', undefined, [200])).body.endpoints as { id: string; url: string }[];
  for (const e of endpoints) {
    if (e.url !== `${url}/v3`) await call('PATCH', `/endpoints/${e.id}`, { endpoint: { url: `${url}/v3` } }, [200]);
  }

  const roles = new Map<string, string>();
  for (const r of (await call('GET', '/roles', undefined, [200])).body.roles as { id: string; name: string }[]) {
    roles.set(r.name, r.id);
  }
  if (!roles.has('service')) {
    roles.set('service', (await call('POST', '/roles', { role: { name: 'service' } }, [201])).body.role.id);
  }

  const projectIds = {} as Record<KeystoneProject, string>;
  for (const p of (await call('GET', '/projects', undefined, [200])).body.projects as { id: string; name: string }[]) {
    if (p.name === 'admin') projectIds.admin = p.id;
  }
  for (const name of ['service', 'demo', 'other'] as const) {
    const res = await call(
      'POST',
      '/projects',
      { project: { name, domain_id: 'default', description: `${name} project`, enabled: true } },
      [201],
    );
    projectIds[name] = res.body.project.id;
  }
  if (!projectIds.admin) throw new Error('Keystone has no admin project after bootstrap');

  const grants: [KeystoneUser, KeystoneProject, string[]][] = [
    ['magnum', 'service', ['admin', 'service']],
    ['demo', 'demo', ['member']],
    ['demo-reader', 'demo', ['reader']],
    ['other', 'other', ['member']],
  ];
  for (const [who, project, roleNames] of grants) {
    const u = users[who];
    const res = await call(
      'POST',
      '/users',
      {
        user: {
          name: u.name,
          password: u.password,
          domain_id: 'default',
          default_project_id: projectIds[project],
          enabled: true,
        },
      },
      [201],
    );
    const userId = res.body.user.id as string;
    for (const roleName of roleNames) {
      const roleId = roles.get(roleName);
      if (!roleId) throw new Error(`Keystone has no role ${roleName}`);
      await call('PUT', `/projects/${projectIds[project]}/users/${userId}/roles/${roleId}`, undefined, [204]);
    }
  }
  return projectIds;
}

// ---------------------------------------------------------------------------------------------------------------
// Stale instances of crashed test runs

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function cleanupStale(base: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(base);
  } catch {
    return;
  }
  for (const name of entries) {
    if (!name.startsWith('ks-')) continue;
    const dir = join(base, name);
    try {
      const owner = Number(await readFile(join(dir, 'owner.pid'), 'utf8'));
      if (owner && pidAlive(owner)) continue;
    } catch {
      // no owner file: only treat as stale when old (it may be being created right now)
      const st = await stat(dir).catch(() => undefined);
      if (!st || Date.now() - st.mtimeMs < 10 * 60_000) continue;
    }
    try {
      const pid = Number(await readFile(join(dir, 'uwsgi.pid'), 'utf8'));
      // Only a uwsgi of this very instance folder (pid numbers get reused).
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (pid && cmdline.includes(join(dir, 'uwsgi.ini'))) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    } catch {
      // no uwsgi was started
    }
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------

export async function startRealKeystone(opts: {
  provider: 'fernet' | 'jws';
  tokenExpirationSeconds?: number;
}): Promise<RealKeystone> {
  const provider = opts.provider;
  const expiration = opts.tokenExpirationSeconds ?? 3600;
  await ensureKeystonePackages();
  const base = await stateDir();
  await cleanupStale(base);
  const version = await keystoneVersion();

  const users = Object.fromEntries(
    Object.entries(USERS).map(([k, v]) => [k, { name: v.name, password: v.password, project: v.project }]),
  ) as RealKeystone['users'];

  const attempt = async (useCache: boolean): Promise<RealKeystone> => {
    const dir = join(base, `ks-${provider}-${randomBytes(6).toString('hex')}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'owner.pid'), String(process.pid));
    const l = layout(dir);
    let child: ChildProcess | undefined;
    let usedCache = false;
    try {
      await writeFile(l.conf, keystoneConf(l, provider, expiration));
      usedCache = useCache && (await restoreFromCache(l, provider, version));
      if (!usedCache) {
        // The catalog URL is fixed up after start (the port is not known yet; it is per instance anyway).
        await bootstrapInto(l, provider, 'http://127.0.0.1:5000');
        await saveCache(l, provider, version);
      }
      const started = await startUwsgi(l);
      child = started.child;
      const url = started.url;
      const authUrl = `${url}/v3`;
      const projectIds = await populate(authUrl, url, users).catch((e: Error) => {
        e.message = `${e.message}\nuwsgi log ${join(dir, 'uwsgi.log')}:\n${readLog(join(dir, 'uwsgi.log'))}`;
        throw e;
      });
      const jwsPublicKeyPath = provider === 'jws' ? join(l.jwsPublic, 'public.pem') : undefined;
      let stopped: Promise<void> | undefined;
      const running = child;
      return {
        url,
        dir,
        authUrl,
        provider,
        ...(jwsPublicKeyPath ? { jwsPublicKeyPath } : {}),
        users,
        projectIds,
        stop: () =>
          (stopped ??= (async () => {
            await stopGroup(running);
            await rm(dir, { recursive: true, force: true });
          })()),
      };
    } catch (e) {
      if (child) await stopGroup(child);
      // REAL_KEYSTONE_KEEP_FAILED=1 keeps the folder of a failed start for a post-mortem.
      if (!process.env.REAL_KEYSTONE_KEEP_FAILED) await rm(dir, { recursive: true, force: true });
      if (e instanceof Error) (e as Error & { fromCache?: boolean }).fromCache = usedCache;
      throw e;
    }
  };

  try {
    return await attempt(true);
  } catch (e) {
    // A cache that does not work (e.g. copied from an older Keystone) is dropped and rebuilt once.
    if (!(e as { fromCache?: boolean }).fromCache) throw e;
    await rm(cacheDir(base, provider), { recursive: true, force: true });
    return attempt(false);
  }
}

/** The API's configuration pointed at `ks`: tokens validated there, the worker's service user its `magnum`. */
export function apiOn(ks: Pick<RealKeystone, 'authUrl' | 'users'>): (c: Config) => void {
  return (c) => {
    c.keystone.authUrl = ks.authUrl;
    c.keystone.service = {
      username: ks.users.magnum.name,
      password: ks.users.magnum.password,
      projectName: ks.users.magnum.project,
      userDomainName: 'Default',
      projectDomainName: 'Default',
    };
  };
}

/** A password login of any user of the Default domain, with the given scope (no catalog): the token and its body. */
export async function passwordLogin(ks: Pick<RealKeystone, 'authUrl'>, user: { name: string; password: string }, scope: object): Promise<{ token: string; body: any }> {
  const res = await expectCall(ks.authUrl, 'POST', '/auth/tokens?nocatalog', {
    body: { auth: { identity: { methods: ['password'], password: { user: { name: user.name, domain: { id: 'default' }, password: user.password } } }, scope } },
  }, [201]);
  const token = res.headers.get('x-subject-token');
  if (!token) throw new Error('Keystone issued a token without X-Subject-Token');
  return { token, body: res.body };
}
