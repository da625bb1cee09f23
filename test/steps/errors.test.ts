// PostgreSQL and Redis failing for a moment during a worker step (issue 15 hole 7): the errors the real
// pg driver, TypeORM and ioredis raise for a lost connection, a shutdown, a serialization failure or
// deadlock and a timeout are classified retryable in one place (src/steps/errors.ts); constraint
// violations, syntax errors, step failures and plain bugs are not. The pool's statement and
// idle-in-transaction timeouts are set, and raise such errors. (What the runner does with them:
// test/workers/runner.test.ts.)
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, DB_TIMEOUTS } from '../../src/db/data-source.js';
import { failureOf, isRetryable, StepFailure, transientInfraError } from '../../src/steps/errors.js';
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
