// The live views' one LISTEN connection (src/db/notify-hub.ts), on real PostgreSQL: a subscriber gets a
// resync when it is listening, the clusters' and events' changes as the migration's triggers notify them,
// a resync again after the connection dropped and came back; a failing listener does not stop the others.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { NotifyHub, type ClusterChange } from '../../src/db/notify-hub.js';
import { ClusterEventRepo } from '../../src/db/repos/events.js';
import { waitFor } from '../support/http.js';
import { openDb, type Db } from '../support/database.js';

let db: Db;
before(async () => {
  db = await openDb(2);
});
after(() => db.close());

const eventually = (check: () => boolean, what: string) => waitFor(async () => check(), (ok) => ok, 10_000).catch(() => assert.fail(`not within 10 s: ${what}`));

test('changes of clusters, node groups and events reach every subscriber; a resync after a drop', async () => {
  const warnings: string[] = [];
  const hub = new NotifyHub(db.url, (_o, msg) => warnings.push(msg));
  const seen: ClusterChange[] = [];
  const other: ClusterChange[] = [];
  try {
    assert.equal(hub.healthy, false);
    await hub.subscribe(() => {
      throw new Error('a broken listener');
    });
    const unsubscribe = await hub.subscribe((c) => seen.push(c));
    await hub.subscribe((c) => other.push(c));
    assert.equal(hub.healthy, true);

    const { cluster } = await db.cluster({ project: 'p-live' });
    await eventually(() => seen.some((c) => c.kind === 'cluster' && c.cluster === cluster.uuid && c.table === 'c'), 'the cluster insert');
    const insert = seen.find((c) => c.kind === 'cluster' && c.table === 'c') as Extract<ClusterChange, { kind: 'cluster' }>;
    assert.deepEqual([insert.project, insert.op], ['p-live', 'I']);
    await eventually(() => seen.some((c) => c.kind === 'cluster' && c.table === 'n'), 'its node groups');
    await new ClusterEventRepo(db.ds).insert({ cluster_id: cluster.uuid, operation_id: null, at: new Date(), type: 'operation', reason: 'R', message: 'm', severity: 'info' });
    await eventually(() => seen.some((c) => c.kind === 'event' && c.cluster === cluster.uuid && c.id > 0), 'the event');
    assert.ok(other.length >= 3, 'every subscriber hears it');
    assert.ok(warnings.includes('live view listener failed'), 'the broken listener is logged, not fatal');

    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    seen.length = 0;
    await sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'magnum-ts-live'`);
    await sql.end();
    await eventually(() => seen.filter((c) => c.kind === 'resync').length >= 2, 'a resync when it drops and one when it is back');
    assert.equal(hub.healthy, true);

    unsubscribe();
    const before = seen.length;
    await db.ds.query(`UPDATE cluster SET name = 'renamed' WHERE uuid = $1`, [cluster.uuid]);
    await eventually(() => other.some((c) => c.kind === 'cluster' && c.op === 'U'), 'the update');
    assert.equal(seen.length, before, 'an unsubscribed listener hears nothing');
  } finally {
    await hub.close();
  }
  assert.equal(hub.healthy, false);
});
