// A node group delete (src/clusters/nodegroup-delete.ts; spec §3.4), through DELETE
// /v1/clusters/{cluster}/nodegroups/{nodegroup} (never a default group, the 409s, the intent written in one
// transaction: group, operation, cluster status), then through startNodegroupDelete.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { startNodegroupDelete } from '../../src/clusters/nodegroup-delete.js';
import { ApiError } from '../../src/domain/errors.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { nodegroupCluster, insertNodegroup, type ClusterFixture, type ClusterFixtureOptions } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

const base = (fx: ClusterFixture) => `/v1/clusters/${fx.cluster.uuid}/nodegroups`;
const del = (fx: ClusterFixture, ng: string) => t.as('demo', { method: 'DELETE', url: `${base(fx)}/${ng}` });
const detail = (r: { json(): unknown }) => (r.json() as { errors: { detail: string }[] }).errors[0]!.detail;
const operations = (fx: ClusterFixture) => t.app.services.db.getRepository(OperationEntity).findBy({ cluster_id: fx.cluster.uuid });
const clusterRow = (fx: ClusterFixture) => t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid: fx.cluster.uuid });
const cluster = (opts: ClusterFixtureOptions = {}) => nodegroupCluster(t, { labels: { kube_tag: 'v1.35.2', a: '1' }, ...opts });

describe('delete', () => {
  test('a default group cannot be deleted', async () => {
    const fx = await cluster();
    for (const ident of ['default-worker', 'default-master']) {
      const r = await del(fx, ident);
      assert.equal(r.statusCode, 400);
      assert.equal(detail(r), 'Deleting a default nodegroup is not supported.');
    }
    assert.deepEqual(await operations(fx), []);
  });

  test('204: the group turns DELETE_IN_PROGRESS (the worker removes it), an operation is written', async () => {
    const fx = await cluster();
    const ng = await insertNodegroup(t, fx, { status: 'CREATE_COMPLETE' });
    const r = await del(fx, String(ng.id));
    assert.equal(r.statusCode, 204, r.body);
    assert.equal(r.body, '');
    const shown = (await t.as('demo', { method: 'GET', url: `${base(fx)}/${ng.uuid}` })).json();
    assert.equal(shown.status, 'DELETE_IN_PROGRESS');
    assert.deepEqual((await operations(fx)).map((o) => [o.kind, o.params]), [['nodegroup_delete', { nodegroup: ng.uuid }]]);
    assert.equal((await clusterRow(fx)).status, 'UPDATE_IN_PROGRESS');
    const again = await del(fx, ng.uuid);
    assert.equal(again.statusCode, 409, 'the first delete still runs');
  });

  test('404 for an unknown group; 409 on a cluster that is being deleted', async () => {
    const fx = await cluster();
    assert.equal((await del(fx, 'ghost')).statusCode, 404);
    const dying = await cluster({ name: 'dying', status: 'DELETE_IN_PROGRESS' });
    const ng = await insertNodegroup(t, dying);
    const r = await del(dying, ng.uuid);
    assert.equal(r.statusCode, 409);
    assert.match(detail(r), /^Cluster dying is DELETE_IN_PROGRESS\./);
  });
});

describe('startNodegroupDelete', () => {
  const is = (status: number, message: string) => (e: unknown) => e instanceof ApiError && e.status === status && e.message === message;

  test('the group DELETE_IN_PROGRESS, the cluster UPDATE_IN_PROGRESS, one operation naming it', async () => {
    const fx = await cluster();
    const ng = await insertNodegroup(t, fx, { status: 'CREATE_COMPLETE' });
    await startNodegroupDelete(t.app.services, await callerOf(t, 'demo'), fx.cluster.name, ng.name);
    const [row] = await t.app.services.db.query(`SELECT status FROM nodegroup WHERE uuid = $1`, [ng.uuid]);
    assert.equal(row.status, 'DELETE_IN_PROGRESS');
    assert.equal((await clusterRow(fx)).status, 'UPDATE_IN_PROGRESS');
    assert.deepEqual((await operations(fx)).map((o) => [o.kind, o.params]), [['nodegroup_delete', { nodegroup: ng.uuid }]]);
  });

  test('the policy first, then the cluster and group in the caller’s own project; never a default group', async () => {
    const fx = await cluster();
    await assert.rejects(startNodegroupDelete(t.app.services, await callerOf(t, 'demo-reader'), fx.cluster.uuid, 'ghost'), is(403, "Policy doesn't allow nodegroup:delete to be performed."));
    await assert.rejects(startNodegroupDelete(t.app.services, await callerOf(t, 'admin'), fx.cluster.uuid, 'default-worker'), is(404, `Cluster ${fx.cluster.uuid} could not be found.`));
    await assert.rejects(startNodegroupDelete(t.app.services, await callerOf(t, 'demo'), fx.cluster.uuid, 'ghost'), is(404, 'Nodegroup ghost could not be found.'));
    await assert.rejects(startNodegroupDelete(t.app.services, await callerOf(t, 'demo'), fx.cluster.uuid, 'default-master'), is(400, 'Deleting a default nodegroup is not supported.'));
    assert.deepEqual(await operations(fx), []);
  });
});
