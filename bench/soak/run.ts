// The soak (issue 20, "Proof under load and faults"): API and worker processes of the compiled
// code on one private PostgreSQL and Redis, the simulator as its own process with a share of its
// calls failing (errors, dropped and lost answers), driving many clusters through create, resize,
// upgrade and delete while worker processes are killed every few seconds and PostgreSQL, Redis
// and an API process each go down once. Then the proof: every life converged, no node was booted
// twice, nothing is left in the cloud, no operation is left in the database or the queue, every
// kind of fault fired, no process crashed. `npm run bench -- soak` runs it at full size;
// test/scenarios/deploy/soak.test.ts a short one. The seed replays the run's choices (see README).
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { Fleet, memoryMb } from '../../test/support/fleet/index.js';
import { Chaos, type ChaosOptions, type ChaosReport } from './chaos.js';
import { SoakClient } from './client.js';
import { life, type LifeContext, type LifeResult } from './life.js';

export interface SoakOptions {
  seed: number;
  clusters: number;
  /** Lives under way at once. */
  inFlight: number;
  apis: number;
  workers: number;
  workerConcurrency: number;
  /** The simulator's time scale (0.01: a 90 s load balancer builds in 0.9 s). */
  timeScale: number;
  /** Share of cloud calls hit by a fault (split between errors, drops and lost answers). */
  faultRate: number;
  chaos: ChaosOptions;
  /** WORKER_LOCK_MS and WORKER_POLL_MS of the workers, OPERATION_SWEEP_MS of the APIs. */
  workerLockMs: number;
  workerPollMs: number;
  sweepMs: number;
  stepTimeoutMs: number;
  keep?: boolean;
  log?: (line: string) => void;
}

export const FULL: SoakOptions = {
  seed: 20,
  clusters: 100,
  inFlight: 20,
  apis: 2,
  workers: 3,
  workerConcurrency: 8,
  timeScale: 0.01,
  faultRate: 0.1,
  chaos: { killEveryMs: [3000, 8000], restartAfterMs: [300, 2000], postgresAt: 0.3, redisAt: 0.6, apiAt: 0.45, downMs: 2000 },
  workerLockMs: 5000,
  workerPollMs: 500,
  sweepMs: 2000,
  stepTimeoutMs: 600_000,
};

/** What `npm test` runs: the same, smaller. */
export const SHORT: SoakOptions = {
  ...FULL,
  clusters: 8,
  inFlight: 8,
  stepTimeoutMs: 300_000,
};

/**
 * The fault rules: every call may fail with a 503 or be dropped unanswered, and a write may be
 * applied with its answer lost; each rule draws apart, so about `rate` of the writes and a little
 * less of the reads are hit.
 */
export function faultRules(rate: number): Record<string, unknown[]> {
  const each = rate / 3;
  const rules = [
    { action: 'error', status: 503, rate: each },
    { action: 'drop', rate: each },
    ...['POST', 'PUT', 'DELETE'].map((method) => ({ method, action: 'lost', rate: each })),
    // Reads cannot be "applied": their third share is another error.
    { method: 'GET', action: 'error', status: 500, rate: each },
  ];
  return Object.fromEntries(['nova', 'neutron', 'octavia', 'cinder', 'glance'].map((s) => [s, rules]));
}

export interface SoakReport {
  seed: number;
  options: Omit<SoakOptions, 'log' | 'keep'>;
  durationS: number;
  lives: { total: number; converged: number; overtaken: number; failures: { name: string; uuid?: string; failure: string; cleanup?: string; events?: string[] }[] };
  operations: Record<string, number>;
  faults: { calls: number; hits: Record<string, number>; share: number };
  chaos: ChaosReport & { apiRestarts: number };
  client: { calls: number; noAnswer: number; serverErrors: Record<string, number>; serverErrorKinds: string[] };
  boots: { booted: number; names: number; duplicates: number; repeated: unknown[] };
  leftovers: { cloud: string[]; clusters: number; operations: number; queue: Record<string, number> & { jobsOfLiveOperations: number; jobsOfEndedOperations: number } };
  recoveries: { requeuedByRelay: number; runsStoppedLockLost: number };
  processes: { workerCpuS: number; workerCpuMsPerCluster: number; apiCpuS: number; simCpuS: number; peakRssMb: Record<string, number> };
  dir?: string;
}

async function pool<T>(n: number, inFlight: number, fn: (i: number) => Promise<T>, onDone: (r: T, done: number) => void): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  let done = 0;
  const runner = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
      onDone(out[i]!, ++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, inFlight) }, runner));
  return out;
}

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const log = o.log ?? (() => undefined);
  const began = Date.now();
  const fleet = await Fleet.start({
    apis: o.apis,
    workers: o.workers,
    timeScale: o.timeScale,
    seed: o.seed,
    faults: faultRules(o.faultRate),
    keep: true,
    env: { MAX_CLUSTERS_PER_PROJECT: String(o.clusters + 10) },
    apiEnv: { OPERATION_SWEEP_MS: String(o.sweepMs) },
    workerEnv: { WORKER_CONCURRENCY: String(o.workerConcurrency), WORKER_LOCK_MS: String(o.workerLockMs), WORKER_POLL_MS: String(o.workerPollMs) },
  });
  log(`fleet up in ${((Date.now() - began) / 1000).toFixed(1)} s (${fleet.dir})`);
  let ok = false;
  try {
    const client = new SoakClient(fleet, o.stepTimeoutMs);
    const projectId = await fleet.projectId('demo');
    const templates = { from: await template(fleet, 'soak-135', 'v1.35.1'), to: await template(fleet, 'soak-136', 'v1.36.0') };
    const baseline = new Set(await cloudResources(fleet, projectId));
    const start = Date.now();
    const chaos = new Chaos(fleet, o.chaos, o.seed, start);
    // The set points of the restarts are shares of the run's operations accepted (4 per life).
    let accepted = 0;
    const ctx: LifeContext = {
      fleet, client, templates, projectId, stepTimeoutMs: o.stepTimeoutMs, pollMs: 1000, tag: `soak${o.seed}`,
      onAccepted: () => chaos.progress(++accepted / (o.clusters * 4)),
    };
    chaos.start();
    const lives = await pool(o.clusters, o.inFlight, (i) => life(ctx, o.seed, i), (r, done) => {
      log(`${done}/${o.clusters} ${r.name} ${r.failure ? `FAILED: ${r.failure}` : 'converged'} (${((Date.now() - start) / 1000).toFixed(0)} s, kills ${chaos.report.workerKills})`);
    });
    const durationS = +((Date.now() - start) / 1000).toFixed(1);
    await chaos.stop();
    const report = await proof(fleet, o, lives, chaos.report, client, projectId, baseline, durationS);
    ok = report.lives.failures.length === 0 && report.boots.duplicates === 0 && report.leftovers.cloud.length === 0 && report.chaos.crashes.length === 0;
    return { ...report, ...(ok && !o.keep ? {} : { dir: fleet.dir }) };
  } finally {
    await fleet.close(!ok || o.keep === true);
  }
}

async function template(fleet: Fleet, name: string, kubeTag: string): Promise<string> {
  const r = await fleet.call(0, 'demo', 'POST', '/v1/clustertemplates', {
    name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: kubeTag },
  });
  // The API checks the image, flavors and network against the faulty cloud: a 503 is tried again.
  if (r.status === 503) return template(fleet, name, kubeTag);
  if (r.status !== 201) throw new Error(`template ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.uuid as string;
}

async function cloudResources(fleet: Fleet, projectId: string): Promise<string[]> {
  const audit = (await fleet.admin('GET', `/audit?project_id=${projectId}`)) as { projects: { resources: { service: string; type: string; id: string; name?: string }[] }[] };
  return audit.projects
    .flatMap((p) => p.resources)
    .filter((r) => r.service !== 'keystone' && !(r.type === 'security_group' && r.name === 'default'))
    .map((r) => `${r.service}:${r.type}:${r.id}${r.name ? ` (${r.name})` : ''}`);
}

/** Everything the run must leave true, measured. */
async function proof(
  fleet: Fleet,
  o: SoakOptions,
  lives: LifeResult[],
  chaos: ChaosReport,
  client: SoakClient,
  projectId: string,
  baseline: Set<string>,
  durationS: number,
): Promise<Omit<SoakReport, 'dir'>> {
  const operations: Record<string, number> = {};
  for (const l of lives) for (const s of l.steps) if (s.acceptedMs !== undefined) operations[s.kind] = (operations[s.kind] ?? 0) + 1;

  const faults = (await fleet.admin('GET', '/faults')) as { faults: Record<string, { action: string; hits: number }[]> };
  const hits: Record<string, number> = {};
  for (const rules of Object.values(faults.faults)) for (const r of rules) hits[r.action] = (hits[r.action] ?? 0) + r.hits;
  const calls = (await fleet.admin('GET', '/calls')) as { calls: Record<string, number> };
  const faulted = new Set(['nova', 'neutron', 'octavia', 'cinder', 'glance']);
  const totalCalls = Object.entries(calls.calls).filter(([k]) => faulted.has(k.split(' ')[0]!)).reduce((a, [, n]) => a + n, 0);

  const boots = (await fleet.admin('GET', `/boots?project_id=${projectId}`)) as { booted: number; names: number; repeated: { concurrent: boolean }[] };
  const cloud = (await cloudResources(fleet, projectId)).filter((r) => !baseline.has(r));

  const db = new pg.Client({ connectionString: fleet.pg.url('magnum') });
  await db.connect();
  const [clusters] = (await db.query('SELECT count(*)::int AS n FROM cluster')).rows as { n: number }[];
  const [ops] = (await db.query('SELECT count(*)::int AS n FROM operation')).rows as { n: number }[];
  await db.end();
  const connection = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(OPERATIONS_QUEUE, { connection, prefix: fleet.queuePrefix });
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
  // The periodic jobs (the health check, the hibernation schedules, the maintenance windows) are always there (delayed until their
  // next run). Other jobs left point at operations that have ended (a cancelled operation's retry still
  // delayed): their run only skips. A job of an operation still in the database would be work left undone.
  const periodic = new Set(['health', 'hibernation-schedule', 'maintenance-window']);
  const jobs = (await queue.getJobs(['delayed', 'waiting', 'active', 'prioritized'])).filter((j) => !periodic.has(j.name));
  await queue.close();
  connection.disconnect();
  const db2 = new pg.Client({ connectionString: fleet.pg.url('magnum') });
  await db2.connect();
  const live = (await db2.query('SELECT id FROM operation WHERE id = ANY($1)', [jobs.map((j) => (j.data as { operationId?: string }).operationId ?? '')])).rows.length;
  await db2.end();

  let requeuedByRelay = 0;
  for (const a of fleet.apis) requeuedByRelay += a.jsonLines().filter((l) => l.msg === 'operation queued again: its job had ended').length;
  let runsStoppedLockLost = 0;
  for (const w of fleet.workers) runsStoppedLockLost += w.jsonLines().filter((l) => l.msg === 'run stopped' && l.why === 'lock_lost').length;

  const workerCpu = fleet.workers.reduce((a, w) => a + w.cpuTotalMs(), 0);
  const peak = (procs: typeof fleet.workers) => Math.round(Math.max(...procs.map((p) => (p.pid ? memoryMb(p.pid).peak : 0))));
  const failures = lives.filter((l) => l.failure).map((l) => ({ name: l.name, ...(l.uuid ? { uuid: l.uuid } : {}), failure: l.failure!, ...(l.cleanup ? { cleanup: l.cleanup } : {}), ...(l.events ? { events: l.events } : {}) }));
  return {
    seed: o.seed,
    options: { ...o, log: undefined, keep: undefined } as Omit<SoakOptions, 'log' | 'keep'>,
    durationS,
    lives: { total: lives.length, converged: lives.length - failures.length, overtaken: lives.filter((l) => l.shape.overtake).length, failures },
    operations,
    faults: { calls: totalCalls, hits, share: totalCalls ? +(Object.values(hits).reduce((a, b) => a + b, 0) / totalCalls).toFixed(3) : 0 },
    chaos: { ...chaos, apiRestarts: chaos.apiKills },
    client: { calls: client.stats.calls, noAnswer: client.stats.noAnswer, serverErrors: client.stats.serverErrors, serverErrorKinds: [...client.stats.serverErrorKinds] },
    boots: { booted: boots.booted, names: boots.names, duplicates: boots.repeated.filter((r) => r.concurrent).length, repeated: boots.repeated },
    leftovers: { cloud, clusters: clusters!.n, operations: ops!.n, queue: { ...counts, jobsOfLiveOperations: live, jobsOfEndedOperations: jobs.length - live } },
    recoveries: { requeuedByRelay, runsStoppedLockLost },
    processes: {
      workerCpuS: +(workerCpu / 1000).toFixed(1),
      workerCpuMsPerCluster: Math.round(workerCpu / lives.length),
      apiCpuS: +(fleet.apis.reduce((a, p) => a + p.cpuTotalMs(), 0) / 1000).toFixed(1),
      simCpuS: +(fleet.sim.cpuTotalMs() / 1000).toFixed(1),
      peakRssMb: { api: peak(fleet.apis), worker: peak(fleet.workers), sim: peak([fleet.sim]) },
    },
  };
}
