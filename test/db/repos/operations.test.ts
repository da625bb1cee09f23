// The operation rows (src/db/repos/operations.ts) on real PostgreSQL: one active operation per cluster
// (a second is 'busy' without breaking the transaction; a delete beside another), the relay's claims with
// their lease, queued and released, the handed-over ones, and which operation speaks for the cluster.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { newOperation, OperationRepo } from '../../../src/db/repos/operations.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
let ops: OperationRepo;
before(async () => {
  db = await openDb(4);
  ops = new OperationRepo(db.ds);
});
after(() => db.close());

const insert = (op: ReturnType<typeof newOperation>) => db.ds.transaction((em) => ops.insert(em, op));

test('newOperation: pending, no attempts, its params', () => {
  const op = newOperation('c', 'resize', { node_count: 2 }, new Date(0));
  assert.deepEqual([op.state, op.attempts, op.params, op.created_at.getTime(), op.error], ['pending', 0, { node_count: 2 }, 0, null]);
  assert.notEqual(newOperation('c', 'resize').id, op.id);
});

test('one active operation per cluster, a delete beside it; busy keeps the transaction usable', async () => {
  const { cluster } = await db.cluster();
  const first = newOperation(cluster.uuid, 'resize');
  assert.equal(await insert(first), first);
  const result = await db.ds.transaction(async (em) => {
    const busy = await ops.insert(em, newOperation(cluster.uuid, 'upgrade'));
    const del = await ops.insert(em, newOperation(cluster.uuid, 'delete'));
    const del2 = await ops.insert(em, newOperation(cluster.uuid, 'delete'));
    return [busy, typeof del === 'object' ? 'delete' : del, del2];
  });
  assert.deepEqual(result, ['busy', 'delete', 'busy']);
  assert.deepEqual((await ops.active(db.ds.manager, cluster.uuid)).map((o) => o.kind).sort(), ['delete', 'resize']);
});

test('run and end: markRunning counts attempts; only the latest attempt ends it; cancelOthers spares deletes', async () => {
  const { cluster } = await db.cluster();
  const op = newOperation(cluster.uuid, 'resize');
  await insert(op);
  const r1 = await db.ds.transaction((em) => ops.markRunning(em, op.id));
  const r2 = await db.ds.transaction((em) => ops.markRunning(em, op.id));
  assert.deepEqual([r1?.attempts, r2?.attempts, r2?.state], [1, 2, 'running']);
  assert.equal(await db.ds.transaction((em) => ops.end(em, op.id, 1, 'succeeded', null)), undefined, 'a stale attempt');
  assert.equal((await db.ds.transaction((em) => ops.end(em, op.id, 2, 'failed', 'boom')))?.state, 'failed');
  assert.equal(await db.ds.transaction((em) => ops.markRunning(em, op.id)), undefined, 'an ended operation does not run again');
  assert.deepEqual(await ops.state(op.id), { state: 'failed', attempts: 2 });
  assert.equal(await ops.state(randomUUID()), undefined);

  const upgrade = newOperation(cluster.uuid, 'upgrade');
  const del = newOperation(cluster.uuid, 'delete');
  await insert(upgrade);
  await insert(del);
  const cancelled = await db.ds.transaction((em) => ops.cancelOthers(em, cluster.uuid, del.id, 'by the delete'));
  assert.deepEqual(cancelled, [{ id: upgrade.id, kind: 'upgrade' }]);
  assert.equal((await ops.get(upgrade.id))?.error, 'by the delete');
  await db.ds.transaction((em) => ops.setParams(em, del.id, { purge: true }));
  assert.deepEqual((await ops.get(del.id))?.params, { purge: true });
});

test('speaks: the active operation, else the latest', async () => {
  const { cluster } = await db.cluster();
  const old = newOperation(cluster.uuid, 'resize', {}, new Date(Date.now() - 60_000));
  await insert(old);
  await db.ds.query(`UPDATE operation SET state = 'succeeded' WHERE id = $1`, [old.id]);
  const later = newOperation(cluster.uuid, 'upgrade');
  await insert(later);
  await db.ds.query(`UPDATE operation SET state = 'failed' WHERE id = $1`, [later.id]);
  assert.equal(await ops.speaks(db.ds.manager, cluster.uuid, later.id), true);
  assert.equal(await ops.speaks(db.ds.manager, cluster.uuid, old.id), false);
  const active = newOperation(cluster.uuid, 'update', {}, new Date(Date.now() - 120_000));
  await insert(active);
  assert.equal(await ops.speaks(db.ds.manager, cluster.uuid, active.id), true, 'an active one speaks even when older');
});

test('the relay’s claims: oldest first, skipped while leased, queued or released by their token only', async () => {
  await db.ds.query(`UPDATE operation SET state = 'cancelled' WHERE state IN ('pending', 'queued', 'running')`);
  const a = (await db.cluster()).cluster.uuid;
  const b = (await db.cluster()).cluster.uuid;
  const opA = newOperation(a, 'resize', {}, new Date(Date.now() - 1000));
  const opB = newOperation(b, 'resize');
  await insert(opA);
  await insert(opB);
  const [tok1, tok2, tok3, tok4, tok5] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  // Oldest first: a claim of one takes the older; the rest come after (in no promised order).
  assert.deepEqual((await ops.claimPending(1, 60_000, tok1)).map((c) => c.id), [opA.id]);
  assert.deepEqual((await ops.claimPending(10, 60_000, tok1)).map((c) => c.id), [opB.id]);
  assert.deepEqual(await ops.claimPending(10, 60_000, tok2), [], 'leased rows are another relay’s');
  await ops.markQueued([opA.id, opB.id], tok2);
  assert.equal((await ops.get(opA.id))?.state, 'pending', 'not the claimer: nothing changes');
  await ops.releaseClaims([opB.id], tok1);
  await ops.markQueued([opA.id], tok1);
  assert.equal((await ops.get(opA.id))?.state, 'queued');
  assert.deepEqual((await ops.claimPending(10, 60_000, tok3)).map((c) => c.id), [opB.id], 'a released claim is taken again');
  assert.deepEqual(await ops.handedOver(10), [opA.id]);
  const h = await ops.claimHandedOver(opA.id, 60_000, tok4);
  assert.deepEqual([h?.id, h?.state], [opA.id, 'queued']);
  assert.equal(await ops.claimHandedOver(opA.id, 60_000, tok5), undefined, 'while its claim lasts');
});
