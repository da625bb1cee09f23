// Starting an operation (src/operations/begin.ts), the one way every starter goes, against real
// PostgreSQL: in one transaction the row is locked, the transition table consulted, the change and the
// operation written, the status derived and an event recorded; the relay woken after the commit. Nothing
// is written when the table refuses, a check finds nothing to change, or the cluster is gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ApiError, errors } from '../../src/domain/errors.js';
import { beginOperation, started, UNCHANGED, wouldBegin, type Begun, type OperationDeps } from '../../src/operations/begin.js';
import { openDb, type Db } from '../support/database.js';

let db: Db;
let kicks = 0;
let deps: OperationDeps;
before(async () => {
  db = await openDb();
  deps = { db: db.ds, kick: () => void kicks++ };
});
after(() => db.close());

const operations = (cluster: string) => db.ds.query(`SELECT kind, state, params FROM operation WHERE cluster_id = $1 ORDER BY created_at`, [cluster]) as Promise<{ kind: string; state: string; params: Record<string, unknown> }[]>;
const events = (cluster: string) => db.ds.query(`SELECT reason, message, severity, operation_id FROM cluster_event WHERE cluster_id = $1 ORDER BY id`, [cluster]) as Promise<{ reason: string; message: string; severity: string; operation_id: string }[]>;
const row = async (cluster: string) => ((await db.ds.query(`SELECT status, status_reason, updated_at, name FROM cluster WHERE uuid = $1`, [cluster])) as { status: string; status_reason: string | null; updated_at: Date | null; name: string }[])[0]!;

describe('beginOperation', () => {
  test('started: the change, the operation, the status, the event; the relay woken once after the commit', async () => {
    const { cluster } = await db.cluster();
    const now = new Date('2026-05-01T10:00:00.000Z');
    kicks = 0;
    let changedInside: string | undefined;
    const begun = await beginOperation(deps, cluster.uuid, {
      kind: 'resize',
      change: async (em, locked) => {
        changedInside = locked.status;
        await em.query(`UPDATE nodegroup SET node_count = 3 WHERE cluster_id = $1 AND role = 'worker'`, [locked.uuid]);
        return 3;
      },
      params: (n) => ({ node_count: n }),
      event: (n) => ({ reason: 'ResizeAccepted', message: `to ${n}` }),
      notes: [{ reason: 'Note', message: 'also this', severity: 'warning' }],
      now,
    });
    assert.equal(begun.outcome, 'started');
    const s = begun as Extract<Begun<number>, { outcome: 'started' }>;
    assert.equal(s.value, 3);
    assert.equal(changedInside, 'CREATE_COMPLETE', 'the change sees the locked row');
    assert.equal(s.cluster.status, 'UPDATE_IN_PROGRESS');
    assert.deepEqual(await operations(cluster.uuid), [{ kind: 'resize', state: 'pending', params: { node_count: 3 } }]);
    const r = await row(cluster.uuid);
    assert.equal(r.status, 'UPDATE_IN_PROGRESS');
    assert.equal(r.updated_at?.toISOString(), now.toISOString());
    const ev = await events(cluster.uuid);
    assert.deepEqual(ev.map((e) => [e.reason, e.message, e.severity]), [['ResizeAccepted', 'to 3', 'info'], ['Note', 'also this', 'warning']]);
    assert.ok(ev.every((e) => e.operation_id === s.op.id));
    const [{ node_count }] = await db.ds.query(`SELECT node_count FROM nodegroup WHERE cluster_id = $1 AND role = 'worker'`, [cluster.uuid]);
    assert.equal(node_count, 3);
    assert.equal(kicks, 1);
  });

  test('refused by the table: its error, and nothing written, the relay not woken', async () => {
    const { cluster } = await db.cluster({ status: 'CREATE_IN_PROGRESS' });
    kicks = 0;
    let changed = false;
    const begun = await beginOperation(deps, cluster.uuid, { kind: 'resize', change: async () => void (changed = true), event: { reason: 'X', message: 'x' } });
    assert.equal(begun.outcome, 'refused');
    assert.ok((begun as { error: ApiError }).error instanceof ApiError);
    assert.equal(changed, false);
    assert.deepEqual(await operations(cluster.uuid), []);
    assert.deepEqual(await events(cluster.uuid), []);
    assert.equal(kicks, 0);
  });

  test('a service operation only on a settled cluster with nothing running', async () => {
    const { cluster } = await db.cluster({ status: 'UPDATE_FAILED' });
    const begun = await beginOperation(deps, cluster.uuid, { kind: 'repair', origin: 'service', event: { reason: 'X', message: 'x' } });
    assert.equal(begun.outcome, 'refused');
    const ok = await db.cluster();
    assert.equal((await beginOperation(deps, ok.cluster.uuid, { kind: 'repair', origin: 'service', event: { reason: 'X', message: 'x' } })).outcome, 'started');
    // Now UPDATE_IN_PROGRESS, with the repair running: no second one.
    const again = await beginOperation(deps, ok.cluster.uuid, { kind: 'repair', origin: 'service', event: { reason: 'X', message: 'x' } });
    assert.deepEqual([again.outcome, (again as { status?: string }).status], ['refused', 'UPDATE_IN_PROGRESS']);
  });

  test('a check answering UNCHANGED: nothing written; a check that throws: nothing written, the error surfaces', async () => {
    const { cluster } = await db.cluster();
    const same = await beginOperation(deps, cluster.uuid, { kind: 'nodegroup_update', check: async () => UNCHANGED, event: { reason: 'X', message: 'x' } });
    assert.equal(same.outcome, 'unchanged');
    await assert.rejects(
      beginOperation(deps, cluster.uuid, {
        kind: 'nodegroup_update',
        check: async (em) => {
          await em.query(`UPDATE cluster SET name = 'renamed' WHERE uuid = $1`, [cluster.uuid]);
          throw errors.nodegroupNotReady('x', 'CREATE_FAILED');
        },
        event: { reason: 'X', message: 'x' },
      }),
      /Node group x is CREATE_FAILED/,
    );
    assert.equal((await row(cluster.uuid)).name, cluster.name, 'the transaction rolled back');
    assert.deepEqual(await operations(cluster.uuid), []);
  });

  test('a second delete joins the one that runs; a cluster that is gone is gone', async () => {
    const { cluster } = await db.cluster();
    const first = await beginOperation(deps, cluster.uuid, { kind: 'delete', event: { reason: 'DeleteAccepted', message: 'x' } });
    const second = await beginOperation(deps, cluster.uuid, { kind: 'delete', event: { reason: 'DeleteAccepted', message: 'x' } });
    assert.equal(second.outcome, 'joined');
    assert.equal((second as { op: { id: string } }).op.id, (first as { op: { id: string } }).op.id);
    assert.equal((await operations(cluster.uuid)).length, 1);
    assert.deepEqual(await beginOperation(deps, randomUUID(), { kind: 'delete', event: { reason: 'X', message: 'x' } }), { outcome: 'gone' });
  });

  test('a create writes its row in the same transaction; the status is derived, updated_at stays unset', async () => {
    const { cluster } = await db.cluster();
    const uuid = randomUUID();
    const begun = await beginOperation(deps, uuid, {
      kind: 'create',
      insert: async (em) => {
        await em.query(
          `INSERT INTO cluster (uuid, name, project_id, user_id, cluster_template_id, status, conditions, created_at) SELECT $1, 'fresh', project_id, user_id, cluster_template_id, 'CREATE_IN_PROGRESS', '{}', now() FROM cluster WHERE uuid = $2`,
          [uuid, cluster.uuid],
        );
      },
      event: { reason: 'CreateAccepted', message: 'x' },
    });
    assert.equal(begun.outcome, 'started');
    const r = await row(uuid);
    assert.deepEqual([r.status, r.updated_at], ['CREATE_IN_PROGRESS', null]);
    // The table lets a create start only on the cluster it writes.
    assert.equal((await beginOperation(deps, cluster.uuid, { kind: 'create', event: { reason: 'X', message: 'x' } })).outcome, 'refused');
  });
});

describe('wouldBegin and started', () => {
  test('wouldBegin reads the table without a lock and writes nothing: undefined, the refusal, or gone', async () => {
    const { cluster } = await db.cluster();
    assert.equal(await wouldBegin(deps, cluster.uuid, 'resize'), undefined);
    const busy = await db.cluster({ status: 'CREATE_IN_PROGRESS' });
    const e = await wouldBegin(deps, busy.cluster.uuid, 'resize');
    assert.ok(e instanceof ApiError && e.status === 409, String(e));
    assert.equal(await wouldBegin(deps, randomUUID(), 'resize'), 'gone');
    assert.deepEqual(await operations(cluster.uuid), []);
  });

  test('started: the started operation, else the error a caller answers', async () => {
    const { cluster } = await db.cluster();
    const ok = await beginOperation(deps, cluster.uuid, { kind: 'update', event: { reason: 'X', message: 'x' } });
    assert.equal(started(ok, () => errors.notFound('Cluster', 'c')).outcome, 'started');
    assert.throws(() => started({ outcome: 'gone' }, () => errors.notFound('Cluster', 'c')), /Cluster c could not be found/);
    const refused = await beginOperation(deps, cluster.uuid, { kind: 'update', event: { reason: 'X', message: 'x' } });
    assert.throws(() => started(refused, () => errors.notFound('Cluster', 'c')), (e: unknown) => e instanceof ApiError && e.status === 409);
    assert.throws(() => started({ outcome: 'unchanged', cluster }, () => errors.notFound('Cluster', 'c')), /unchanged where an operation had to start/);
  });
});
