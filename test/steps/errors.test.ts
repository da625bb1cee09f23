// PostgreSQL and Redis failing for a moment during a worker step (issue 15 hole 7): the errors the real
// pg driver, TypeORM and ioredis raise for a lost connection, a shutdown, a serialization failure or
// deadlock and a timeout are classified retryable in one place (src/steps/errors.ts); constraint
// violations, syntax errors, step failures and plain bugs are not. The pool's statement and
// idle-in-transaction timeouts are set, and raise such errors. (What the runner does with them:
// test/workers/runner.test.ts.) And the cloud's and the cluster API's errors as retryable or as a reason code.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, DB_TIMEOUTS } from '../../src/db/data-source.js';
import { KubeError } from '../../src/kube/api-client.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { failureOf, isRetryable, Stop, StepFailure, transientInfraError, Wait } from '../../src/steps/errors.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { closedPort } from '../support/net.js';

/** The error `p` rejects with. */
async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail('expected a failure');
}

function assertTransient(e: unknown, what: string): void {
  assert.ok(transientInfraError(e), `${what} is transient: ${String(e)} (code ${(e as { code?: string }).code})`);
  assert.equal(isRetryable(e), true, what);
  assert.equal(failureOf(e).reason, 'ServiceUnavailable', what);
}

describe('real PostgreSQL and Redis errors', () => {
  let db: TestDatabase;
  let ds: DataSource;

  before(async () => {
    db = await freshDatabase();
    ds = createDataSource(db.url, 4);
    await ds.initialize();
    await ds.query('CREATE TABLE flaky (id int PRIMARY KEY, n int NOT NULL)');
    await ds.query('INSERT INTO flaky VALUES (1, 0), (2, 0)');
  });
  after(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const client = async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    return c;
  };

  test('the pool carries the statement and idle-in-transaction timeouts', async () => {
    const [{ statement_timeout }] = await ds.query('SHOW statement_timeout');
    const [{ idle_in_transaction_session_timeout }] = await ds.query('SHOW idle_in_transaction_session_timeout');
    assert.equal(statement_timeout, `${DB_TIMEOUTS.statementTimeoutMs / 1000}s`);
    assert.equal(idle_in_transaction_session_timeout, `${DB_TIMEOUTS.idleInTransactionTimeoutMs / 60_000}min`);
  });

  test('refused connection, and a server that accepts but never answers (connect timeout)', async () => {
    const refused = await caught(new pg.Client({ connectionString: `postgres://x@127.0.0.1:${await closedPort()}/x` }).connect());
    assertTransient(refused, 'ECONNREFUSED');

    const sockets = new Set<Socket>();
    const silent = createServer((s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const hung = createDataSource(`postgres://x:y@127.0.0.1:${port}/x`, 1, { ...DB_TIMEOUTS, connectTimeoutMs: 300 });
    try {
      assertTransient(await caught(hung.initialize()), 'connect timeout');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  test('a backend terminated mid-statement (what a PostgreSQL restart does): 57P01', async () => {
    const victim = await client();
    victim.on('error', () => undefined);
    const pid = (await victim.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const running = caught(victim.query('SELECT pg_sleep(10)'));
    const killer = await client();
    try {
      for (let i = 0; i < 50; i++) {
        const r = await killer.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'`, [pid]);
        if (r.rowCount) break;
        await sleep(20);
      }
      await killer.query('SELECT pg_terminate_backend($1)', [pid]);
      const e = await running;
      assert.equal((e as { code?: string }).code, '57P01');
      assertTransient(e, '57P01');
      assertTransient(await caught(victim.query('SELECT 1')), 'the dead connection used again');
    } finally {
      await killer.end();
      await victim.end().catch(() => undefined);
    }
  });

  test('serialization failure (40001) and deadlock (40P01)', async () => {
    const [a, b] = [await client(), await client()];
    try {
      await a.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      await b.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      await a.query('SELECT sum(n) FROM flaky');
      await b.query('SELECT sum(n) FROM flaky');
      await a.query('UPDATE flaky SET n = n + 1 WHERE id = 1');
      await b.query('UPDATE flaky SET n = n + 1 WHERE id = 2');
      await a.query('COMMIT');
      const e = await caught(b.query('COMMIT'));
      assert.equal((e as { code?: string }).code, '40001');
      assertTransient(e, '40001');

      await a.query('BEGIN');
      await b.query('BEGIN');
      await a.query('UPDATE flaky SET n = n + 1 WHERE id = 1');
      await b.query('UPDATE flaky SET n = n + 1 WHERE id = 2');
      const first = a.query('UPDATE flaky SET n = n + 1 WHERE id = 2').then(() => undefined, (err: unknown) => err);
      const second = b.query('UPDATE flaky SET n = n + 1 WHERE id = 1').then(() => undefined, (err: unknown) => err);
      const deadlock = (await first) ?? (await second);
      assert.equal((deadlock as { code?: string }).code, '40P01');
      assertTransient(deadlock, '40P01');
    } finally {
      await a.query('ROLLBACK').catch(() => undefined);
      await b.query('ROLLBACK').catch(() => undefined);
      await a.end();
      await b.end();
    }
  });

  test('statement timeout (57014) and idle-in-transaction timeout (25P03) through TypeORM', async () => {
    const tight = createDataSource(db.url, 2, { connectTimeoutMs: 5000, statementTimeoutMs: 200, idleInTransactionTimeoutMs: 300 });
    await tight.initialize();
    try {
      const slow = await caught(tight.query('SELECT pg_sleep(2)'));
      assert.equal((slow as { driverError?: { code?: string } }).driverError?.code, '57014');
      assertTransient(slow, 'statement timeout');
      const idle = await caught(
        tight.transaction(async (em) => {
          await em.query('SELECT 1');
          await sleep(800);
          await em.query('SELECT 1');
        }),
      );
      assertTransient(idle, 'idle in transaction');
    } finally {
      await tight.destroy();
    }
  });

  test('refused Redis: ioredis with and without its retries', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const once = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: (n) => (n > 1 ? null : 10), lazyConnect: true });
    once.on('error', () => undefined);
    try {
      assertTransient(await caught(once.get('k')), 'ioredis after its retries');
      assertTransient(await caught(once.get('k')), 'ioredis given up');
    } finally {
      once.disconnect();
    }
  });

  test('not transient: constraint violations, syntax errors, step failures, plain bugs', async () => {
    const dup = await caught(ds.query('INSERT INTO flaky VALUES (1, 0)'));
    assert.equal(isRetryable(dup), false);
    assert.equal(failureOf(dup).reason, 'InternalError');
    assert.equal(isRetryable(await caught(ds.query('SELEC 1'))), false);
    assert.equal(isRetryable(new StepFailure('Quota', 'no')), false);
    assert.equal(isRetryable(new TypeError("Cannot read properties of undefined (reading 'id')")), false);
  });
});

describe('the cloud\'s and the cluster API\'s errors, and the step\'s own', () => {
  const os = (status: number, body: unknown, kind: ConstructorParameters<typeof OpenStackError>[4], service = 'compute') =>
    new OpenStackError(service, status, 'req-1', body, kind, `${service}: HTTP ${status}`);

  test('Wait, StepFailure and Stop are never retried; Wait says how long and why', () => {
    const w = new Wait(250, 'the load balancer builds');
    assert.deepEqual([w.ms, w.why, w.message, w.name], [250, 'the load balancer builds', 'waiting 250 ms: the load balancer builds', 'Wait']);
    for (const e of [w, new StepFailure('X', 'y'), new Stop('cancelled')]) assert.equal(isRetryable(e), false, e.name);
    assert.equal(new Stop('lock_lost').message, 'stopped: lock_lost');
  });

  test('retryable: the cloud\'s 5xx and silences, 429, Octavia busy, Neutron in use at a delete; not its refusals nor a quota', () => {
    assert.equal(isRetryable(os(503, 'down', 'server')), true);
    assert.equal(isRetryable(os(0, undefined, 'timeout')), true);
    assert.equal(isRetryable(os(0, undefined, 'unreachable')), true);
    assert.equal(isRetryable(os(429, 'slow down', 'over_limit')), true);
    assert.equal(isRetryable(os(409, { faultstring: 'Invalid state PENDING_UPDATE of loadbalancer', faultcode: 'Client' }, 'conflict', 'load-balancer')), true);
    assert.equal(isRetryable(os(409, { NeutronError: { type: 'SubnetInUse', message: 'in use' } }, 'conflict', 'network')), true);
    assert.equal(isRetryable(os(400, 'bad', 'bad_request')), false);
    assert.equal(isRetryable(os(404, 'gone', 'not_found')), false);
    assert.equal(isRetryable(os(0, undefined, 'no_endpoint')), false, 'a service missing from the catalog will stay missing');
    assert.equal(isRetryable(os(409, { NeutronError: { type: 'OverQuota', message: 'Quota exceeded for resources: [port]' } }, 'conflict', 'network')), false);
    assert.equal(isRetryable(new KubeError(503, 'ServiceUnavailable', 'busy')), true);
    assert.equal(isRetryable(new KubeError(0, 'Unreachable', 'no answer')), true);
    assert.equal(isRetryable(new KubeError(403, 'Forbidden', 'no')), false);
  });

  test('a terminal cloud error is a reason code on the failing condition, naming the service and its request id', () => {
    const cases: [OpenStackError, string][] = [
      [os(404, { itemNotFound: { message: 'Flavor x could not be found.' } }, 'not_found'), 'NotFound'],
      [os(403, { forbidden: { message: 'Policy does not allow' } }, 'forbidden'), 'Forbidden'],
      [os(401, 'no', 'unauthorized'), 'Unauthorized'],
      [os(400, { badRequest: { message: 'Invalid imageRef' } }, 'bad_request'), 'InvalidRequest'],
      [os(409, 'conflict', 'conflict'), 'Conflict'],
      [os(0, undefined, 'no_endpoint'), 'NoEndpoint'],
      [os(503, 'down', 'server'), 'CloudUnavailable'],
      [os(403, { forbidden: { message: 'Quota exceeded for cores: Requested 4, but already used 20 of 20 cores' } }, 'forbidden'), 'QuotaExceeded'],
      [os(302, 'moved', 'unexpected'), 'CloudError'],
    ];
    for (const [e, reason] of cases) assert.equal(failureOf(e).reason, reason, `${e.status} ${e.kind}`);
    assert.equal(failureOf(cases[0]![0]).message, 'compute (request req-1): Flavor x could not be found.');
    const mine = new StepFailure('VolumeError', 'went to error', 'workers');
    assert.equal(failureOf(mine), mine, 'a step\'s own failure as it is');
    assert.equal(failureOf(new KubeError(413, 'ResponseTooLarge', 'too big')).reason, 'ClusterApiResponseTooLarge');
    assert.equal(failureOf(new KubeError(503, 'ServiceUnavailable', 'busy')).reason, 'ClusterApiUnavailable');
    assert.equal(failureOf(new KubeError(422, 'Invalid', 'bad object')).reason, 'ClusterApiError');
    assert.deepEqual([failureOf(new TypeError('x is undefined')).reason, failureOf(new TypeError('x is undefined')).message], ['InternalError', 'x is undefined']);
  });
});
