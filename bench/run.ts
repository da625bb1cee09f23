// `npm run bench`: throughput and latency of GET /v1/clustertemplates (100 templates) and
// GET /v1/clustertemplates/{uuid} through the real stack (Keystone token validation, cached;
// microversions; PostgreSQL), next to a bare Fastify serving the same JSON from memory.
//
// The server under test runs in its own process (bench/server.ts); autocannon and the Keystone
// emulator run here. Options (npm run bench -- --duration=10 ...):
//   --connections=16  --warmup=2 (s)  --duration=10 (s)
//   --profile         after each measured app scenario, one more run under the V8 CPU profiler
//                     (not counted in the table); writes bench/profiles/*.cpuprofile and prints
//                     where the time goes
//   --quiet-wait=30   before each measured run, wait up to this many seconds for other processes
//                     on the machine to use < 25 % of a core (0: don't wait)
//   --json=<file>     also write the results as JSON
import { randomBytes } from 'node:crypto';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { BUILTIN_USERS, SERVICE_USER } from '../cloudsim/embedded.js';
import type { KeystoneSim } from '../cloudsim/keystone/index.js';
import { passwordToken, startKeystone } from '../test/support/app.js';
import { freshDatabase, type TestDatabase } from '../test/support/db.js';
import { formatSummary, summarize, type CpuProfile } from './profile.js';
import type { FromServer, ToServer } from './server.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

// ─── options ────────────────────────────────────────────────────────────────────────────────

function option(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (!arg) return fallback;
  const n = Number(arg.slice(name.length + 3));
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}

const CONNECTIONS = option('connections', 16);
const WARMUP_S = option('warmup', 2);
const DURATION_S = option('duration', 10);
const PROFILE = process.argv.includes('--profile');
const QUIET_WAIT_S = process.argv.some((a) => a === '--quiet-wait=0') ? 0 : option('quiet-wait', 30);
const JSON_OUT = process.argv.find((a) => a.startsWith('--json='))?.slice(7);
const TEMPLATES = 100;

const TARGETS = { showRps: 5000, listRps: 1500, p99Ms: 20 };

/** What `openstack coe cluster template list/show` sends (python-magnumclient over keystoneauth1). */
const cliHeaders = (token: string): Record<string, string> => ({
  'user-agent': 'python-magnumclient keystoneauth1/5.6.0 python-requests/2.31.0 CPython/3.11.6',
  accept: 'application/json',
  'accept-encoding': 'gzip, deflate',
  'content-type': 'application/json',
  'openstack-api-version': 'container-infra latest',
  'x-auth-token': token,
});

// ─── the server process ─────────────────────────────────────────────────────────────────────

class ServerProcess {
  private waiters: { type: FromServer['type']; resolve: (m: FromServer) => void; reject: (e: Error) => void }[] = [];
  private exited = false;
  port = 0;

  get pid(): number | undefined {
    return this.child.pid;
  }

  private constructor(
    readonly mode: 'app' | 'bare',
    private readonly child: ChildProcess,
  ) {
    child.on('message', (m: FromServer) => {
      if (m.type === 'error') return this.failAll(new Error(`bench/server ${mode} failed: ${m.message}`));
      const i = this.waiters.findIndex((w) => w.type === m.type);
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m);
    });
    child.on('exit', (code, signal) => {
      this.exited = true;
      this.failAll(new Error(`bench/server ${mode} exited (code ${code}, signal ${signal})`));
    });
  }

  private failAll(e: Error): void {
    for (const w of this.waiters.splice(0)) w.reject(e);
  }

  static async start(mode: 'app' | 'bare', env: NodeJS.ProcessEnv, data?: ToServer): Promise<ServerProcess> {
    const child = fork(join(here, 'server.ts'), [mode], {
      cwd: root,
      env,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const s = new ServerProcess(mode, child);
    const ready = s.wait('ready');
    if (data) s.send(data);
    s.port = ((await withTimeout(ready, 60_000, `bench/server ${mode} to start`)) as { port: number }).port;
    return s;
  }

  private wait<T extends FromServer['type']>(type: T): Promise<Extract<FromServer, { type: T }>> {
    if (this.exited) return Promise.reject(new Error(`bench/server ${this.mode} is not running`));
    return new Promise((resolve, reject) => this.waiters.push({ type, resolve: resolve as (m: FromServer) => void, reject }));
  }

  private send(m: ToServer): void {
    this.child.send(m);
  }

  async ask<T extends FromServer['type']>(m: ToServer, reply: T): Promise<Extract<FromServer, { type: T }>> {
    const p = this.wait(reply);
    this.send(m);
    return withTimeout(p, 30_000, `bench/server ${this.mode} to answer ${m.type}`);
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.waiters = [];
    this.child.send({ type: 'shutdown' } satisfies ToServer);
    const t = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(t);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise<never>((_, reject) => {
      t = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]);
}

// ─── measuring ──────────────────────────────────────────────────────────────────────────────

interface Scenario {
  name: string;
  dbName: string;
  server: ServerProcess;
  paths: string[];
  headers: Record<string, string>;
}

interface Measurement {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  non2xx: number;
  errors: number;
  bytesPerResponse: number;
  /** CPU used during the measured run, in % of one core. */
  cpu: CpuUse;
}

/** Who used the CPU during a run (Linux /proc; all zero elsewhere): our server, this process
 * (autocannon + the idle Keystone emulator), PostgreSQL backends of the bench database, the rest. */
type CpuUse = Record<'server' | 'loadgen' | 'postgres' | 'other', number>;
const CLK_TCK = 100;

function cpuByProcess(serverPid: number | undefined, dbName: string): Map<number, { kind: keyof CpuUse; ms: number }> {
  const out = new Map<number, { kind: keyof CpuUse; ms: number }>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const d of pids) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const f = stat.slice(close + 2).split(' ');
      const ms = ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK; // utime + stime
      const pid = Number(d);
      let kind: keyof CpuUse = 'other';
      if (pid === serverPid) kind = 'server';
      else if (pid === process.pid) kind = 'loadgen';
      else if (comm === 'postgres' && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(` ${dbName} `)) kind = 'postgres';
      out.set(pid, { kind, ms });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

function cpuDelta(a: ReturnType<typeof cpuByProcess>, b: ReturnType<typeof cpuByProcess>, wallMs: number): CpuUse {
  const use: CpuUse = { server: 0, loadgen: 0, postgres: 0, other: 0 };
  for (const [pid, now] of b) use[now.kind] += now.ms - (a.get(pid)?.ms ?? 0);
  for (const k of Object.keys(use) as (keyof CpuUse)[]) use[k] = (100 * use[k]) / wallMs;
  return use;
}

function cannon(s: Scenario, seconds: number, onLatency?: (ms: number, bytes: number) => void): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url: `http://127.0.0.1:${s.server.port}`,
        connections: CONNECTIONS,
        pipelining: 1,
        duration: seconds,
        headers: s.headers,
        // autocannon cycles through these on every connection (pre-encoded: no per-request cost here).
        requests: s.paths.map((path) => ({ method: 'GET' as const, path })),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (onLatency) {
      inst.on('response', (_client, status, bytes, ms) => {
        if (status >= 200 && status < 300) onLatency(ms, bytes);
      });
    }
  });
}

const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (up to QUIET_WAIT_S) until the rest of the machine is nearly idle; returns seconds waited. */
async function waitQuiet(s: Scenario): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < QUIET_WAIT_S * 1000) {
    const a = cpuByProcess(s.server.pid, s.dbName);
    const w = performance.now();
    await sleep(1000);
    if (cpuDelta(a, cpuByProcess(s.server.pid, s.dbName), performance.now() - w).other < 25) break;
  }
  return (performance.now() - t0) / 1000;
}

async function measure(s: Scenario): Promise<Measurement> {
  if (QUIET_WAIT_S > 0) {
    const waited = await waitQuiet(s);
    if (waited > 2) console.log(`  (waited ${waited.toFixed(0)} s for other processes to quieten down)`);
  }
  process.stdout.write(`  ${s.name}: warmup ${WARMUP_S} s`);
  await cannon(s, WARMUP_S);
  process.stdout.write(`, measuring ${DURATION_S} s`);
  let lat = new Float64Array(1 << 16);
  let n = 0;
  let bytes = 0;
  const cpu0 = cpuByProcess(s.server.pid, s.dbName);
  const t0 = performance.now();
  const r = await cannon(s, DURATION_S, (ms, b) => {
    if (n === lat.length) {
      const bigger = new Float64Array(lat.length * 2);
      bigger.set(lat);
      lat = bigger;
    }
    lat[n++] = ms;
    bytes += b;
  });
  const wall = performance.now() - t0;
  const cpu = cpuDelta(cpu0, cpuByProcess(s.server.pid, s.dbName), wall);
  const sorted = lat.subarray(0, n).sort();
  const m: Measurement = {
    name: s.name,
    requests: n,
    rps: n / (wall / 1000),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: n > 0 ? sorted[n - 1]! : NaN,
    non2xx: r.non2xx,
    errors: r.errors,
    bytesPerResponse: n > 0 ? bytes / n : 0,
    cpu,
  };
  console.log(` → ${m.rps.toFixed(0)} req/s, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms${m.non2xx + m.errors > 0 ? `  (!) ${m.non2xx} non-2xx, ${m.errors} errors` : ''}`);
  return m;
}

async function profileRun(s: Scenario, file: string): Promise<string> {
  const seconds = Math.min(DURATION_S, 5);
  process.stdout.write(`  ${s.name}: profiling ${seconds} s`);
  await s.server.ask({ type: 'profile-start' }, 'profile-started');
  await cannon(s, seconds);
  await s.server.ask({ type: 'profile-stop', path: file }, 'profile-stopped');
  console.log(` → ${relative(process.cwd(), file)}`);
  const summary = formatSummary(s.name, summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile));
  return summary;
}

// ─── the API as a client sees it ────────────────────────────────────────────────────────────

async function api(port: number, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: cliHeaders(token),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const K8S_TAGS = ['v1.27.8', 'v1.28.4', 'v1.29.2', 'v1.30.1'];

function templateBody(i: number) {
  return {
    name: `k8s-${K8S_TAGS[i % K8S_TAGS.length]}-${String(i).padStart(3, '0')}`,
    coe: 'kubernetes',
    image_id: 'ubuntu-24.04',
    external_network_id: 'public',
    flavor_id: 'm1.medium',
    master_flavor_id: 'm1.large',
    dns_nameserver: '8.8.8.8',
    network_driver: i % 2 === 0 ? 'calico' : 'flannel',
    docker_volume_size: 50,
    master_lb_enabled: true,
    labels: {
      kube_tag: K8S_TAGS[i % K8S_TAGS.length]!,
      container_runtime: 'containerd',
      containerd_version: '1.6.28',
      cloud_provider_enabled: 'true',
      boot_volume_size: '40',
      auto_healing_enabled: 'true',
      monitoring_enabled: 'false',
    },
  };
}

async function seed(port: number, token: string): Promise<{ list: unknown; items: Record<string, unknown>; uuids: string[] }> {
  for (let i = 0; i < TEMPLATES; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, TEMPLATES - i) }, (_, j) => api(port, token, 'POST', '/v1/clustertemplates', templateBody(i + j))),
    );
    for (const r of batch) if (r.status !== 201) throw new Error(`seeding: POST /v1/clustertemplates answered ${r.status}: ${r.text}`);
  }
  const listRes = await api(port, token, 'GET', '/v1/clustertemplates');
  if (listRes.status !== 200) throw new Error(`GET /v1/clustertemplates answered ${listRes.status}: ${listRes.text}`);
  const list = JSON.parse(listRes.text) as { clustertemplates: { uuid: string }[] };
  if (list.clustertemplates.length !== TEMPLATES) {
    throw new Error(`GET /v1/clustertemplates returned ${list.clustertemplates.length} templates, expected ${TEMPLATES}`);
  }
  const uuids = list.clustertemplates.map((t) => t.uuid);
  const items: Record<string, unknown> = {};
  for (const u of uuids) {
    const r = await api(port, token, 'GET', `/v1/clustertemplates/${u}`);
    if (r.status !== 200) throw new Error(`GET /v1/clustertemplates/${u} answered ${r.status}: ${r.text}`);
    items[u] = JSON.parse(r.text);
  }
  return { list, items, uuids };
}

/** A few counters from the app's /metrics: proof that the token cache, not Keystone, answered. */
async function tokenCacheStats(port: number): Promise<{ hits: number; misses: number; keystoneCalls: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const sum = (re: RegExp) => [...text.matchAll(re)].reduce((a, m) => a + Number(m[1]), 0);
  return {
    hits: sum(/^keystone_token_cache_total\{result="hit"\} (\S+)$/gm),
    misses: sum(/^keystone_token_cache_total\{result="miss"\} (\S+)$/gm),
    keystoneCalls: sum(/^keystone_request_duration_seconds_count\{[^}]*operation="validate_token"[^}]*\} (\S+)$/gm),
  };
}

// ─── report ─────────────────────────────────────────────────────────────────────────────────

function table(rows: string[][], alignRight: boolean[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (alignRight[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const sep = `|${widths.map((w, i) => (alignRight[i] ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(rows[0]!), sep, ...rows.slice(1).map(line)].join('\n');
}

function report(results: Measurement[]): string {
  const by = (n: string) => results.find((r) => r.name === n);
  const ceilingOf: Record<string, string> = { 'app show': 'bare show', 'app list': 'bare list' };
  const head = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'of ceiling', 'bytes/resp', 'non-2xx/err', 'server CPU ms/req', 'CPU server', 'loadgen', 'postgres', 'other'];
  const rows = results.map((r) => {
    const ceil = by(ceilingOf[r.name] ?? '');
    return [
      r.name,
      r.rps.toFixed(0),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      r.p999.toFixed(2),
      r.max.toFixed(1),
      ceil ? `${((100 * r.rps) / ceil.rps).toFixed(0)} %` : '',
      r.bytesPerResponse.toFixed(0),
      `${r.non2xx}/${r.errors}`,
      r.rps > 0 ? ((10 * r.cpu.server) / r.rps).toFixed(3) : '-',
      `${r.cpu.server.toFixed(0)} %`,
      `${r.cpu.loadgen.toFixed(0)} %`,
      `${r.cpu.postgres.toFixed(0)} %`,
      `${r.cpu.other.toFixed(0)} %`,
    ];
  });
  const out = [table([head, ...rows], head.map((_, i) => i > 0))];

  const show = by('app show');
  const list = by('app list');
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'PASS' : 'MISS');
  const clean = (m?: Measurement) => m !== undefined && m.non2xx + m.errors === 0;
  const t = [
    ['target', 'measured', 'result'],
    [`show ≥ ${TARGETS.showRps} req/s`, show ? `${show.rps.toFixed(0)} req/s` : '-', verdict(show && clean(show) && show.rps >= TARGETS.showRps)],
    [`list ≥ ${TARGETS.listRps} req/s`, list ? `${list.rps.toFixed(0)} req/s` : '-', verdict(list && clean(list) && list.rps >= TARGETS.listRps)],
    [`show p99 < ${TARGETS.p99Ms} ms @ ${CONNECTIONS} conn`, show ? `${show.p99.toFixed(2)} ms` : '-', verdict(show && clean(show) && show.p99 < TARGETS.p99Ms)],
    [`list p99 < ${TARGETS.p99Ms} ms @ ${CONNECTIONS} conn`, list ? `${list.p99.toFixed(2)} ms` : '-', verdict(list && clean(list) && list.p99 < TARGETS.p99Ms)],
  ];
  out.push('', table(t, [false, true, false]));
  if (CONNECTIONS !== 16) out.push(`(the targets are defined at 16 connections; this run used ${CONNECTIONS})`);
  return out.join('\n');
}

// ─── main ───────────────────────────────────────────────────────────────────────────────────

async function main(): Promise<void> {
  const cpuList = cpus();
  console.log(
    `magnum-ts benchmark — node ${process.version}, ${cpuList.length} × ${cpuList[0]?.model.trim() ?? 'cpu'}; ` +
      `${CONNECTIONS} connections, ${WARMUP_S} s warmup + ${DURATION_S} s measured per scenario`,
  );

  let keystone: KeystoneSim | undefined;
  let db: TestDatabase | undefined;
  const servers: ServerProcess[] = [];
  const results: Measurement[] = [];
  const profiles: string[] = [];
  try {
    keystone = await startKeystone();
    db = await freshDatabase();
    const keystonePort = (keystone.app.server.address() as AddressInfo).port;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL,
      KEYSTONE_URL: `http://127.0.0.1:${keystonePort}/v3`,
      SERVICE_USERNAME: SERVICE_USER.username,
      SERVICE_PASSWORD: SERVICE_USER.password,
      SERVICE_PROJECT_NAME: SERVICE_USER.project,
      SECRET_KEYS: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
      API_HOST: '127.0.0.1',
      API_PORT: '0',
    };
    // Production defaults for everything else (token cache TTL 300 s, no JWS pre-filter, no cloud checks).
    for (const k of ['TOKEN_CACHE_TTL', 'TOKEN_CACHE_SIZE', 'KEYSTONE_JWS_PUBLIC_KEYS', 'CLOUD_RESOURCE_CHECKS', 'MAX_LIMIT', 'KEYSTONE_TIMEOUT_MS']) delete env[k];

    const app = await ServerProcess.start('app', env);
    servers.push(app);
    const token = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, BUILTIN_USERS.demo.project);
    console.log(`app server: pid ${app.pid}, 127.0.0.1:${app.port}; seeding ${TEMPLATES} templates as demo through POST /v1/clustertemplates`);
    const data = await seed(app.port, token);
    const headers = cliHeaders(token);
    const showPaths = data.uuids.map((u) => `/v1/clustertemplates/${u}`);
    const listPaths = ['/v1/clustertemplates'];
    const cache0 = await tokenCacheStats(app.port);
    const dbName = new URL(db.url).pathname.slice(1);

    if (PROFILE) mkdirSync(join(here, 'profiles'), { recursive: true });
    for (const [name, paths] of [['app show', showPaths], ['app list', listPaths]] as const) {
      const s: Scenario = { name, dbName, server: app, paths: [...paths], headers };
      results.push(await measure(s));
      if (PROFILE) profiles.push(await profileRun(s, join(here, 'profiles', `${name.replace(' ', '-')}.cpuprofile`)));
    }
    const cache1 = await tokenCacheStats(app.port);
    await app.stop();

    const bare = await ServerProcess.start('bare', env, { type: 'data', list: data.list, items: data.items });
    servers.push(bare);
    for (const [name, paths] of [['bare show', showPaths], ['bare list', listPaths]] as const) {
      results.push(await measure({ name, dbName, server: bare, paths: [...paths], headers }));
    }
    await bare.stop();

    console.log('');
    console.log(report(results));
    console.log('');
    console.log(
      `token validation during the scenarios: ${cache1.hits - cache0.hits} cache hits, ${cache1.misses - cache0.misses} misses, ` +
        `${cache1.keystoneCalls - cache0.keystoneCalls} calls to Keystone (cache TTL 300 s: the steady state is all hits)`,
    );
    const busy = results.filter((r) => r.cpu.other > 20);
    if (busy.length > 0) {
      console.log(
        `(!) other processes on this machine used ${busy.map((r) => `${r.cpu.other.toFixed(0)} %`).join(', ')} of a core during ` +
          `${busy.map((r) => r.name).join(', ')}: those figures are pessimistic; rerun on a quiet machine.`,
      );
    }
    console.log(
      'app = the real API (auth hook + token cache, microversions, template read cache over TypeORM/PostgreSQL (TEMPLATE_CACHE=false to bypass), response schema); ' +
        'bare = Fastify returning the same JSON objects from memory (ceiling). CPU columns are % of one core ' +
        '(2 cores = 200 %); Node serves on one thread, so "CPU server" near 100 % means the server is the bottleneck, ' +
        'and 1000 / "server CPU ms/req" is the most one server process can do on an otherwise idle core.',
    );
    for (const p of profiles) console.log(`\n${p}`);
    if (JSON_OUT) {
      writeFileSync(JSON_OUT, JSON.stringify({ when: new Date().toISOString(), connections: CONNECTIONS, durationS: DURATION_S, targets: TARGETS, results }, null, 2));
      console.log(`\nresults written to ${JSON_OUT}`);
    }
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
    await keystone?.app.close().catch(() => undefined);
    await db?.drop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`\nbenchmark crashed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
