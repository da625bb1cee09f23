// A private PostgreSQL and a private Redis that a test or benchmark owns: made in a folder of its
// own on free ports, and stopped, killed and started again at will (the shared servers of
// `npm test` on 55432/56379 are never restarted). PostgreSQL keeps the default synchronous commit
// (a commit answered is a commit kept when the server is killed); Redis runs as production asks
// (append-only file, fsync every second, noeviction: docker-compose.yml).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

const isRoot = process.getuid?.() === 0;

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${`${r.stdout}${r.stderr}`.trim().split('\n').slice(-5).join('\n')}`);
  return r.stdout;
}

/** PostgreSQL tools run as `postgres` when we are root (the server refuses root). */
function asPostgres(cmd: string, args: string[]): string {
  return isRoot ? run('runuser', ['-u', 'postgres', '--', cmd, ...args]) : run(cmd, args);
}

function ownForPostgres(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (!isRoot) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
}

function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions[0]) throw new Error('PostgreSQL server binaries not found (npm test installs them: run it once)');
  return join(base, versions[0], 'bin');
}

export async function portAnswers(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port, host });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function waitPort(port: number, open: boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while ((await portAnswers(port)) !== open) {
    if (Date.now() > end) throw new Error(`${what} did not ${open ? 'start' : 'stop'} listening on 127.0.0.1:${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export class PrivatePostgres {
  private readonly bin = postgresBin();
  private readonly data: string;
  private readonly sock: string;
  readonly restarts: { at: number; downMs: number; mode: string }[] = [];

  constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    this.data = join(dir, 'pgdata');
    this.sock = join(dir, 'pgsock');
  }

  /** A superuser URL to database `db`. */
  url(db = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${db}`;
  }

  async init(): Promise<void> {
    ownForPostgres(this.dir);
    ownForPostgres(this.sock);
    ownForPostgres(this.data);
    asPostgres(join(this.bin, 'initdb'), ['-D', this.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    await this.start();
  }

  async start(): Promise<void> {
    const opts = `-p ${this.port} -k ${this.sock} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=400 -c shared_buffers=128MB`;
    asPostgres(join(this.bin, 'pg_ctl'), ['-D', this.data, '-o', opts, '-l', join(this.dir, 'postgres.log'), '-w', '-t', '60', 'start']);
    await waitPort(this.port, true, 30_000, 'PostgreSQL');
  }

  /** `immediate`: every backend killed at once, crash recovery at the next start; `fast`: a clean shutdown. */
  async stop(mode: 'immediate' | 'fast' = 'fast'): Promise<void> {
    asPostgres(join(this.bin, 'pg_ctl'), ['-D', this.data, '-m', mode, '-w', '-t', '60', 'stop']);
    await waitPort(this.port, false, 30_000, 'PostgreSQL');
  }

  /** Down (as after a crash, by default) for `downMs`, then up again. */
  async restart(downMs = 1000, mode: 'immediate' | 'fast' = 'immediate'): Promise<void> {
    const at = Date.now();
    await this.stop(mode);
    await new Promise((r) => setTimeout(r, downMs));
    await this.start();
    this.restarts.push({ at, downMs: Date.now() - at, mode });
  }

  async close(): Promise<void> {
    if (await portAnswers(this.port)) await this.stop('immediate').catch(() => undefined);
  }
}

export class PrivateRedis {
  private child: ChildProcess | undefined;
  readonly restarts: { at: number; downMs: number; signal: string }[] = [];

  constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec',
        '--maxmemory-policy', 'noeviction', '--logfile', join(this.dir, 'redis.log')],
      { stdio: 'ignore' },
    );
    this.child = child;
    await waitPort(this.port, true, 15_000, 'Redis');
  }

  /** SIGKILL (no shutdown work: what the append-only file holds is what comes back) or SIGTERM. */
  async stop(signal: 'SIGKILL' | 'SIGTERM' = 'SIGTERM'): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
    this.child = undefined;
    await waitPort(this.port, false, 15_000, 'Redis');
  }

  async restart(downMs = 1000, signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<void> {
    const at = Date.now();
    await this.stop(signal);
    await new Promise((r) => setTimeout(r, downMs));
    await this.start();
    this.restarts.push({ at, downMs: Date.now() - at, signal });
  }

  async close(): Promise<void> {
    await this.stop('SIGKILL');
  }
}
