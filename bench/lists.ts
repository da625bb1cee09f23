// `npm run bench -- lists [--sizes=100,10000,100000] [--requests=200] [--json=<file>]`: how
// `GET /v1/clusters` and the processes' memory follow the data. A deployment of the compiled code
// (test/support/fleet: a private PostgreSQL and Redis, the simulator, one API process, one worker
// process); the clusters are rows written straight into PostgreSQL (as the API writes them: a row,
// its two node groups), up to each size in turn, one project owning them all (the worst case for a
// project's deep page). At each size, from one keep-alive client, `requests` calls of each:
// - first page: `GET /v1/clusters?limit=100` (the CLI's `--limit 100`);
// - deep page: the same after a marker 150 rows from the end (keyset pagination: the cost must not
//   follow the marker's depth);
// - default page: `GET /v1/clusters` (Magnum's max_limit, 1,000 rows; what the CLI asks by default);
// then the API's memory, and one health pass of the worker (the periodic job, over every settled
// cluster): its duration and the worker's memory. Latencies are client-side, in ms.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { OPERATIONS_QUEUE } from '../src/operations/queue.js';
import { Fleet, memoryMb } from '../test/support/fleet/index.js';

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SIZES = (arg('sizes') ?? '100,10000,100000').split(',').map(Number);
const REQUESTS = Number(arg('requests') ?? 200);
const JSON_OUT = arg('json');

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function timed(fleet: Fleet, token: string, path: string, n: number): Promise<{ p50: number; p90: number; p99: number; mean: number; rows: number }> {
  const url = `${fleet.apiUrl(0)}${path}`;
  const once = async () => {
    const t0 = performance.now();
    const r = await fetch(url, { headers: { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest', accept: 'application/json' } });
    const body = (await r.json()) as { clusters?: unknown[] };
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
    return { ms: performance.now() - t0, rows: body.clusters?.length ?? 0 };
  };
  for (let i = 0; i < Math.min(20, n); i++) await once();
  const ms: number[] = [];
  let rows = 0;
  for (let i = 0; i < n; i++) {
    const r = await once();
    ms.push(r.ms);
    rows = r.rows;
  }
  ms.sort((a, b) => a - b);
  const round = (x: number) => +x.toFixed(2);
  return { p50: round(percentile(ms, 50)), p90: round(percentile(ms, 90)), p99: round(percentile(ms, 99)), mean: round(ms.reduce((a, b) => a + b, 0) / ms.length), rows };
}

/** Clusters `from`..`to`-1 of the project, settled with an API address, each with a control-plane and a worker group. */
async function insertClusters(db: pg.Client, template: string, project: string, user: string, from: number, to: number): Promise<void> {
  // Fixtures, not traffic: no change notifications for every row (the API's listeners would chew on them for minutes).
  await db.query(`SET session_replication_role = replica`);
  for (let start = from; start < to; start += 10_000) {
    const end = Math.min(to, start + 10_000);
    await db.query(
      `INSERT INTO cluster (uuid, name, project_id, user_id, cluster_template_id, status, created_at, labels, master_flavor_id, flavor_id,
         api_address, coe_version, master_lb_enabled, floating_ip_enabled, conditions)
       SELECT gen_random_uuid(), 'bench-' || i, $1, $2, $3, 'CREATE_COMPLETE', now() - make_interval(secs => $5 - i), '{"kube_tag": "v1.35.1"}', 'm1.medium', 'm1.small',
         'https://10.' || (i / 65536 % 256) || '.' || (i / 256 % 256) || '.' || (i % 256) || ':6443', 'v1.35.1', true, true,
         '{"network": {"status": "True", "reason": "Ready", "message": "", "since": "2026-01-01T00:00:00Z"}}'
       FROM generate_series($4::int, $5::int - 1) AS i`,
      [project, user, template, start, end],
    );
    await db.query(
      `INSERT INTO nodegroup (uuid, name, cluster_id, project_id, flavor_id, image_id, node_addresses, node_count, role, is_default, status, version)
       SELECT gen_random_uuid(), g.name, c.uuid, c.project_id, g.flavor, 'ubuntu-24.04', g.addresses::jsonb, g.n, g.role, true, 'CREATE_COMPLETE', 'v1.35.1'
       FROM cluster c CROSS JOIN (VALUES ('default-master', 'm1.medium', '["10.0.0.10"]', 1, 'master'), ('default-worker', 'm1.small', '["10.0.0.11", "10.0.0.12"]', 2, 'worker')) AS g(name, flavor, addresses, n, role)
       WHERE c.name IN (SELECT 'bench-' || i FROM generate_series($1::int, $2::int - 1) AS i)`,
      [start, end],
    );
  }
  await db.query(`SET session_replication_role = origin`);
  await db.query('ANALYZE cluster');
  await db.query('ANALYZE nodegroup');
}

/** One health pass (the periodic job, added by hand) and how long the worker took over it. */
async function healthPass(fleet: Fleet): Promise<{ seconds: number; checked: unknown }> {
  const connection = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(OPERATIONS_QUEUE, { connection, prefix: fleet.queuePrefix });
  const eventsConnection = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
  const events = new QueueEvents(OPERATIONS_QUEUE, { connection: eventsConnection, prefix: fleet.queuePrefix });
  await events.waitUntilReady();
  try {
    const job = await queue.add('health', {}, { removeOnComplete: false });
    const result = (await job.waitUntilFinished(events, 3_600_000)) as { checked?: unknown };
    const done = await queue.getJob(job.id!);
    return { seconds: +(((done?.finishedOn ?? 0) - (done?.processedOn ?? 0)) / 1000).toFixed(1), checked: result?.checked };
  } finally {
    await events.close();
    await queue.close();
    eventsConnection.disconnect();
    connection.disconnect();
  }
}

console.log(`lists: sizes ${SIZES.join(', ')}, ${REQUESTS} requests per scenario; load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const fleet = await Fleet.start({ apis: 1, workers: 1, timeScale: 0.01 });
const results: Record<string, unknown>[] = [];
try {
  const token = await fleet.token('demo');
  const tpl = await fleet.call(0, 'demo', 'POST', '/v1/clustertemplates', { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', master_lb_enabled: true });
  if (tpl.status !== 201) throw new Error(JSON.stringify(tpl.body));
  const db = new pg.Client({ connectionString: fleet.pg.url('magnum') });
  await db.connect();
  const project = await fleet.projectId('demo');
  const user = (await db.query('SELECT user_id FROM cluster_template LIMIT 1')).rows[0].user_id as string;
  const apiIdle = memoryMb(fleet.apis[0]!.pid!);
  const workerIdle = memoryMb(fleet.workers[0]!.pid!);
  let have = 0;
  for (const size of SIZES) {
    const t0 = Date.now();
    await insertClusters(db, tpl.body.uuid as string, project, user, have, size);
    have = size;
    const insertS = (Date.now() - t0) / 1000;
    const marker = (await db.query('SELECT uuid FROM cluster WHERE project_id = $1 ORDER BY id OFFSET $2 LIMIT 1', [project, Math.max(0, size - 150)])).rows[0].uuid as string;
    const first = await timed(fleet, token, '/v1/clusters?limit=100', REQUESTS);
    const deep = await timed(fleet, token, `/v1/clusters?limit=100&marker=${marker}`, REQUESTS);
    const whole = await timed(fleet, token, '/v1/clusters', Math.max(20, Math.round(REQUESTS / 4)));
    const plan = (await db.query(`EXPLAIN SELECT * FROM cluster c WHERE c.project_id = $1 AND c.id > (SELECT id FROM cluster WHERE uuid = $2) ORDER BY c.id ASC LIMIT 100`, [project, marker])).rows.map((r) => r['QUERY PLAN'] as string);
    const api = memoryMb(fleet.apis[0]!.pid!);
    const health = await healthPass(fleet);
    const worker = memoryMb(fleet.workers[0]!.pid!);
    const row = {
      clusters: size, insertS: +insertS.toFixed(1), first, deep, whole,
      deepPlan: plan.filter((l) => /Scan|Index/.test(l)).map((l) => l.trim()).join(' | '),
      apiRssMb: Math.round(api.rss), apiPeakMb: Math.round(api.peak), health, workerRssMb: Math.round(worker.rss), workerPeakMb: Math.round(worker.peak),
    };
    results.push(row);
    console.log(JSON.stringify(row));
  }
  await db.end();
  const base = results[0]!;
  const last = results.at(-1)!;
  const ratio = (k: 'first' | 'deep' | 'whole') => +(((last[k] as { p50: number }).p50) / ((base[k] as { p50: number }).p50)).toFixed(2);
  console.table(results.map((r) => ({
    clusters: r.clusters,
    'first page p50/p99 ms': `${(r.first as { p50: number }).p50} / ${(r.first as { p99: number }).p99}`,
    'deep page p50/p99 ms': `${(r.deep as { p50: number }).p50} / ${(r.deep as { p99: number }).p99}`,
    'default page (rows) p50 ms': `${(r.whole as { p50: number }).p50} (${(r.whole as { rows: number }).rows})`,
    'API RSS MB': r.apiRssMb,
    'health pass s': (r.health as { seconds: number }).seconds,
    'worker RSS / peak MB': `${r.workerRssMb} / ${r.workerPeakMb}`,
  })));
  console.log(`ratio ${last.clusters}/${base.clusters} of the p50: first page ${ratio('first')}, deep page ${ratio('deep')}, default page ${ratio('whole')}`);
  console.log(`idle before any cluster: API ${Math.round(apiIdle.rss)} MB, worker ${Math.round(workerIdle.rss)} MB; load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ results, apiIdle, workerIdle }, null, 2));
} finally {
  await fleet.close();
}
process.exit(0);
