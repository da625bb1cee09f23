// Private PostgreSQL and Redis on loopback for `npm start` and `npm test`, used when
// DATABASE_URL / REDIS_URL are not set. Plain Node (no dependencies): it runs before npm install.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, chownSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';

const isRoot = process.getuid?.() === 0;

export class SetupError extends Error {}

const DOCKER_HINT = 'or run the stack with `docker compose up` (see README), or set DATABASE_URL and REDIS_URL';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) {
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    throw new SetupError(`${cmd} ${args.join(' ')} failed (exit ${r.status}): ${out}`);
  }
  return r.stdout;
}

let aptUpdated = false;
/** apt-get install, as root, non-interactively; one clear error naming the package otherwise. */
export function aptInstall(pkgs, why) {
  if (!isRoot) throw new SetupError(`${pkgs.join(' ')} is missing (needed for ${why}) and only root can install it: install it, ${DOCKER_HINT}`);
  console.log(`[setup] installing ${pkgs.join(' ')} with apt-get (for ${why})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const attempt = () => spawnSync('apt-get', ['install', '-y', '-q', ...pkgs], { env, encoding: 'utf8' });
  let r = attempt();
  if (r.status !== 0 && !aptUpdated) {
    spawnSync('apt-get', ['update', '-q'], { env, encoding: 'utf8' });
    aptUpdated = true;
    r = attempt();
  }
  if (r.status !== 0) {
    throw new SetupError(`could not install ${pkgs.join(' ')} with apt-get (needed for ${why}): install it by hand, ${DOCKER_HINT}`);
  }
}

export function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = createConnection({ port, host });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function waitPort(port, seconds, what) {
  for (let i = 0; i < seconds * 10; i++) {
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new SetupError(`${what} did not start listening on 127.0.0.1:${port} within ${seconds} s`);
}

function postgresBin() {
  const base = '/usr/lib/postgresql';
  const find = () =>
    existsSync(base)
      ? readdirSync(base)
          .filter((v) => existsSync(join(base, v, 'bin', 'pg_ctl')))
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => join(base, v, 'bin'))[0]
      : undefined;
  let bin = find();
  if (!bin) {
    aptInstall(['postgresql'], 'the local PostgreSQL');
    bin = find();
  }
  if (!bin) throw new SetupError(`PostgreSQL server binaries not found after install: ${DOCKER_HINT}`);
  return bin;
}

/** Runs a PostgreSQL tool as the `postgres` user when we are root (PostgreSQL refuses root). */
function asPostgres(cmd, args) {
  return isRoot ? run('runuser', ['-u', 'postgres', '--', cmd, ...args]) : run(cmd, args);
}

function ownForPostgres(dir) {
  mkdirSync(dir, { recursive: true });
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
}

/**
 * Where the cluster lives: `<repo>/.local/pg`, or, when we are root and the postgres user cannot
 * reach that folder (a clone under a private home, say), a folder of its own under /var/tmp.
 */
function postgresDir(localDir) {
  const preferred = join(localDir, 'pg');
  ownForPostgres(preferred);
  if (!isRoot || spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-w', preferred]).status === 0) return preferred;
  const fallback = join('/var/tmp', `magnum-ts-pg-${createHash('sha256').update(localDir).digest('hex').slice(0, 12)}`);
  ownForPostgres(fallback);
  console.log(`[setup] the postgres user cannot reach ${preferred}; using ${fallback}`);
  return fallback;
}

/** Starts (or reuses) the private PostgreSQL; returns a superuser URL to its `postgres` database. */
export async function ensurePostgres(localDir, port) {
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  if (await portOpen(port)) return url;
  const bin = postgresBin();
  const dir = postgresDir(localDir);
  const data = join(dir, 'data');
  const sock = join(dir, 'sock');
  ownForPostgres(sock);
  if (!existsSync(join(data, 'PG_VERSION'))) {
    console.log(`[setup] creating a private PostgreSQL cluster in ${data}`);
    ownForPostgres(data);
    asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  }
  const opts = `-p ${port} -k ${sock} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', 'start']);
  await waitPort(port, 30, 'PostgreSQL');
  return url;
}

/** Starts (or reuses) the private Redis; returns its URL. */
export async function ensureRedis(localDir, port) {
  const url = `redis://127.0.0.1:${port}`;
  if (await portOpen(port)) return url;
  const has = () => spawnSync('sh', ['-c', 'command -v redis-server']).status === 0;
  if (!has()) aptInstall(['redis-server'], 'the local Redis');
  const dir = join(localDir, 'redis');
  mkdirSync(dir, { recursive: true });
  run('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--daemonize', 'yes', '--save', '', '--appendonly', 'no',
    '--dir', dir, '--pidfile', join(dir, 'redis.pid'), '--logfile', join(dir, 'redis.log'),
  ]);
  await waitPort(port, 15, 'Redis');
  return url;
}

/**
 * npm dependencies: installed when node_modules was not installed from this package.json and
 * lock file (a content hash, not mtimes: a clone's mtimes mean nothing). `npm install`, not
 * `npm ci`: npm 11's ci refuses locks whose optional platform packages the registry lacks.
 */
export function ensureNpmDeps(root) {
  const hash = createHash('sha256');
  for (const f of ['package.json', 'package-lock.json']) if (existsSync(join(root, f))) hash.update(readFileSync(join(root, f)));
  const want = hash.digest('hex');
  const stamp = join(root, 'node_modules', '.magnum-install-stamp');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  console.log('[setup] installing npm dependencies');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new SetupError('npm could not install the dependencies (see above)');
  writeFileSync(stamp, want);
}
