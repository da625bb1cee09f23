// A LISTEN connection on one channel (src/db/change-feed.ts): healthy once listening, onChange on every
// (re)connection and notification; not healthy while its connection is gone, then back by itself; closed
// for good by close(). Real PostgreSQL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ChangeFeed } from '../../src/db/change-feed.js';
import { waitFor } from '../support/http.js';
import { openDb, type Db } from '../support/database.js';

let db: Db;
before(async () => {
  db = await openDb(2);
});
after(() => db.close());

const eventually = (check: () => boolean, what: string) => waitFor(async () => check(), (ok) => ok, 10_000).catch(() => assert.fail(`not within 10 s: ${what}`));

test('a bad channel name is refused before anything connects', () => {
  assert.throws(() => new ChangeFeed(db.url, 'drop table;', () => undefined, { warn: () => undefined }), /bad channel name/);
});

test('listens, hears NOTIFY, comes back after its backend is terminated, and stays down once closed', async () => {
  let changes = 0;
  const warnings: string[] = [];
  const feed = new ChangeFeed(db.url, 'test_feed', () => void changes++, { warn: (_o, msg) => warnings.push(msg) });
  assert.equal(feed.healthy, false);
  await feed.start();
  assert.equal(feed.healthy, true);
  assert.equal(changes, 1, 'a (re)connection is a change: what was cached before may be stale');
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  try {
    await sql.query(`NOTIFY test_feed`);
    await eventually(() => changes === 2, 'the notification');
    const named = await sql.query(`SELECT application_name FROM pg_stat_activity WHERE query = 'LISTEN test_feed'`);
    assert.deepEqual(named.rows.map((r) => r.application_name), ['magnum-ts-listen test_feed']);

    await sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'magnum-ts-listen test_feed'`);
    await eventually(() => !feed.healthy, 'unhealthy once its connection is gone');
    assert.ok(warnings.includes('change feed lost; caches bypassed until it is back'));
    await eventually(() => feed.healthy, 'back by itself');
    const before = changes;
    await sql.query(`NOTIFY test_feed`);
    await eventually(() => changes > before, 'hears again');

    await feed.close();
    assert.equal(feed.healthy, false);
    const closedAt = changes;
    await sql.query(`NOTIFY test_feed`);
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(feed.healthy, false, 'no reconnection after close');
    assert.equal(changes, closedAt);
  } finally {
    await feed.close();
    await sql.end();
  }
});
