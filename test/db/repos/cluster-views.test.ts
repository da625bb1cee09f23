// What the portal's live views read in bulk (src/db/repos/cluster-views.ts): clusters with their node
// groups, and the list's summaries with counts summed by PostgreSQL; in scope, newest first, never the
// credential.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterViewRepo } from '../../../src/db/repos/cluster-views.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
let views: ClusterViewRepo;
let older: string;
let newer: string;
before(async () => {
  db = await openDb(2);
  views = new ClusterViewRepo(db.ds);
  older = (await db.cluster({ project: 'p-v' })).cluster.uuid;
  await db.ds.query(`UPDATE cluster SET created_at = now() - interval '1 hour', app_cred_id = 'cred', app_cred_secret = 'sealed' WHERE uuid = $1`, [older]);
  newer = (await db.cluster({ project: 'p-v' })).cluster.uuid;
  await db.ds.query(`UPDATE nodegroup SET node_count = 3 WHERE cluster_id = $1 AND role = 'worker'`, [newer]);
  await db.cluster({ project: 'p-other' });
});
after(() => db.close());

test('withGroups: the scope’s clusters newest first, each with its groups, never a credential column', async () => {
  const rows = await views.withGroups({ all: false, projectId: 'p-v' });
  assert.deepEqual(rows.map((r) => r.cluster.uuid), [newer, older]);
  assert.deepEqual(rows[0]!.groups.map((g) => g.role).sort(), ['master', 'worker']);
  for (const r of rows) {
    assert.equal(r.cluster.app_cred_id, undefined);
    assert.equal(r.cluster.app_cred_secret, undefined);
  }
  assert.deepEqual((await views.withGroups({ all: true }, [older])).map((r) => r.cluster.uuid), [older]);
  assert.deepEqual(await views.withGroups({ all: true }, []), []);
  assert.equal((await views.withGroups({ all: true })).length, 3);
});

test('summaries: counts summed by role as numbers, in scope and by uuid', async () => {
  const rows = await views.summaries({ all: false, projectId: 'p-v' });
  assert.deepEqual(rows.map((r) => [r.uuid, r.master_count, r.node_count]), [[newer, 1, 3], [older, 1, 1]]);
  assert.equal('app_cred_secret' in rows[0]!, false);
  assert.deepEqual((await views.summaries({ all: true }, [newer])).map((r) => r.uuid), [newer]);
  assert.deepEqual(await views.summaries({ all: true }, []), []);
  assert.deepEqual(await views.summaries({ all: false, projectId: 'p-none' }), []);
});
