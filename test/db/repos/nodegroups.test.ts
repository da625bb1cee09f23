// Queries on a cluster's node groups (src/db/repos/nodegroups.ts): named by integer id, uuid or name,
// scoped; pages by any column (jsonb ones too) after a marker of the same cluster; a name taken; inserts
// refused for a duplicate name without breaking the transaction; the groups in progress failing together.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { NodeGroupRow } from '../../../src/db/entities/nodegroup.js';
import { NodeGroupRepo, parseIdent } from '../../../src/db/repos/nodegroups.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
let repo: NodeGroupRepo;
before(async () => {
  db = await openDb(2);
  repo = new NodeGroupRepo(db.ds);
});
after(() => db.close());

const all = { all: true } as const;
const group = (clusterId: string, over: Partial<NodeGroupRow> = {}): Omit<NodeGroupRow, 'id'> => ({
  uuid: randomUUID(), name: `ng-${randomUUID().slice(0, 6)}`, cluster_id: clusterId, project_id: 'p-1', docker_volume_size: null, labels: {}, flavor_id: 'm1.small',
  image_id: 'img', node_addresses: [], node_count: 1, role: 'worker', min_node_count: 0, max_node_count: null, is_default: false, stack_id: null,
  status: 'CREATE_COMPLETE', status_reason: null, version: null, node_labels: null, node_taints: null, created_at: new Date(), updated_at: null, ...over,
});

test('parseIdent: an integer id within int4, a uuid (lower-cased), else a name', () => {
  assert.deepEqual(parseIdent('42'), { id: 42 });
  assert.equal(parseIdent('0'), 'none');
  assert.equal(parseIdent('2147483648'), 'none');
  assert.deepEqual(parseIdent('6F1D7F4E-2C52-4F0E-9A3E-1B1F0B6F2A10'), { uuid: '6f1d7f4e-2c52-4f0e-9a3e-1b1f0b6f2a10' });
  assert.deepEqual(parseIdent('pool-1'), { name: 'pool-1' });
});

test('find by id, uuid or name, within the cluster and the scope; insert refuses a duplicate name, the transaction goes on', async () => {
  const { cluster } = await db.cluster();
  const { cluster: other } = await db.cluster();
  const inserted = await db.ds.transaction(async (em) => {
    const a = await repo.insert(em, group(cluster.uuid, { name: 'pool' }));
    const dup = await repo.insert(em, group(cluster.uuid, { name: 'pool' }));
    const b = await repo.insert(em, group(cluster.uuid, { name: 'pool-b' }));
    return { a, dup, b };
  });
  assert.equal(inserted.dup, 'duplicate-name');
  const a = inserted.a as NodeGroupRow;
  assert.ok(typeof a.id === 'number' && inserted.b !== 'duplicate-name');
  for (const ident of [String(a.id), a.uuid.toUpperCase(), 'pool']) assert.equal((await repo.find(cluster.uuid, ident, all) as NodeGroupRow).uuid, a.uuid, ident);
  assert.equal(await repo.find(other.uuid, a.uuid, all), null, 'another cluster’s group is not found');
  assert.equal(await repo.find(cluster.uuid, 'pool', { all: false, projectId: 'p-2' }), null);
  assert.equal(await repo.find(cluster.uuid, '99999999999', all), null);
  assert.equal(await db.ds.transaction((em) => repo.nameTaken(em, cluster.uuid, 'pool-b')), true);
  assert.equal(await db.ds.transaction((em) => repo.nameTaken(em, other.uuid, 'pool-b')), false);
});

test('list: by role, pages after a marker of this cluster only, sorted by a jsonb column too', async () => {
  const { cluster } = await db.cluster();
  await db.ds.transaction(async (em) => {
    for (const labels of [{ b: '1' }, { a: '1' }, { c: '1' }] as Record<string, string>[]) await repo.insert(em, group(cluster.uuid, { labels }));
  });
  const page = { sortKey: 'labels', sortDir: 'asc' as const, limit: 2 };
  const first = (await repo.list(cluster.uuid, all, 'worker', page, undefined)) as NodeGroupRow[];
  assert.equal(first.length, 2);
  const rest = (await repo.list(cluster.uuid, all, 'worker', { ...page, limit: 10 }, first[1]!.uuid)) as NodeGroupRow[];
  assert.equal(first.length + rest.length, 4, 'the default worker and three more, each once');
  assert.equal(new Set([...first, ...rest].map((g) => g.uuid)).size, 4);
  assert.deepEqual(((await repo.list(cluster.uuid, all, 'master', { ...page, sortKey: 'id' }, undefined)) as NodeGroupRow[]).map((g) => g.name), ['default-master']);
  const { cluster: other } = await db.cluster();
  const foreign = (await repo.find(other.uuid, 'default-worker', all)) as NodeGroupRow;
  assert.equal(await repo.list(cluster.uuid, all, undefined, page, foreign.uuid), 'bad-marker');
});

test('updates by id, uuid and cluster; failInProgress only touches *_IN_PROGRESS groups; remove', async () => {
  const { cluster } = await db.cluster();
  const groups = await db.ds.transaction(async (em) => {
    await repo.insertMany(em, [group(cluster.uuid, { name: 'x', status: 'UPDATE_IN_PROGRESS' }), group(cluster.uuid, { name: 'y' })]);
    return Promise.all(['x', 'y'].map((n) => repo.find(cluster.uuid, n, all, em))) as Promise<NodeGroupRow[]>;
  });
  await db.ds.transaction((em) => repo.failInProgress(em, cluster.uuid, 'UPDATE_FAILED', 'why'));
  const x = (await repo.find(cluster.uuid, 'x', all)) as NodeGroupRow;
  const y = (await repo.find(cluster.uuid, 'y', all)) as NodeGroupRow;
  assert.deepEqual([x.status, x.status_reason, y.status], ['UPDATE_FAILED', 'why', 'CREATE_COMPLETE']);
  await db.ds.transaction(async (em) => {
    await repo.update(em, groups[0]!.id, { node_count: 5 });
    await repo.updateByUuid(em, groups[1]!.uuid, { node_count: 6 });
  });
  assert.deepEqual([((await repo.find(cluster.uuid, 'x', all)) as NodeGroupRow).node_count, ((await repo.find(cluster.uuid, 'y', all)) as NodeGroupRow).node_count], [5, 6]);
  await db.ds.transaction((em) => repo.updateOfCluster(em, cluster.uuid, { status: 'DELETE_IN_PROGRESS' }));
  assert.ok(((await repo.list(cluster.uuid, all, undefined, { sortKey: 'id', sortDir: 'asc', limit: 10 }, undefined)) as NodeGroupRow[]).every((g) => g.status === 'DELETE_IN_PROGRESS'));
  await db.ds.transaction((em) => repo.remove(em, groups[0]!.uuid));
  assert.equal(await repo.find(cluster.uuid, 'x', all), null);
});
