// What a run of an operation records (src/operations/store.ts), against real PostgreSQL: the operation's
// life from queued to ended (fenced by its attempt), the conditions the steps observe with an event per
// change, the status derived from both (only the cluster's latest operation speaks), node groups failing
// with the operation that was changing them, and a delete cancelling the others.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { OperationRow } from '../../src/db/entities/operation.js';
import { newOperation, OperationRepo } from '../../src/db/repos/operations.js';
import type { OperationKind } from '../../src/domain/operations.js';
import { OperationStore } from '../../src/operations/store.js';
import { openDb, type Db } from '../support/database.js';

let db: Db;
let store: OperationStore;
before(async () => {
  db = await openDb();
  store = new OperationStore(db.ds);
});
after(() => db.close());

async function operation(cluster: string, kind: OperationKind, params: Record<string, unknown> = {}): Promise<OperationRow> {
  const op = newOperation(cluster, kind, params);
  await db.ds.transaction((em) => new OperationRepo(db.ds).insert(em, op));
  return op;
}
const cluster = async (uuid: string) => ((await db.ds.query(`SELECT status, status_reason, conditions FROM cluster WHERE uuid = $1`, [uuid])) as { status: string; status_reason: string | null; conditions: Record<string, { status: string; reason: string; message: string; since: string }> }[])[0]!;
const events = async (uuid: string) => ((await db.ds.query(`SELECT type, reason, severity FROM cluster_event WHERE cluster_id = $1 ORDER BY id`, [uuid])) as { type: string; reason: string; severity: string }[]).map((e) => `${e.type}/${e.reason}/${e.severity}`);
const groups = async (uuid: string) => (await db.ds.query(`SELECT name, status, status_reason FROM nodegroup WHERE cluster_id = $1 ORDER BY name`, [uuid])) as { name: string; status: string; status_reason: string | null }[];

test('a run: started once (an event, the status), conditions as they change, then succeeded', async () => {
  const { cluster: c } = await db.cluster({ status: 'CREATE_COMPLETE' });
  const op = await operation(c.uuid, 'resize');
  const run = await store.startRun(op);
  assert.ok(run);
  assert.deepEqual([run.op.state, run.op.attempts], ['running', 1]);
  assert.equal((await cluster(c.uuid)).status, 'UPDATE_IN_PROGRESS');
  assert.deepEqual((await store.state(op.id)), { state: 'running', attempts: 1 });

  const written = await store.setCondition(c.uuid, run.op, 'workers', 'Unknown', 'Joining', 'node 2 joins');
  assert.ok(written && written !== 'gone');
  const after1 = await cluster(c.uuid);
  assert.deepEqual([after1.status, after1.status_reason], ['UPDATE_IN_PROGRESS', 'workers: node 2 joins']);
  const since = after1.conditions.workers!.since;
  assert.equal(await store.setCondition(c.uuid, run.op, 'workers', 'Unknown', 'Joining', 'node 2 joins'), undefined, 'the same again writes nothing');
  await store.setCondition(c.uuid, run.op, 'workers', 'Unknown', 'Joining', 'node 3 joins');
  assert.equal((await cluster(c.uuid)).conditions.workers!.since, since, 'the same status keeps its since');
  await store.setCondition(c.uuid, run.op, 'workers', 'True', 'Ready', 'all joined');

  const ended = await store.succeed(run.op);
  assert.equal(typeof ended === 'object' && ended.state, 'succeeded');
  assert.deepEqual([(await cluster(c.uuid)).status, (await cluster(c.uuid)).status_reason], ['UPDATE_COMPLETE', null]);
  // Only one Joining event: a message alone does not make one.
  assert.deepEqual(await events(c.uuid), ['operation/Started/info', 'workers/Joining/info', 'workers/Ready/info', 'operation/ResizeSucceeded/info']);
  assert.equal(await store.succeed(run.op), 'not-running', 'an ended operation is not ended twice');
});

test('fenced: a stale run (an earlier attempt) cannot end the operation', async () => {
  const { cluster: c } = await db.cluster();
  const op = await operation(c.uuid, 'upgrade');
  const first = (await store.startRun(op))!;
  const second = (await store.startRun(op))!;
  assert.equal(second.op.attempts, 2);
  assert.equal(await store.fail(first.op, 'stale'), 'not-running');
  assert.equal(typeof (await store.fail(second.op, 'the real failure')), 'object');
  const row = await cluster(c.uuid);
  assert.deepEqual([row.status, row.status_reason], ['UPDATE_FAILED', 'the real failure']);
  assert.deepEqual((await events(c.uuid)).filter((e) => e.startsWith('operation/Started')).length, 1, 'started is told once');
});

test('a failed create fails every node group; a failed node group create only the groups it was changing', async () => {
  const { cluster: c } = await db.cluster({ status: 'CREATE_IN_PROGRESS' });
  const create = await operation(c.uuid, 'create');
  const run = (await store.startRun(create))!;
  await store.fail(run.op, 'NoValidHost: x'.repeat(1000));
  const failedGroups = await groups(c.uuid);
  assert.ok(failedGroups.every((g) => g.status === 'CREATE_FAILED' && g.status_reason!.length <= 4096), JSON.stringify(failedGroups.map((g) => g.status)));
  assert.equal((await cluster(c.uuid)).status, 'CREATE_FAILED');

  const { cluster: d } = await db.cluster();
  await db.ds.query(`UPDATE nodegroup SET status = 'CREATE_IN_PROGRESS' WHERE cluster_id = $1 AND role = 'worker'`, [d.uuid]);
  const ngCreate = await operation(d.uuid, 'nodegroup_create');
  await store.fail((await store.startRun(ngCreate))!.op, 'no room');
  assert.deepEqual((await groups(d.uuid)).map((g) => [g.name, g.status]), [['default-master', 'CREATE_COMPLETE'], ['default-worker', 'CREATE_FAILED']]);
});

test('rolled back: failed with its error, ROLLBACK_COMPLETE; what it observed written with it', async () => {
  const { cluster: c } = await db.cluster();
  const op = await operation(c.uuid, 'update', { rollback: true });
  const run = (await store.startRun(op))!;
  await db.ds.query(`UPDATE operation SET params = params || '{"rolled_back": true}' WHERE id = $1`, [op.id]);
  const ended = await store.rolledBack({ ...run.op, params: { rollback: true, rolled_back: true } }, 'quota', async (em, locked) => {
    await em.query(`UPDATE cluster SET coe_version = 'v9' WHERE uuid = $1`, [locked.uuid]);
  });
  assert.equal(typeof ended === 'object' && ended.state, 'failed');
  const row = (await db.ds.query(`SELECT status, coe_version FROM cluster WHERE uuid = $1`, [c.uuid]))[0];
  assert.deepEqual([row.status, row.coe_version], ['ROLLBACK_COMPLETE', 'v9']);
});

test('a delete cancels the others, each with an event; the delete then speaks for the cluster', async () => {
  const { cluster: c } = await db.cluster();
  const resize = await operation(c.uuid, 'resize');
  const resizeRun = (await store.startRun(resize))!;
  const del = await operation(c.uuid, 'delete');
  await store.cancelOthers(del);
  assert.deepEqual(await store.state(resize.id), { state: 'cancelled', attempts: 1 });
  assert.ok((await events(c.uuid)).includes('operation/Cancelled/warning'));
  // The cancelled resize no longer speaks: its condition changes leave the status to the delete.
  const delRun = (await store.startRun(del))!;
  assert.equal((await cluster(c.uuid)).status, 'DELETE_IN_PROGRESS');
  assert.equal(await store.succeed(resizeRun.op), 'not-running');
  await store.setCondition(c.uuid, resizeRun.op, 'network', 'False', 'Gone', 'x');
  assert.equal((await cluster(c.uuid)).status, 'DELETE_IN_PROGRESS');
  assert.ok(delRun);
});

test('a delete cancelling while a run holds the cluster row waits for it, in the lock order every write keeps: no deadlock', async () => {
  const { cluster: c } = await db.cluster();
  const create = await operation(c.uuid, 'create');
  const del = await operation(c.uuid, 'delete');
  // A run's write as startRun and setCondition make it: the cluster row first, then the operation's row. Between the two
  // the delete's cancel starts; with the operation's row taken first it would wait on this cluster row for its event.
  let cancelling: Promise<void> | undefined;
  let cancelled = false;
  await db.ds.transaction(async (em) => {
    await em.query(`SELECT 1 FROM cluster WHERE uuid = $1 FOR UPDATE`, [c.uuid]);
    cancelling = store.cancelOthers(del).then(() => void (cancelled = true));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(cancelled, false, 'the cancel waits for the cluster row');
    await em.query(`UPDATE operation SET state = 'running', attempts = attempts + 1 WHERE id = $1`, [create.id]);
  });
  await cancelling;
  assert.deepEqual(await store.state(create.id), { state: 'cancelled', attempts: 1 });
  assert.ok((await events(c.uuid)).includes('operation/Cancelled/warning'));
});

test('a cluster that is gone: gone; an operation that is gone: undefined', async () => {
  const { cluster: c } = await db.cluster();
  const op = await operation(c.uuid, 'resize');
  const run = (await store.startRun(op))!;
  await db.ds.query(`DELETE FROM cluster WHERE uuid = $1`, [c.uuid]);
  assert.equal(await store.setCondition(c.uuid, run.op, 'workers', 'True', 'Ready', 'x'), 'gone');
  assert.equal(await store.succeed(run.op), 'gone');
  assert.equal(await store.startRun(run.op), undefined);
  assert.equal(await store.load(op.id), null);
  assert.equal(await store.state(op.id), undefined);
});
