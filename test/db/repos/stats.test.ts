// Cluster and node counts for GET /v1/stats (src/db/repos/stats.ts): one project's or every project's,
// the nodes summed over every node group, masters included.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterStats } from '../../../src/db/repos/stats.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
before(async () => {
  db = await openDb(2);
});
after(() => db.close());

test('counts of one project, of all, and of a project with nothing', async () => {
  assert.deepEqual(await clusterStats(db.ds, undefined), { clusters: 0, nodes: 0 });
  const { cluster } = await db.cluster({ project: 'p-a' });
  await db.ds.query(`UPDATE nodegroup SET node_count = 4 WHERE cluster_id = $1 AND role = 'worker'`, [cluster.uuid]);
  await db.cluster({ project: 'p-a', nodegroups: false });
  await db.cluster({ project: 'p-b' });
  assert.deepEqual(await clusterStats(db.ds, 'p-a'), { clusters: 2, nodes: 5 });
  assert.deepEqual(await clusterStats(db.ds, 'p-b'), { clusters: 1, nodes: 2 });
  assert.deepEqual(await clusterStats(db.ds, undefined), { clusters: 3, nodes: 7 });
  assert.deepEqual(await clusterStats(db.ds, 'p-none'), { clusters: 0, nodes: 0 });
});
