// A cluster's event timeline (src/db/repos/events.ts): written bounded to MESSAGE_MAX, read a page after
// a marker or the latest ones, oldest first, one cluster's only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEventRepo } from '../../../src/db/repos/events.js';
import { MESSAGE_MAX } from '../../../src/domain/limits.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
before(async () => {
  db = await openDb(2);
});
after(() => db.close());

test('pages after a marker and the latest, oldest first; a megabyte message is kept bounded', async () => {
  const events = new ClusterEventRepo(db.ds);
  const { cluster } = await db.cluster();
  const { cluster: other } = await db.cluster();
  const at = new Date();
  for (let i = 1; i <= 5; i++) await events.insert({ cluster_id: cluster.uuid, operation_id: null, at, type: 'operation', reason: `R${i}`, message: `m${i}`, severity: 'info' });
  await events.insert({ cluster_id: other.uuid, operation_id: null, at, type: 'operation', reason: 'Other', message: 'x'.repeat(1_000_000), severity: 'error' });
  const first = await events.page(cluster.uuid, 2);
  assert.deepEqual(first.map((e) => e.reason), ['R1', 'R2']);
  assert.deepEqual((await events.page(cluster.uuid, 10, Number(first[1]!.id))).map((e) => e.reason), ['R3', 'R4', 'R5']);
  assert.deepEqual((await events.latest(cluster.uuid, 2)).map((e) => e.reason), ['R4', 'R5']);
  const [big] = await events.page(other.uuid, 10);
  assert.ok(big!.message.length <= MESSAGE_MAX);
});
