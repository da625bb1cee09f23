// Proof (issue 15): PostgreSQL and Redis restarted in the middle of a create — real processes of the
// test's own (test/support/fleet/servers.ts, private-redis.ts; never the shared ones), stopped and
// started again while the worker runs the create and the API's relay sweeps. PostgreSQL is stopped as
// a crash would (immediate: every connection cut) while the servers boot; Redis is killed later, while
// the workers' servers boot, and comes back empty (no persistence: the job, the cluster lock and the
// heartbeats are gone), and the relay queues the create again from its row. Each is started again once
// the service has met the outage. The create completes with one server per planned node ever booted,
// nothing of the cluster's made twice; the delete leaves nothing in the project.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createDataSource, MIGRATION_TIMEOUTS } from '../../src/db/data-source.js';
import { migrate } from '../../src/db/migrate.js';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PrivatePostgres } from '../support/fleet/servers.js';
import { closedPort } from '../support/net.js';
import { privateRedis, type PrivateRedis } from '../support/private-redis.js';
import { api, createCluster, deleteCluster, harness, leftovers, servers, settled, startWorker, until, type Harness } from './lifecycle-support.js';

let dir: string | undefined;
let postgres: PrivatePostgres | undefined;
let redis: PrivateRedis;
let h: Harness;
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
let connection: Redis | undefined;
let queue: Queue | undefined;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'magnum-restarts-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user below it
  postgres = new PrivatePostgres(join(dir, 'pg'), await closedPort());
  [redis] = await Promise.all([privateRedis(), postgres.init()]);
  const admin = new pg.Client({ connectionString: postgres.url() });
  await admin.connect();
  await admin.query('CREATE DATABASE magnum').finally(() => admin.end());
  const ds = createDataSource(postgres.url('magnum'), 2, MIGRATION_TIMEOUTS);
  await ds.initialize();
  try {
    await migrate(ds, postgres.url('magnum'));
  } finally {
    await ds.destroy();
  }
  // Slower than the default so that both restarts fall inside the create.
  h = await harness({
    timeScale: 0.003,
    config: (c) => {
      c.databaseUrl = postgres!.url('magnum');
      c.redisUrl = redis.url;
      c.operationSweepMs = 300;
    },
  });
  worker = await startWorker(h.workerOptions({ redisUrl: redis.url }));
  connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  connection.on('error', () => undefined);
  queue = new Queue(OPERATIONS_QUEUE, { connection, prefix: h.t.config.queuePrefix });
  queue.on('error', () => undefined);
});
after(async () => {
  await worker?.close();
  await queue?.close();
  connection?.disconnect();
  await h?.close();
  await redis?.close();
  await postgres?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const status = async (uuid: string) => (await api(h, 'GET', `/v1/clusters/${uuid}`)).body.status as string;

test('a create through a PostgreSQL restart and a Redis restart completes, nothing made twice, nothing left after the delete', { timeout: 180_000 }, async () => {
  const credentials = () => h.t.keystone.state.appCreds.all().length;
  const credentialsBefore = credentials();
  h.t.cloud!.sims.resetCalls();
  const uuid = await createCluster(h, 'restarts', 1, 2);
  const planned = 3;
  const tag = `magnum-cluster=${uuid}`;
  const nova = h.t.cloud!.nova;
  const booted = () => [...nova.servers.values()].filter((s) => s.tags.includes(tag));
  const [create] = (await h.t.app.services.db.query(`SELECT id FROM operation WHERE cluster_id = $1`, [uuid])) as { id: string }[];
  // The create's job (its id is the operation's).
  const job = async () => (await queue!.getJob(create!.id)) ?? undefined;

  // PostgreSQL crashes while the first servers boot; it comes back once the API and the worker's run
  // have both met it (the API answers 503, the run is retrying or its job failed).
  await until('servers booting', async () => booted().length > 0);
  assert.equal(await status(uuid), 'CREATE_IN_PROGRESS', 'PostgreSQL goes down in the middle of the create');
  const retriesBefore = Number((await job())?.data.retries ?? 0);
  await postgres!.stop('immediate');
  await until('the API to meet the outage', async () => (await api(h, 'GET', `/v1/clusters/${uuid}`)).status !== 200, 30_000);
  await until('the worker to meet the outage', async () => {
    const j = await job();
    return j && (Number(j.data.retries ?? 0) > retriesBefore || (await j.getState()) === 'failed');
  }, 30_000);
  await postgres!.start();
  await until('the API to answer again', async () => (await api(h, 'GET', `/v1/clusters/${uuid}`)).status === 200, 30_000);

  // Redis is killed while the workers' servers boot, and comes back empty: the relay queues the
  // create again from its row.
  await until('the workers\' servers booting', async () => booted().length === planned, 60_000);
  assert.equal(await status(uuid), 'CREATE_IN_PROGRESS', 'Redis goes down in the middle of the create');
  await redis.stop();
  await until('the API to meet the outage', async () => h.t.app.services.redis.status !== 'ready', 30_000);
  await redis.start();
  await until('the create queued again', job, 30_000);

  await settled(h, uuid, 'CREATE_COMPLETE', 120_000);
  assert.equal(servers(h, uuid).size, planned, 'one live server per planned node');
  const boots = nova.boots.report(h.project);
  assert.deepEqual({ booted: boots.booted, repeated: boots.repeated }, { booted: planned, repeated: [] }, 'and none ever booted twice');
  const live = h.t.cloud!.sims.audit(h.project).projects.flatMap((p) => p.resources).filter((r) => (r.tags ?? []).includes(tag));
  // Made once each: a POST repeated after a restart would be a duplicate, or a leak if adopted later.
  const calls = h.t.cloud!.sims.calls();
  const made = Object.fromEntries(Object.entries(calls).filter(([k]) => k.includes(' POST ') && !k.endsWith('/security-group-rules')));
  assert.deepEqual(made, {
    'neutron POST /floatingips': planned + 1,
    'neutron POST /networks': 1,
    'neutron POST /ports': planned,
    'neutron POST /routers': 1,
    'neutron POST /security-groups': 2,
    'neutron POST /subnets': 1,
    'nova POST /os-server-groups': 2,
    'nova POST /servers': planned,
    'octavia POST /lbaas/healthmonitors': 1,
    'octavia POST /lbaas/loadbalancers': 1,
  }, 'every resource created once: a floating IP, a port and a server per node and the API\'s floating IP, the rest one each');
  assert.equal(credentials(), credentialsBefore + 1, 'one application credential');
  const count = (type: string) => live.filter((r) => r.type === type).length;
  assert.deepEqual(
    { network: count('network'), subnet: count('subnet'), router: count('router'), loadbalancer: count('loadbalancer'), port: count('port') },
    { network: 1, subnet: 1, router: 1, loadbalancer: 1, port: planned },
    'one network, subnet, router and API load balancer; one port per node',
  );
  const names = live.filter((r) => r.name).map((r) => `${r.service}:${r.type}:${r.name}`);
  assert.deepEqual(names.filter((n, i) => names.indexOf(n) !== i), [], 'nothing of the cluster made twice');
  const ops = await h.t.app.services.db.query(`SELECT kind, state FROM operation WHERE cluster_id = $1`, [uuid]);
  assert.deepEqual(ops, [{ kind: 'create', state: 'succeeded' }], 'one create, succeeded');

  await deleteCluster(h, uuid, 90_000);
  assert.deepEqual(leftovers(h).map((r) => `${r.service}:${r.type}:${r.id}`), []);
  assert.equal(credentials(), credentialsBefore, 'its application credential deleted');
});
