// The cluster quota check of the create path (checkClusterQuota) against real PostgreSQL: the
// quota row or the default, and concurrent transactions that cannot both take the last slot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { createDataSource } from '../../src/db/data-source.js';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { ClusterTemplateEntity } from '../../src/db/entities/cluster-template.js';
import { QuotaEntity } from '../../src/db/entities/quota.js';
import { checkClusterQuota } from '../../src/preflight/cluster-quota.js';
import { ApiError } from '../../src/domain/errors.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';

let db: TestDatabase;
let ds: DataSource;
const template = randomUUID();

before(async () => {
  db = await freshDatabase();
  ds = createDataSource(db.url, 16);
  await ds.initialize();
  await ds.getRepository(ClusterTemplateEntity).insert({
    uuid: template, name: 'tpl', project_id: 'p', user_id: 'u', coe: 'kubernetes', image_id: 'img', created_at: new Date(),
  } as never);
});
after(async () => {
  await ds.destroy();
  await db.drop();
});

const addCluster = (em: EntityManager, projectId: string) =>
  em.getRepository(ClusterEntity).insert({
    uuid: randomUUID(), name: 'c', project_id: projectId, user_id: 'u', cluster_template_id: template, status: 'CREATE_IN_PROGRESS', created_at: new Date(),
  });
const setQuota = (projectId: string, hardLimit: number) =>
  ds.getRepository(QuotaEntity).insert({ project_id: projectId, resource: 'Cluster', hard_limit: hardLimit, created_at: new Date() });
const count = (projectId: string) => ds.getRepository(ClusterEntity).countBy({ project_id: projectId });

/** The create path: check, then insert, in one transaction. */
const createCluster = (projectId: string, defaultLimit = 20) =>
  ds.transaction(async (em) => {
    await checkClusterQuota(em, projectId, defaultLimit);
    await addCluster(em, projectId);
  });

const exceeded = (limit: number) => (e: unknown) => {
  assert.ok(e instanceof ApiError);
  assert.equal(e.status, 403);
  assert.equal(e.message, `Resource limit exceeded: You have reached the maximum clusters per project, ${limit}. You may delete a cluster to make room for a new one.`);
  return true;
};

test('without a quota row the default limit applies', async () => {
  const p = randomUUID();
  await createCluster(p, 2);
  await createCluster(p, 2);
  await assert.rejects(createCluster(p, 2), exceeded(2));
  assert.equal(await count(p), 2);
});

test('a quota row wins over the default, in both directions; 0 forbids clusters', async () => {
  const lower = randomUUID();
  await setQuota(lower, 1);
  await createCluster(lower, 20);
  await assert.rejects(createCluster(lower, 20), exceeded(1));
  const higher = randomUUID();
  await setQuota(higher, 3);
  for (let i = 0; i < 3; i++) await createCluster(higher, 1);
  await assert.rejects(createCluster(higher, 1), exceeded(3));
  const none = randomUUID();
  await setQuota(none, 0);
  await assert.rejects(createCluster(none, 20), exceeded(0));
});

test('other projects’ clusters do not count', async () => {
  const a = randomUUID();
  const b = randomUUID();
  await setQuota(a, 1);
  await createCluster(a);
  await createCluster(b, 1);
  assert.deepEqual([await count(a), await count(b)], [1, 1]);
});

test('a second transaction waits for the first to commit and then sees the last slot taken', async () => {
  const p = randomUUID();
  await setQuota(p, 2);
  await createCluster(p);
  let firstChecked!: () => void;
  const checked = new Promise<void>((r) => (firstChecked = r));
  let waitedMs = 0;
  const first = ds.transaction(async (em) => {
    await checkClusterQuota(em, p, 20);
    await addCluster(em, p);
    firstChecked();
    // Hold the transaction open: without the lock the second would see only committed rows (1) and pass.
    await new Promise((r) => setTimeout(r, 300));
  });
  const second = (async () => {
    await checked;
    const t0 = Date.now();
    return ds.transaction(async (em) => {
      try {
        await checkClusterQuota(em, p, 20);
      } finally {
        waitedMs = Date.now() - t0;
      }
      await addCluster(em, p);
    });
  })();
  const [a, b] = await Promise.allSettled([first, second]);
  assert.equal(a.status, 'fulfilled');
  assert.equal(b.status, 'rejected');
  exceeded(2)((b as PromiseRejectedResult).reason);
  assert.ok(waitedMs >= 200, `the second check waited for the first commit (${waitedMs} ms)`);
  assert.equal(await count(p), 2);
});

test('many concurrent creates for the last slots: exactly the limit succeeds', async () => {
  const p = randomUUID();
  await setQuota(p, 3);
  const results = await Promise.allSettled(Array.from({ length: 12 }, () => createCluster(p)));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
  for (const r of results) if (r.status === 'rejected') exceeded(3)(r.reason);
  assert.equal(await count(p), 3);
});

test('the lock is per project: another project is not held up', async () => {
  const busy = randomUUID();
  const free = randomUUID();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const holder = ds.transaction(async (em) => {
    await checkClusterQuota(em, busy, 20);
    locked();
    await held;
  });
  await isLocked;
  const t0 = Date.now();
  await createCluster(free);
  assert.ok(Date.now() - t0 < 1000);
  release();
  await holder;
});
