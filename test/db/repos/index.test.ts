// The repositories over one data source (src/db/repos/index.ts): each works on the database it was given.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { repositories } from '../../../src/db/repos/index.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
before(async () => {
  db = await openDb(2);
});
after(() => db.close());

test('clusters, node groups, templates, operations and events, all over the same database', async () => {
  const r = repositories(db.ds);
  const { cluster, template } = await db.cluster();
  assert.equal((await r.clusters.find(cluster.uuid, { all: true }) as { name: string }).name, cluster.name);
  assert.equal((await r.nodegroups.find(cluster.uuid, 'default-worker', { all: true }) as { role: string }).role, 'worker');
  assert.equal((await r.templates.byUuid(template.uuid))?.uuid, template.uuid);
  assert.deepEqual(await r.operations.active(db.ds.manager, cluster.uuid), []);
  assert.deepEqual(await r.events.page(cluster.uuid, 10), []);
});
