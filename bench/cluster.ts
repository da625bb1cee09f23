// `npm run bench -- cluster`: cluster creation through the whole system (API, queue, a worker in
// its own process, the simulated cloud and the simulated Kubernetes APIs).
//
// 1. One cluster of 3 control planes and 5 workers (API load balancer with a floating IP, Calico):
//    time to CREATE_COMPLETE divided by the critical-path lower bound, cloud API calls made, worker
//    CPU. The cloud's delays are fixed at the medians of the simulator's realistic distributions and
//    scaled by --scale (default 0.25); the worker's poll interval is scaled alike (its production
//    2 s × scale), so the ratio is the one a real-time run would show, less CPU-bound overhead.
// 2. --many clusters (default 200) of 1 control plane and 1 worker created at once: wall time to all
//    CREATE_COMPLETE against one such create alone at the same scale (measured first), how many
//    completed, worker CPU per cluster, the bench process's and PostgreSQL's CPU, how busy the two
//    cores were (all processes), peak memory; then all deleted and
//    the project's leftovers counted. A public subnet large enough for their routers and floating IPs.
//
// Options: --scale=0.25  --masters=3  --workers=5  --many=200  --many-scale=0.05  --concurrency=16  --no-single  --no-many  --timeline  --json=<file>
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { DEFAULT_DELAYS, type DelayDistribution } from '../cloudsim/common/clock.js';
import { loadSeed, type CloudSeed } from '../cloudsim/seed.js';
import { api, createCluster, harness, leftovers, until, type Harness } from '../test/workers/lifecycle-support.js';

function option(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const n = arg ? Number(arg.slice(name.length + 3)) : fallback;
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}
const SCALE = option('scale', 0.25);
const MANY = option('many', 200);
const MANY_SCALE = option('many-scale', 0.05);
const CONCURRENCY = option('concurrency', 16);
const MASTERS = option('masters', 3);
const WORKERS = Math.max(0, Number(process.argv.find((a) => a.startsWith('--workers='))?.slice(10) ?? 5));
const JSON_OUT = process.argv.find((a) => a.startsWith('--json='))?.slice(7);
const PRODUCTION_POLL_MS = 2000;

/** The medians of the realistic distributions, as fixed delays: the lower bound is then exact. */
const MEDIANS: Record<string, DelayDistribution> = Object.fromEntries(
  Object.entries(DEFAULT_DELAYS as Record<string, DelayDistribution>).map(([k, d]) => [k, 'ms' in d ? { kind: 'fixed', ms: d.ms } : d]),
);
const median = (name: keyof typeof DEFAULT_DELAYS): number => (MEDIANS[name] as { ms: number }).ms;

/**
 * The slowest chain of dependent cloud waits of a create (real-world ms), whatever the implementation:
 * the API answers through the load balancer once it is ACTIVE with a listener, a pool and the first
 * control plane as member (at best all made in one create: Octavia's fully populated load balancer),
 * and once that control plane has booted and run kubeadm init; then the other control planes join
 * one at a time (kubeadm's rule for etcd), each a kubeadm join, while the workers (booted already)
 * join in parallel: with several control planes the serial joins are the longer branch.
 */
function lowerBoundMs(masters: number, workers: number): { ms: number; chain: string } {
  const lb = median('octavia.loadbalancer.create');
  const cp = median('nova.server.boot') + median('kube.init');
  const join = median('kube.join');
  const joins = Math.max((masters - 1) * join, workers > 0 ? join : 0);
  const chain = `max(LB create with listener, pool and members ${lb / 1000} s; boot ${median('nova.server.boot') / 1000} s + kubeadm init ${median('kube.init') / 1000} s = ${cp / 1000} s) + max(${masters - 1} serial control-plane joins, the workers' parallel joins) × ${join / 1000} s`;
  return { ms: Math.max(lb, cp) + joins, chain };
}

/** utime + stime of a process, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
/** Busy and total jiffies of the whole machine (/proc/stat), to tell how much of both cores a run used. */
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** CPU (ms) of the PostgreSQL backends serving `db` now (their pids from pg_stat_activity). */
async function postgresCpuMs(h: Harness): Promise<Map<number, number>> {
  const rows: { pid: number }[] = await h.t.app.services.db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  const out = new Map<number, number>();
  for (const r of rows) {
    try {
      out.set(r.pid, cpuMs(r.pid));
    } catch {
      // Ended meanwhile.
    }
  }
  return out;
}

const peakRssMb = (pid: number): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** A worker in its own process (test/support/worker-child.ts), so that its CPU is its own. */
async function workerProcess(h: Harness, pollMs: number, concurrency: number): Promise<ChildProcess> {
  const config = { ...h.t.config, secretKeys: h.t.config.secretKeys.map((k) => k.toString('base64')) };
  const options = { ...h.workerOptions(), concurrency, lockDurationMs: 30_000, stalledIntervalMs: 30_000, db: undefined, config: undefined, runner: { pollMs } };
  const p = spawn(process.execPath, ['--import', 'tsx', 'test/support/worker-child.ts'], {
    env: { ...process.env, WORKER_CHILD_CONFIG: JSON.stringify({ config, options }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await until('the worker process', async () => out.includes('ready'), 60_000);
  return p;
}

async function template(h: Harness, name: string): Promise<string> {
  const r = await api(h, 'POST', '/v1/clustertemplates', {
    // A prebuilt image (image-builder's, property kube_version): nodes install nothing at boot.
    name, coe: 'kubernetes', image_id: 'ubuntu-2404-kube-v1.35.5', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: 'v1.35.5' },
  });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  return r.body.uuid as string;
}

async function completed(h: Harness, uuid: string, timeoutMs: number): Promise<string> {
  const c = await until(`cluster ${uuid}`, async () => {
    const r = await api(h, 'GET', `/v1/clusters/${uuid}`);
    return !String(r.body.status).endsWith('_IN_PROGRESS') ? r.body : undefined;
  }, timeoutMs);
  return c.status as string;
}

/** The project's clusters, in one call (polling hundreds one by one would load the API, not the system measured). */
async function listed(h: Harness): Promise<{ uuid: string; status: string }[]> {
  const r = await api(h, 'GET', '/v1/clusters?limit=10000');
  return r.body.clusters as { uuid: string; status: string }[];
}

/** The final status of each of `uuids`, once none is in progress, and when each was first seen settled (ms after `start`); a list call every second. */
async function allSettled(h: Harness, uuids: string[], start: number, timeoutMs: number): Promise<{ statuses: string[]; settledMs: number[] }> {
  const end = Date.now() + timeoutMs;
  const seen = new Map<string, number>();
  let told = 0;
  for (;;) {
    const by = new Map((await listed(h)).map((c) => [c.uuid, c.status]));
    for (const u of uuids) if (!seen.has(u) && by.has(u) && !by.get(u)!.endsWith('_IN_PROGRESS')) seen.set(u, Date.now() - start);
    if (Date.now() - told >= 15_000) {
      // Progress on stderr (a run at real delays lasts minutes): statuses by count.
      told = Date.now();
      const counts: Record<string, number> = {};
      for (const u of uuids) counts[by.get(u) ?? 'ABSENT'] = (counts[by.get(u) ?? 'ABSENT'] ?? 0) + 1;
      process.stderr.write(`${((Date.now() - start) / 1000).toFixed(0)} s: ${JSON.stringify(counts)}\n`);
    }
    if (seen.size === uuids.length) return { statuses: uuids.map((u) => by.get(u)!), settledMs: [...seen.values()].sort((a, b) => a - b) };
    if (Date.now() > end) throw new Error('timed out waiting for the clusters');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** The shipped seed with a public /20 (loopback, as every floating-IP range we configure): room for hundreds of routers and floating IPs. */
function bigPublicSeed(): CloudSeed {
  const seed = structuredClone(loadSeed());
  for (const n of seed.networks ?? []) {
    if (n.name !== 'public') continue;
    n.subnets = [{ ...n.subnets![0]!, cidr: '127.24.0.0/20', gateway_ip: '127.24.0.1', allocation_pools: [{ start: '127.24.0.2', end: '127.24.15.254' }] }];
  }
  return seed;
}

async function single(): Promise<Record<string, unknown>> {
  const h = await harness({ roomy: true, timeScale: SCALE, clock: { seed: 1, delays: MEDIANS } });
  const pollMs = Math.max(5, Math.round(PRODUCTION_POLL_MS * SCALE));
  const worker = await workerProcess(h, pollMs, 4);
  try {
    const t = await template(h, 'bench-ha');
    const sims = h.t.cloud!.sims;
    sims.resetCalls();
    const cpu0 = cpuMs(worker.pid!);
    const start = Date.now();
    // The cloud calls made so far, sampled every 50 ms: the calls of a window of the create.
    const samples: { at: number; calls: number }[] = [];
    const total = () => Object.values(sims.calls()).reduce((a, b) => a + b, 0);
    const sampler = setInterval(() => samples.push({ at: Date.now(), calls: total() }), 50);
    const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: t, name: 'ha', master_count: MASTERS, node_count: WORKERS });
    if (r.status !== 202) throw new Error(JSON.stringify(r.body));
    let status: string;
    try {
      status = await completed(h, r.body.uuid as string, 600_000);
    } finally {
      clearInterval(sampler);
    }
    const wallMs = Date.now() - start;
    const cpu = cpuMs(worker.pid!) - cpu0;
    const events = (await api(h, 'GET', `/v1/clusters/${r.body.uuid}/events?limit=1000`)).body.events as { at: string; reason: string; message: string }[] | undefined;
    const timeline = (events ?? []).map((e) => `${((Date.parse(e.at) - start) / SCALE / 1000).toFixed(1).padStart(6)} s  ${e.reason}: ${e.message}`);
    const calls = sims.calls();
    const byService: Record<string, number> = {};
    for (const [k, n] of Object.entries(calls)) byService[k.split(' ')[0]!] = (byService[k.split(' ')[0]!] ?? 0) + n;
    const byMethod: Record<string, number> = {};
    for (const [k, n] of Object.entries(calls)) byMethod[k.split(' ')[1]!] = (byMethod[k.split(' ')[1]!] ?? 0) + n;
    // Waiting: from the last server booted (everything made) until the create succeeded, the cluster only waits for
    // its servers, load balancer, API and nodes.
    const at = (reason: string, last = false) => {
      const found = (events ?? []).filter((e) => e.reason === reason);
      const e = last ? found.at(-1) : found[0];
      return e ? Date.parse(e.at) : undefined;
    };
    const from = at('Booting', true);
    const to = at('CreateSucceeded');
    const callsAt = (t: number) => (samples.findLast((x) => x.at <= t) ?? { calls: 0 }).calls;
    const waiting = from !== undefined && to !== undefined && to > from
      ? { minutes: +((to - from) / SCALE / 60_000).toFixed(2), calls: callsAt(to) - callsAt(from) }
      : undefined;
    const bound = lowerBoundMs(MASTERS, WORKERS);
    const realMs = wallMs / SCALE;
    return {
      status, scale: SCALE, pollMs, wallMs, realEquivalentS: +(realMs / 1000).toFixed(1), lowerBoundS: bound.ms / 1000, ratio: +(realMs / bound.ms).toFixed(3), chain: bound.chain,
      calls: Object.values(calls).reduce((a, b) => a + b, 0), byService, byMethod, workerCpuMs: cpu,
      waitingMinutes: waiting?.minutes, waitingCalls: waiting?.calls, callsPerWaitingMinute: waiting ? +(waiting.calls / waiting.minutes).toFixed(1) : undefined,
      topCalls: Object.entries(calls).sort((a, b) => b[1] - a[1]).slice(0, 12), allCalls: calls, timeline,
    };
  } finally {
    worker.kill('SIGKILL');
    await h.close();
  }
}

async function many(): Promise<Record<string, unknown>> {
  // Room for MANY clusters in the one project (Magnum's default max_clusters_per_project is 20): set before the app
  // is built, which reads it once.
  const h = await harness({ roomy: true, timeScale: MANY_SCALE, clock: { seed: 2, delays: MEDIANS }, cloudSeed: bigPublicSeed(), config: (c) => (c.maxClustersPerProject = MANY + 10) });
  const pollMs = Math.max(5, Math.round(PRODUCTION_POLL_MS * MANY_SCALE));
  const worker = await workerProcess(h, pollMs, CONCURRENCY);
  try {
    h.templates.v135 = await template(h, 'bench-many');
    // The single-cluster critical path, measured: one 1+1 create alone at the same scale.
    const aloneStart = Date.now();
    const alone = await createCluster(h, 'alone', 1, 1);
    const aloneStatus = await completed(h, alone, 600_000);
    const aloneS = (Date.now() - aloneStart) / 1000;
    process.stderr.write(`one 1+1 create alone: ${aloneStatus} in ${aloneS.toFixed(1)} s\n`);
    if ((await api(h, 'DELETE', `/v1/clusters/${alone}`)).status !== 204) throw new Error('delete of the lone cluster refused');
    await until('the lone cluster gone', async () => (await listed(h)).length === 0, 600_000);
    const cpu0 = cpuMs(worker.pid!);
    const own0 = process.cpuUsage();
    const machine0 = machineTicks();
    const pg0 = await postgresCpuMs(h);
    const start = Date.now();
    const uuids = await Promise.all(Array.from({ length: MANY }, (_, i) => createCluster(h, `m${i}`, 1, 1)));
    const accepted = Date.now() - start;
    process.stderr.write(`${MANY} creates accepted in ${(accepted / 1000).toFixed(1)} s\n`);
    const { statuses, settledMs } = await allSettled(h, uuids, start, 3_600_000);
    const wallMs = Date.now() - start;
    const cpu = cpuMs(worker.pid!) - cpu0;
    const own = process.cpuUsage(own0);
    const machine1 = machineTicks();
    const pg1 = await postgresCpuMs(h);
    // Backends present at both ends (the pools'): what PostgreSQL spent for this run.
    let pgCpu = 0;
    for (const [pid, ms] of pg1) pgCpu += ms - (pg0.get(pid) ?? ms);
    const ok = statuses.filter((s) => s === 'CREATE_COMPLETE').length;
    const workerRssMb = peakRssMb(worker.pid!);
    const delStart = Date.now();
    for (const u of uuids) {
      const r = await api(h, 'DELETE', `/v1/clusters/${u}`);
      if (r.status !== 204) throw new Error(JSON.stringify(r.body));
    }
    await until('every cluster gone', async () => (await listed(h)).length === 0, 3_600_000);
    const deleteMs = Date.now() - delStart;
    return {
      clusters: MANY, scale: MANY_SCALE, concurrency: CONCURRENCY, acceptedMs: accepted, createComplete: ok, failed: statuses.filter((s) => s !== 'CREATE_COMPLETE'),
      wallS: +(wallMs / 1000).toFixed(1), lowerBoundS: +((lowerBoundMs(1, 1).ms * MANY_SCALE) / 1000).toFixed(1),
      aloneS: +aloneS.toFixed(1), aloneStatus, lastOverAlone: +(wallMs / 1000 / aloneS).toFixed(2), p50OverAlone: +(percentile(settledMs, 50) / 1000 / aloneS).toFixed(2),
      machineBusyPct: +((100 * (machine1.busy - machine0.busy)) / Math.max(1, machine1.total - machine0.total)).toFixed(1),
      postgresCpuS: +(pgCpu / 1000).toFixed(1),
      workerCpuMsPerCluster: Math.round(cpu / MANY), workerCpuS: +(cpu / 1000).toFixed(1), workerPeakRssMb: Math.round(workerRssMb),
      settledP50S: +(percentile(settledMs, 50) / 1000).toFixed(1), settledP90S: +(percentile(settledMs, 90) / 1000).toFixed(1),
      benchProcessCpuS: +((own.user + own.system) / 1e6).toFixed(1),
      benchProcessPeakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), deleteS: +(deleteMs / 1000).toFixed(1), leftovers: leftovers(h).length,
    };
  } finally {
    worker.kill('SIGKILL');
    await h.close();
  }
}

// Interrupted: exit normally (a --cpu-prof profile is written on exit).
process.on('SIGINT', () => process.exit(130));
const one = process.argv.includes('--no-single') ? undefined : await single();
if (one) {
  console.log(`\n${MASTERS} control plane(s) + ${WORKERS} worker(s), one cluster`);
  console.table({ status: one.status, 'wall (s)': (one.wallMs as number) / 1000, 'at real time (s)': one.realEquivalentS, 'lower bound (s)': one.lowerBoundS, ratio: one.ratio, 'cloud calls': one.calls, 'calls per waiting minute': one.callsPerWaitingMinute, 'worker CPU (ms)': one.workerCpuMs });
  console.log(`waiting (from the last servers booted until the create succeeded): ${String(one.waitingCalls)} cloud calls in ${String(one.waitingMinutes)} min at real time`);
  console.log(`lower bound: ${one.chain}`);
  if (process.argv.includes('--timeline')) console.log((one.timeline as string[]).join('\n'));
  console.log('calls by service', one.byService, 'by method', one.byMethod, 'most made', one.topCalls);
}
const lots = process.argv.includes('--no-many') ? undefined : await many();
if (lots) {
  console.log(`\n${MANY} clusters (1 control plane + 1 worker each) at once`);
  console.table(lots);
}
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ single: one, many: lots }, null, 2));
process.exit(0);
