// The resource ledger (src/db/repos/resources.ts): recorded once (again a no-op, a deleted row revived),
// marked deleted one by one or by type, and the marked rows dropped while live ones stay.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceRepo } from '../../../src/db/repos/resources.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
before(async () => {
  db = await openDb(2);
});
after(() => db.close());

test('record, mark deleted, revive, drop', async () => {
  const ledger = new ResourceRepo(db.ds);
  const { cluster } = await db.cluster();
  const c = cluster.uuid;
  const port = (id: string) => ({ service: 'network', type: 'port', cloudId: id, name: `p-${id}`, step: 'ports' });
  await ledger.record(c, { service: 'network', type: 'network', cloudId: 'net-1', name: 'net', step: 'network' });
  await ledger.record(c, port('a'));
  await ledger.record(c, port('b'));
  await ledger.record(c, port('a'));
  assert.deepEqual((await ledger.live(c)).map((r) => r.cloud_id), ['net-1', 'a', 'b'], 'recorded again: still one row');
  assert.deepEqual((await ledger.live(c, 'port')).map((r) => r.cloud_id), ['a', 'b']);

  await ledger.markDeleted(c, 'network', 'port', 'a');
  assert.deepEqual((await ledger.live(c, 'port')).map((r) => r.cloud_id), ['b']);
  await ledger.record(c, port('a'));
  assert.deepEqual((await ledger.live(c, 'port')).map((r) => r.cloud_id).sort(), ['a', 'b'], 'a resource back is revived');

  await ledger.markTypeDeleted(c, 'port');
  assert.deepEqual((await ledger.live(c)).map((r) => r.cloud_id), ['net-1']);
  await ledger.dropDeleted(c);
  const rows = (await db.ds.query('SELECT cloud_id FROM cluster_resource WHERE cluster_id = $1', [c])) as { cloud_id: string }[];
  assert.deepEqual(rows.map((r) => r.cloud_id), ['net-1'], 'live rows, unknown to the delete, stay');
});
