// The data source as every process opens it (src/db/data-source.ts): every entity, the pool named
// magnum-ts, each connection bounded by statement and idle-in-transaction timeouts (none for
// migrations), and ping as the readiness probe's question.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDataSource, DB_TIMEOUTS, entities, MIGRATION_TIMEOUTS, ping } from '../../src/db/data-source.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { closedPort } from '../support/net.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(() => db.drop());

test('every entity of the schema; the connections’ name and timeouts as configured', async () => {
  assert.equal(entities.length, 9);
  const ds = createDataSource(db.url, 2, { connectTimeoutMs: 5000, statementTimeoutMs: 1500, idleInTransactionTimeoutMs: 2500 });
  await ds.initialize();
  try {
    await ping(ds);
    const [row] = await ds.query(`SELECT current_setting('statement_timeout') AS st, current_setting('idle_in_transaction_session_timeout') AS idle, current_setting('application_name') AS app`);
    assert.deepEqual(row, { st: '1500ms', idle: '2500ms', app: 'magnum-ts' });
    await assert.rejects(ds.query('SELECT pg_sleep(3)'), /statement timeout/);
    for (const e of entities) assert.ok(ds.hasMetadata(e), String(e.options.name));
  } finally {
    await ds.destroy();
  }
});

test('migrations have no statement timeout; the service’s default has one', () => {
  assert.equal(MIGRATION_TIMEOUTS.statementTimeoutMs, 0);
  assert.ok(DB_TIMEOUTS.statementTimeoutMs > 0 && DB_TIMEOUTS.idleInTransactionTimeoutMs > 0 && DB_TIMEOUTS.connectTimeoutMs > 0);
});

test('ping fails when the database does not answer', async () => {
  const url = new URL(db.url);
  url.port = String(await closedPort());
  const ds = createDataSource(url.toString(), 1, { ...DB_TIMEOUTS, connectTimeoutMs: 2000 });
  await assert.rejects(ds.initialize());
});
