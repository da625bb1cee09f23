// The outbox relay (src/operations/outbox.ts). It never holds PostgreSQL while it waits on Redis (issue 15
// hole 7): it claims rows (a token and a lease, committed), publishes with no transaction open, then marks
// them queued. With
// its Redis frozen mid-publish (SIGSTOP: connected, silent) no lock on the operation table is held
// and no session is idle in a transaction; a claim whose relay died or hangs lapses with its lease and
// another relay publishes the row; a failed publish lets the claims go; and relays that publish the
// same rows at once make one job per operation (job id = operation id). Real PostgreSQL, a private Redis.
// Its LISTEN connection comes back by itself after PostgreSQL drops it (a restart, a failover), and an
// operation written by another process is relayed on its NOTIFY, not only at the next sweep (set to an
// hour there, so only the NOTIFY path can relay in time; before, the listener stayed dead).
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleepFor } from 'node:timers/promises';
import pg from 'pg';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source.js';
import { newOperation, OperationRepo } from '../../src/db/repos/operations.js';
import { OperationRelay } from '../../src/operations/outbox.js';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { testApp, type TestApp } from '../support/app.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { privateRedis, type PrivateRedis } from '../support/private-redis.js';

let db: TestDatabase;
let ds: DataSource;
let redis: PrivateRedis;
const closers: (() => Promise<unknown> | void)[] = [];

before(async () => {
  db = await freshDatabase();
  ds = createDataSource(db.url, 5);
  await ds.initialize();
  redis = await privateRedis();
});
after(async () => {
  redis?.thaw();
  for (const c of closers.reverse()) await c();
  await ds?.destroy();
  await db?.drop();
  await redis?.close();
});

/** A queue on `url` (its own prefix) and a relay publishing to it. */
function relayOn(url: string, prefix: string, leaseMs: number): { relay: OperationRelay; queue: Queue } {
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  connection.on('error', () => undefined);
  const queue = new Queue(OPERATIONS_QUEUE, { connection, prefix });
  const relay = new OperationRelay(ds, queue, { databaseUrl: db.url, leaseMs, onError: () => undefined });
  closers.push(async () => {
    await relay.close();
    await queue.close().catch(() => undefined);
    connection.disconnect();
  });
  return { relay, queue };
}

/** `n` pending operations, each on a cluster of its own (one active operation per cluster). */
async function pending(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { cluster } = await insertCluster({ services: { db: ds } } as never, { user: 'u', project: 'p', pki: false, status: 'CREATE_IN_PROGRESS' });
    const uuid = cluster.uuid;
    const op = newOperation(uuid, 'create');
    await ds.transaction((em) => new OperationRepo(ds).insert(em, op));
    ids.push(op.id);
  }
  return ids;
}

const rows = async (ids: string[]) =>
  (await ds.query(`SELECT id, state, claim_token, claimed_until > now() AS leased, enqueued_at FROM operation WHERE id = ANY($1) ORDER BY created_at`, [ids])) as {
    id: string; state: string; claim_token: string | null; leased: boolean | null; enqueued_at: Date | null;
  }[];

/** Locks anyone holds on the operation table, and sessions idle in a transaction, in this database. */
async function held(): Promise<{ locks: unknown[]; idleInTransaction: unknown[] }> {
  const locks = await ds.query(`SELECT l.pid, l.mode, a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.relation = 'operation'::regclass AND l.pid <> pg_backend_pid()`);
  const idleInTransaction = await ds.query(`SELECT pid, state, query FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`);
  return { locks, idleInTransaction };
}

const prefix = () => `test-${randomBytes(4).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the outbox relay and Redis', () => {
  test('with its Redis frozen mid-publish it holds no lock and no transaction; its claim lapses and another relay publishes the rows', async () => {
    const ids = await pending(3);
    const frozen = relayOn(redis.url, prefix(), 600);
    await frozen.queue.waitUntilReady();
    redis.freeze();
    try {
      const stuck = frozen.relay.kick();
      await sleep(300);
      const claimed = await rows(ids);
      assert.ok(claimed.every((r) => r.state === 'pending' && r.claim_token && r.leased), 'claimed, committed, not queued');
      assert.deepEqual(await held(), { locks: [], idleInTransaction: [] }, 'nothing held in PostgreSQL while the relay waits on Redis');

      // Another relay (another process, its Redis reachable) skips the claimed rows until the lease lapses.
      const other = relayOn(process.env.REDIS_URL!, prefix(), 600);
      assert.equal(await other.relay.kick(), 0, 'claimed rows are not taken while the claim holds');
      await sleep(500);
      assert.equal(await other.relay.kick(), 3, 'the lapsed claims are taken');
      const queued = await rows(ids);
      assert.ok(queued.every((r) => r.state === 'queued' && r.claim_token === null && r.enqueued_at), 'queued by the other relay');
      assert.deepEqual((await other.queue.getJobs(['waiting'])).map((j) => j.id).sort(), [...ids].sort());

      // The frozen relay's publish ends when Redis comes back; it marks nothing (the rows are no longer its claims).
      redis.thaw();
      assert.equal(await stuck, 3, 'its publish went through');
      assert.deepEqual((await rows(ids)).map((r) => [r.state, r.claim_token]), ids.map(() => ['queued', null]));
    } finally {
      redis.thaw();
    }
  });

  test('a relay that died after claiming: the rows are published once its lease lapses', async () => {
    const ids = await pending(2);
    await new OperationRepo(ds).claimPending(200, 400, randomUUID());
    const { relay, queue } = relayOn(redis.url, prefix(), 400);
    assert.equal(await relay.kick(), 0);
    assert.deepEqual((await rows(ids)).map((r) => r.state), ['pending', 'pending']);
    await sleep(450);
    assert.equal(await relay.kick(), 2);
    assert.deepEqual((await rows(ids)).map((r) => r.state), ['queued', 'queued']);
    assert.equal((await queue.getJobs(['waiting'])).length, 2);
  });

  test('a publish that fails (Redis gone) lets the claims go: the next pass after Redis is back publishes them', async () => {
    const ids = await pending(2);
    const { relay, queue } = relayOn(redis.url, prefix(), 60_000);
    await queue.waitUntilReady();
    await redis.stop();
    try {
      const failing = relay.kick();
      await sleep(300);
      assert.deepEqual(await held(), { locks: [], idleInTransaction: [] });
      await redis.start();
      // The pass in flight publishes once the connection is back (ioredis queues the command), or fails and lets go.
      await failing;
      await relay.kick();
      assert.deepEqual((await rows(ids)).map((r) => [r.state, r.claim_token]), [['queued', null], ['queued', null]]);
      assert.equal((await queue.getJobs(['waiting'])).filter((j) => ids.includes(j.id!)).length, 2);
    } finally {
      if (!(await redis.up())) await redis.start();
    }
  });

  test('two relays publishing the same rows at once (lapsed claims) make one job per operation', async () => {
    const ids = await pending(20);
    const p = prefix();
    // A lease of a millisecond: each relay's claim lapses at once, so both publish every row.
    const a = relayOn(redis.url, p, 1);
    const b = relayOn(redis.url, p, 1);
    await Promise.all([a.relay.kick(), b.relay.kick(), a.relay.kick(), b.relay.kick()]);
    for (let i = 0; i < 5 && (await rows(ids)).some((r) => r.state !== 'queued'); i++) await Promise.all([a.relay.kick(), b.relay.kick()]);
    assert.ok((await rows(ids)).every((r) => r.state === 'queued'));
    const jobs = await a.queue.getJobs(['waiting', 'delayed', 'active', 'completed']);
    assert.equal(jobs.length, ids.length, 'one job per operation');
    assert.deepEqual(jobs.map((j) => j.id).sort(), [...ids].sort());
    // Published again later (a relay that hung for its whole lease): still one.
    await a.queue.addBulk(ids.map((id) => ({ name: 'create', data: { operationId: id, clusterId: 'x' }, opts: { jobId: id } })));
    assert.equal((await a.queue.getJobs(['waiting', 'delayed', 'active', 'completed'])).length, ids.length);
  });
});

describe('its LISTEN connection', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ config: (c) => { c.operationSweepMs = 3_600_000; } });
  });
  after(async () => {
    await t?.close();
  });

  /** Waits for the job of `id` to be on the queue; false after `ms`. */
  async function queued(id: string, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if ((await t.services.queue.getJobState(id)) !== 'unknown') return true;
      await sleepFor(50);
    }
    return false;
  }

  test('after its LISTEN connection is terminated, the relay listens again and relays what another process wrote', async () => {
    const tpl = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true } });
    assert.equal(tpl.statusCode, 201, tpl.body);
    const c = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: tpl.json().uuid, name: 'c' } });
    assert.equal(c.statusCode, 202, c.body);
    const cluster = c.json().uuid as string;

    const other = new pg.Client({ connectionString: t.config.databaseUrl });
    await other.connect();
    try {
      // As a restart does to every connection: the listeners' backends end.
      const killed = await other.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`);
      assert.ok((killed.rowCount ?? 0) >= 1, 'the listeners were found');
      await sleepFor(1500);
      // Another process writes an operation (a delete may join the create); its NOTIFY must wake this relay.
      const id = randomUUID();
      await other.query(`INSERT INTO operation (id, cluster_id, kind, params, state, attempts, created_at) VALUES ($1, $2, 'delete', '{}', 'pending', 0, now())`, [id, cluster]);
      assert.equal(await queued(id, 10_000), true, 'relayed on its NOTIFY, well before the hour-long sweep');
    } finally {
      await other.end();
    }
  });
});
