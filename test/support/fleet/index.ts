// A deployment on one machine, as docker-compose.yml lays it out but without Docker: a private
// PostgreSQL and Redis (servers.ts), the simulator as its own process, the migration run once,
// then any number of API and worker processes of the compiled code (`npm run build`'s output),
// each on free ports with its log in the fleet's folder. Tests and benchmarks kill, restart and
// measure them; the fleet's folder is removed on close unless asked to keep it.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { BUILTIN_USERS, SERVICE_USER } from '../../../cloudsim/embedded.js';
import { loadSeed } from '../../../cloudsim/seed.js';
import { TEST_SECRET_KEY } from '../app.js';
import { closedPort } from '../net.js';
import { builtDist } from './dist.js';
import { Proc } from './procs.js';
import { PrivatePostgres, PrivateRedis } from './servers.js';

export { cpuMs, memoryMb, Proc } from './procs.js';

export interface FleetOptions {
  apis?: number;
  workers?: number;
  /** The simulator's clock: CLOUDSIM_TIME_SCALE and CLOUDSIM_SEED. */
  timeScale?: number;
  seed?: number;
  /** CLOUDSIM_FAULTS: rules by service. */
  faults?: Record<string, unknown[]>;
  /** Environment of every API and worker process (WORKER_CONCURRENCY, OPERATION_SWEEP_MS, ...). */
  env?: Record<string, string>;
  /** Environment of the workers only, and of the APIs only. */
  workerEnv?: Record<string, string>;
  apiEnv?: Record<string, string>;
  /** Keep the folder (logs, data) after close. */
  keep?: boolean;
}

export type UserName = keyof typeof BUILTIN_USERS;

/** The shipped seed with room for hundreds of clusters: no quotas, a public /20 for routers and floating IPs. */
function roomySeed(): string {
  const seed = structuredClone(loadSeed());
  for (const n of seed.networks ?? []) {
    if (n.name !== 'public') continue;
    n.subnets = [{ ...n.subnets![0]!, cidr: '127.24.0.0/20', gateway_ip: '127.24.0.1', allocation_pools: [{ start: '127.24.0.2', end: '127.24.15.254' }] }];
  }
  const unlimited = (q: Record<string, number> | undefined) => Object.fromEntries(Object.keys(q ?? {}).map((k) => [k, -1]));
  seed.quotas = Object.fromEntries(Object.entries(seed.quotas ?? {}).map(([k, q]) => [k, unlimited(q as Record<string, number>)])) as typeof seed.quotas;
  return stringify(seed);
}

export class Fleet {
  readonly apis: Proc[] = [];
  readonly workers: Proc[] = [];
  sim!: Proc;
  pg!: PrivatePostgres;
  redis!: PrivateRedis;
  keystoneUrl = '';
  adminUrl = '';
  readonly queuePrefix = 'fleet';
  private tokens = new Map<string, { token: string; at: number }>();

  private constructor(
    readonly dir: string,
    private readonly opts: FleetOptions,
  ) {}

  /** Starts every part; on a failure, what started is stopped again. */
  static async start(opts: FleetOptions = {}): Promise<Fleet> {
    const main = await builtDist();
    const dir = mkdtempSync(join(tmpdir(), 'magnum-fleet-'));
    chmodSync(dir, 0o755); // PostgreSQL runs as its own user below it
    const fleet = new Fleet(dir, opts);
    try {
      await fleet.boot(main);
    } catch (e) {
      await fleet.close(true);
      throw e;
    }
    return fleet;
  }

  private async boot(main: string): Promise<void> {
    const o = this.opts;
    this.pg = new PrivatePostgres(join(this.dir, 'pg'), await closedPort());
    this.redis = new PrivateRedis(join(this.dir, 'redis'), await closedPort());
    await Promise.all([this.pg.init(), this.redis.start()]);

    const simPorts: Record<string, string> = {};
    for (const s of ['KEYSTONE', 'GLANCE', 'NOVA', 'NEUTRON', 'OCTAVIA', 'CINDER', 'DESIGNATE', 'MANILA', 'BARBICAN', 'ADMIN']) simPorts[`SIM_${s}_PORT`] = String(await closedPort());
    const apiPorts = await Promise.all(Array.from({ length: o.apis ?? 2 }, () => closedPort()));
    this.keystoneUrl = `http://127.0.0.1:${simPorts.SIM_KEYSTONE_PORT}/v3`;
    this.adminUrl = `http://127.0.0.1:${simPorts.SIM_ADMIN_PORT}/v1`;
    const seedFile = join(this.dir, 'cloud-seed.yaml');
    writeFileSync(seedFile, roomySeed());
    this.sim = new Proc(main, {
      name: 'sim',
      mode: 'sim',
      env: {
        ...simPorts,
        SIM_HOST: '127.0.0.1',
        PUBLIC_API_URL: `http://127.0.0.1:${apiPorts[0]}`,
        CLOUDSIM_SEED_FILE: seedFile,
        CLOUDSIM_TIME_SCALE: String(o.timeScale ?? 0.01),
        ...(o.seed !== undefined ? { CLOUDSIM_SEED: String(o.seed) } : {}),
        ...(o.faults ? { CLOUDSIM_FAULTS: JSON.stringify(o.faults) } : {}),
      },
      readyUrl: this.keystoneUrl,
    }, this.dir);

    const common = {
      DATABASE_URL: this.pg.url('magnum'),
      REDIS_URL: this.redis.url,
      QUEUE_PREFIX: this.queuePrefix,
      KEYSTONE_URL: this.keystoneUrl,
      SERVICE_USERNAME: SERVICE_USER.username,
      SERVICE_PASSWORD: SERVICE_USER.password,
      SERVICE_PROJECT_NAME: SERVICE_USER.project,
      SECRET_KEYS: TEST_SECRET_KEY,
      CLOUD_RESOURCE_CHECKS: 'true',
      // The nodes' first boot fetches their secrets from the first API.
      NODE_MATERIAL_URL: `http://127.0.0.1:${apiPorts[0]}`,
      LOG_LEVEL: 'warn',
      ...o.env,
    };
    const migrate = new Proc(main, { name: 'migrate', mode: 'migrate', env: { DATABASE_URL: common.DATABASE_URL, DATABASE_ADMIN_URL: this.pg.url() } }, this.dir);
    await Promise.all([this.sim.start(), migrate.runToEnd()]);

    apiPorts.forEach((port, i) => {
      this.apis.push(new Proc(main, { name: `api-${i + 1}`, mode: 'api', env: { ...common, ...o.apiEnv, API_PORT: String(port) }, readyUrl: `http://127.0.0.1:${port}/readyz` }, this.dir));
    });
    for (let i = 0; i < (o.workers ?? 3); i++) {
      const port = await closedPort();
      this.workers.push(
        new Proc(main, {
          name: `worker-${i + 1}`,
          mode: 'worker',
          env: { ...common, ...o.workerEnv, WORKER_HEALTH_PORT: String(port) },
          readyUrl: `http://127.0.0.1:${port}/readyz`,
        }, this.dir),
      );
    }
    await Promise.all([...this.apis, ...this.workers].map((p) => p.start()));
  }

  apiUrl(i: number): string {
    return `http://127.0.0.1:${this.apis[i % this.apis.length]!.spec.env.API_PORT}`;
  }

  /** A project-scoped token of a built-in user, reused for ten minutes. */
  async token(user: UserName): Promise<string> {
    const cached = this.tokens.get(user);
    if (cached && Date.now() - cached.at < 600_000) return cached.token;
    const u = BUILTIN_USERS[user];
    const res = await fetch(`${this.keystoneUrl}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        auth: {
          identity: { methods: ['password'], password: { user: { name: user, domain: { name: 'Default' }, password: u.password } } },
          scope: { project: { name: u.project, domain: { name: 'Default' } } },
        },
      }),
    });
    if (res.status !== 201) throw new Error(`token for ${user}: ${res.status} ${await res.text()}`);
    const token = res.headers.get('x-subject-token')!;
    this.tokens.set(user, { token, at: Date.now() });
    return token;
  }

  /** A call to API process `i` as `user`; the body parsed (undefined when empty); never throws on an HTTP status. */
  async call(i: number, user: UserName, method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.apiUrl(i)}${path}`, {
      method,
      headers: {
        'x-auth-token': await this.token(user),
        'openstack-api-version': 'container-infra latest',
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /** A call to the simulator's admin API (audit, boots, calls, faults). */
  async admin(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${this.adminUrl}${path}`, {
      method,
      headers: { 'x-auth-token': await this.token('admin'), accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`cloudsim admin ${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** The id of a built-in user's project in the simulated Keystone. */
  async projectId(user: UserName): Promise<string> {
    const res = await fetch(`${this.keystoneUrl}/auth/tokens`, { headers: { 'x-auth-token': await this.token(user), 'x-subject-token': await this.token(user) } });
    return ((await res.json()) as { token: { project: { id: string } } }).token.project.id;
  }

  /** Stops everything (SIGTERM, then what is left by SIGKILL) and removes the folder unless kept. */
  async close(keep = this.opts.keep ?? false): Promise<void> {
    await Promise.all([...this.apis, ...this.workers].map((p) => p.stop(15_000).catch(() => undefined)));
    await this.sim?.stop(15_000).catch(() => undefined);
    await this.redis?.close().catch(() => undefined);
    await this.pg?.close().catch(() => undefined);
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}
