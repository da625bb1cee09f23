// Queries on clusters (src/db/repos/clusters.ts) on real PostgreSQL: scoped finds by uuid or name
// (ambiguous names), pages whose marker must be visible, the row locked for update, the credential retired
// and forgotten in single statements, what a health check records, the API-bearing clusters in id order,
// and the totals summed over node groups.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ClusterRow } from '../../../src/db/entities/cluster.js';
import type { NodeGroupRow } from '../../../src/db/entities/nodegroup.js';
import { ClusterRepo, totals } from '../../../src/db/repos/clusters.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
let repo: ClusterRepo;
before(async () => {
  db = await openDb(4);
  repo = new ClusterRepo(db.ds);
});
after(() => db.close());

test('find: by uuid (any case) or name, in scope; two of a name are ambiguous', async () => {
  const { cluster } = await db.cluster({ project: 'p-find', name: 'alpha' });
  const mine = { all: false as const, projectId: 'p-find' };
  assert.equal((await repo.find(cluster.uuid.toUpperCase(), mine) as { uuid: string }).uuid, cluster.uuid);
  assert.equal((await repo.find('alpha', mine) as { uuid: string }).uuid, cluster.uuid);
  assert.equal(await repo.find('alpha', { all: false, projectId: 'p-else' }), null);
  assert.equal(await repo.find(cluster.uuid, { all: false, projectId: null }), null, 'a token of no project sees nothing');
  assert.ok(await repo.find('alpha', { all: true }));
  await db.cluster({ project: 'p-find', name: 'alpha' });
  assert.equal(await repo.find('alpha', mine), 'ambiguous');
});

test('list: a marker of another project is bad; the caller’s own pages', async () => {
  const a = await db.cluster({ project: 'p-list' });
  const b = await db.cluster({ project: 'p-list' });
  const theirs = await db.cluster({ project: 'p-list-other' });
  const scope = { all: false as const, projectId: 'p-list' };
  const page = { sortKey: 'id', sortDir: 'asc' as const, limit: 10 };
  assert.deepEqual((await repo.list(scope, page, undefined) as { uuid: string }[]).map((c) => c.uuid), [a.cluster.uuid, b.cluster.uuid]);
  assert.deepEqual((await repo.list(scope, page, a.cluster.uuid) as { uuid: string }[]).map((c) => c.uuid), [b.cluster.uuid]);
  assert.equal(await repo.list(scope, page, theirs.cluster.uuid), 'bad-marker');
});

test('lock: a second locker waits for the first transaction’s commit', async () => {
  const { cluster } = await db.cluster();
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const first = db.ds.transaction(async (em) => {
    await repo.lock(em, cluster.uuid);
    order.push('first locked');
    await held;
    order.push('first commits');
  });
  await new Promise((r) => setTimeout(r, 100));
  const second = db.ds.transaction(async (em) => {
    await repo.lock(em, cluster.uuid);
    order.push('second locked');
  });
  await new Promise((r) => setTimeout(r, 200));
  release();
  await Promise.all([first, second]);
  assert.deepEqual(order, ['first locked', 'first commits', 'second locked']);
  assert.equal(await db.ds.transaction((em) => repo.lock(em, randomUUID())), null);
});

test('the credential retired with its owner in one statement, then forgotten once deleted', async () => {
  const { cluster } = await db.cluster();
  assert.equal(await repo.retireCredential(cluster.uuid), undefined, 'no credential: nothing to retire');
  await repo.update(cluster.uuid, { app_cred_id: 'cred-1', app_cred_secret: 'sealed', app_cred_user_id: null });
  assert.deepEqual(await repo.retireCredential(cluster.uuid), [{ id: 'cred-1', user_id: 'u-1' }], 'the creator owns it when no owner was recorded');
  await repo.update(cluster.uuid, { app_cred_id: 'cred-2', app_cred_user_id: 'u-2' });
  assert.deepEqual(await repo.retireCredential(cluster.uuid), [{ id: 'cred-1', user_id: 'u-1' }, { id: 'cred-2', user_id: 'u-2' }]);
  const row = (await repo.find(cluster.uuid, { all: true })) as { app_cred_id: string | null; app_cred_secret: string | null };
  assert.deepEqual([row.app_cred_id, row.app_cred_secret], [null, null]);
  await repo.forgetRetired(cluster.uuid, 'cred-1');
  assert.deepEqual(((await repo.find(cluster.uuid, { all: true })) as { retired_app_creds: unknown }).retired_app_creds, [{ id: 'cred-2', user_id: 'u-2' }]);
  await repo.forgetRetired(cluster.uuid, 'cred-2');
  assert.deepEqual(((await repo.find(cluster.uuid, { all: true })) as { retired_app_creds: unknown }).retired_app_creds, []);
});

test('recordHealth writes the health columns and condition only; withApiIn pages by id', async () => {
  const { cluster } = await db.cluster({ project: 'p-health' });
  await repo.update(cluster.uuid, { name: 'kept', status: 'UPDATE_IN_PROGRESS' });
  const checkedAt = new Date('2026-02-02T00:00:00.000Z');
  const condition = { status: 'False' as const, reason: 'NodesNotReady', message: '1 node not ready', since: checkedAt.toISOString() };
  await repo.recordHealth(cluster.uuid, { status: 'UNHEALTHY', reason: { 'node-1.Ready': 'False' }, checkedAt, condition, unhealthySince: { 'node-1': checkedAt.toISOString() } });
  const row = (await repo.find(cluster.uuid, { all: true })) as ClusterRow;
  assert.deepEqual([row.name, row.status, row.health_status, row.health_status_reason], ['kept', 'UPDATE_IN_PROGRESS', 'UNHEALTHY', { 'node-1.Ready': 'False' }]);
  assert.deepEqual(row.conditions.health, condition);
  assert.ok(row.conditions.network, 'the other conditions stay');
  assert.deepEqual(row.unhealthy_since, { 'node-1': checkedAt.toISOString() });

  const settled = [await db.cluster(), await db.cluster(), await db.cluster()].map((x) => x.cluster);
  await repo.update(settled[1]!.uuid, { api_address: null });
  const found = await repo.withApiIn(['CREATE_COMPLETE'], settled[0]!.id - 1, 10);
  assert.deepEqual(found.map((c) => c.uuid).filter((u) => settled.some((s) => s.uuid === u)), [settled[0]!.uuid, settled[2]!.uuid]);
  assert.deepEqual((await repo.withApiIn(['CREATE_COMPLETE'], settled[0]!.id - 1, 1)).length, 1);
});

test('node groups of several clusters, in id order; remove takes them with the row', async () => {
  const a = await db.cluster();
  const b = await db.cluster();
  const groups = await repo.nodegroups([a.cluster.uuid, b.cluster.uuid]);
  assert.equal(groups.length, 4);
  assert.deepEqual(groups.map((g) => g.id), [...groups.map((g) => g.id)].sort((x, y) => x - y));
  assert.deepEqual(await repo.nodegroups([]), []);
  await db.ds.transaction((em) => repo.remove(em, a.cluster.uuid));
  assert.equal(await repo.find(a.cluster.uuid, { all: true }), null);
  assert.equal((await repo.nodegroups([a.cluster.uuid])).length, 0);
});

test('totals: counts and addresses summed by role', () => {
  const g = (role: string, node_count: number, node_addresses: string[]) => ({ role, node_count, node_addresses }) as NodeGroupRow;
  assert.deepEqual(totals([g('master', 3, ['10.0.0.1']), g('worker', 2, ['10.0.0.5']), g('worker', 1, ['10.0.0.6'])]), {
    node_count: 3,
    master_count: 3,
    node_addresses: ['10.0.0.5', '10.0.0.6'],
    master_addresses: ['10.0.0.1'],
  });
});
