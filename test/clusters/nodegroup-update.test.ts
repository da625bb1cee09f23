// A node group update (src/clusters/nodegroup-update.ts; spec §3.4, §5), through PATCH
// /v1/clusters/{cluster}/nodegroups/{nodegroup} (a JSON patch of min and max only, the 409s, the intent
// written in one transaction: group, operation, cluster status), then through startNodegroupUpdate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { startNodegroupUpdate } from '../../src/clusters/nodegroup-update.js';
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
const patch = (fx: ClusterFixture, ng: string, ops: unknown) => t.as('demo', { method: 'PATCH', url: `${base(fx)}/${ng}`, payload: ops as object });
const detail = (r: { json(): unknown }) => (r.json() as { errors: { detail: string }[] }).errors[0]!.detail;
const operations = (fx: ClusterFixture) => t.app.services.db.getRepository(OperationEntity).findBy({ cluster_id: fx.cluster.uuid });
const clusterRow = (fx: ClusterFixture) => t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid: fx.cluster.uuid });
const cluster = (opts: ClusterFixtureOptions = {}) => nodegroupCluster(t, { labels: { kube_tag: 'v1.35.2', a: '1' }, ...opts });

describe('update', () => {
  test('min and max: 202 with the detail view, the group UPDATE_IN_PROGRESS, an operation written', async () => {
    const fx = await cluster();
    const ng = await insertNodegroup(t, fx, { node_count: 3, status: 'CREATE_COMPLETE' });
    const r = await patch(fx, ng.name, [
      { op: 'replace', path: '/min_node_count', value: '2' },
      { op: 'add', path: '/max_node_count', value: 6 },
    ]);
    assert.equal(r.statusCode, 202, r.body);
    const body = r.json();
    assert.deepEqual([body.min_node_count, body.max_node_count, body.status, body.id], [2, 6, 'UPDATE_IN_PROGRESS', ng.id]);
    assert.match(body.updated_at, /\+00:00$/);
    assert.ok(Array.isArray(body.links));
    assert.deepEqual((await operations(fx)).map((o) => [o.kind, o.params]), [['nodegroup_update', { nodegroup: ng.uuid }]]);
    assert.equal((await clusterRow(fx)).status, 'UPDATE_IN_PROGRESS');
  });

  test('remove: the maximum becomes unbounded, the minimum 0', async () => {
    const fx = await cluster();
    const ng = await insertNodegroup(t, fx, { node_count: 2, min_node_count: 1, max_node_count: 4, status: 'UPDATE_COMPLETE' });
    const r = await patch(fx, String(ng.id), [{ op: 'remove', path: '/max_node_count' }, { op: 'remove', path: '/min_node_count' }]);
    assert.equal(r.statusCode, 202, r.body);
    assert.deepEqual([r.json().min_node_count, r.json().max_node_count], [0, null]);
  });

  test('a patch that changes nothing answers the group and starts nothing', async () => {
    const fx = await cluster();
    const ng = await insertNodegroup(t, fx, { max_node_count: 3, status: 'CREATE_COMPLETE' });
    const r = await patch(fx, ng.uuid, [{ op: 'replace', path: '/max_node_count', value: 3 }]);
    assert.equal(r.statusCode, 202, r.body);
    assert.equal(r.json().status, 'CREATE_COMPLETE');
    assert.deepEqual(await operations(fx), []);
  });

  const refused: [string, unknown, number, string | RegExp][] = [
    ['node_count', [{ op: 'replace', path: '/node_count', value: 5 }], 400, "'/node_count' is an internal attribute and can not be updated"],
    ['name', [{ op: 'replace', path: '/name', value: 'x' }], 400, "'/name' is an internal attribute and can not be updated"],
    ['labels key', [{ op: 'add', path: '/labels/x', value: 'y' }], 400, "'/labels' is an internal attribute and can not be updated"],
    ['uuid', [{ op: 'replace', path: '/uuid', value: 'x' }], 400, "'/uuid' is an internal attribute and can not be updated"],
    ['node_labels', [{ op: 'replace', path: '/node_labels', value: 'x' }], 400, "'/node_labels' is an internal attribute and can not be updated"],
    ['unknown attribute', [{ op: 'add', path: '/color', value: 'x' }], 400, 'Adding a new attribute /color to the root of the resource is not allowed.'],
    ['not a list', { op: 'replace' }, 400, /Value not a valid list$/],
    ['not a number', [{ op: 'replace', path: '/max_node_count', value: 'many' }], 400, /^Invalid input for field\/attribute max_node_count\. Value: 'many'\./],
    ['negative', [{ op: 'replace', path: '/min_node_count', value: -1 }], 400, /Value should be greater or equal to 0$/],
    ['max below count', [{ op: 'replace', path: '/max_node_count', value: 1 }], 409, /^max_node_count for pool is invalid \(node_count 2 .*\)\.$/],
    ['min above count', [{ op: 'replace', path: '/min_node_count', value: 3 }], 409, /^min_node_count for pool is invalid/],
  ];
  for (const [name, ops, status, message] of refused) {
    test(`${status}: ${name}`, async () => {
      const fx = await cluster();
      const ng = await insertNodegroup(t, fx, { name: 'pool', node_count: 2, status: 'CREATE_COMPLETE' });
      const r = await patch(fx, ng.uuid, ops);
      assert.equal(r.statusCode, status, r.body);
      if (typeof message === 'string') assert.equal(detail(r), message);
      else assert.match(detail(r), message);
      assert.deepEqual(await operations(fx), []);
    });
  }

  test('409 for a group that failed its create, for a busy cluster; 404 for an unknown group', async () => {
    const fx = await cluster();
    const failed = await insertNodegroup(t, fx, { name: 'failed', status: 'CREATE_FAILED' });
    const ops = [{ op: 'replace', path: '/max_node_count', value: 4 }];
    const r = await patch(fx, failed.uuid, ops);
    assert.equal(r.statusCode, 409);
    assert.match(detail(r), /^Node group failed is CREATE_FAILED\./);
    const busy = await cluster({ name: 'busy-update', status: 'UPDATE_IN_PROGRESS' });
    const ng = await insertNodegroup(t, busy, { status: 'UPDATE_COMPLETE' });
    assert.match(detail(await patch(busy, ng.uuid, ops)), /^Cluster busy-update is UPDATE_IN_PROGRESS\./);
    const missing = await patch(fx, 'ghost', ops);
    assert.equal(missing.statusCode, 404);
    assert.equal(detail(missing), 'Nodegroup ghost could not be found.');
  });
});

describe('startNodegroupUpdate', () => {
  const V = (minor: number) => ({ major: 1, minor });
  const as = async (user: 'demo' | 'demo-reader' | 'admin', minor = 14) => ({ ...(await callerOf(t, user)), version: V(minor) });
  const is = (status: number, message: string | RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));

  test('the new bounds written under the cluster’s lock, the group and the cluster UPDATE_IN_PROGRESS, one operation', async () => {
    const fx = await cluster();
    const ng = await insertNodegroup(t, fx, { node_count: 3, status: 'CREATE_COMPLETE' });
    const { ng: after, cluster: c } = await startNodegroupUpdate(t.app.services, await as('demo'), fx.cluster.name, ng.name, [{ op: 'replace', path: '/max_node_count', value: 5 }]);
    assert.deepEqual([after.min_node_count, after.max_node_count, after.status, c.status], [0, 5, 'UPDATE_IN_PROGRESS', 'UPDATE_IN_PROGRESS']);
    assert.deepEqual((await operations(fx)).map((o) => o.kind), ['nodegroup_update']);
  });

  test('unchanged: the group as it is, nothing begun; node_labels internal from 1.14, unknown before', async () => {
    const fx = await cluster();
    const ng = await insertNodegroup(t, fx, { max_node_count: 4, status: 'CREATE_COMPLETE' });
    const same = await startNodegroupUpdate(t.app.services, await as('demo'), fx.cluster.uuid, ng.uuid, [{ op: 'replace', path: '/max_node_count', value: 4 }]);
    assert.deepEqual([same.ng.uuid, same.ng.status, same.cluster.status], [ng.uuid, 'CREATE_COMPLETE', 'CREATE_COMPLETE']);
    assert.deepEqual(await operations(fx), []);
    await assert.rejects(startNodegroupUpdate(t.app.services, await as('demo'), fx.cluster.uuid, ng.uuid, [{ op: 'replace', path: '/node_labels', value: {} }]), is(400, "'/node_labels' is an internal attribute and can not be updated"));
    await assert.rejects(startNodegroupUpdate(t.app.services, await as('demo', 13), fx.cluster.uuid, ng.uuid, [{ op: 'replace', path: '/node_labels', value: {} }]), is(400, /non-existent object 'node_labels'/));
  });

  test('the caller’s own project only, then the policy', async () => {
    const fx = await cluster();
    await assert.rejects(startNodegroupUpdate(t.app.services, await as('admin'), fx.cluster.uuid, 'default-worker', []), is(404, `Cluster ${fx.cluster.uuid} could not be found.`));
    await assert.rejects(startNodegroupUpdate(t.app.services, await as('demo-reader'), fx.cluster.uuid, 'default-worker', []), is(403, "Policy doesn't allow nodegroup:update to be performed."));
  });
});
