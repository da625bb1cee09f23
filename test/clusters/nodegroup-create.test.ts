// A node group create (src/clusters/nodegroup-create.ts; spec §3.4, §5.3), through POST
// /v1/clusters/{cluster}/nodegroups (defaults from the cluster, the 409s, the intent written in one
// transaction: row, operation, cluster status), then through planNodegroupCreate and startNodegroupCreate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { NodeGroupEntity } from '../../src/db/entities/nodegroup.js';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { newOperation } from '../../src/db/repos/operations.js';
import { planNodegroupCreate, startNodegroupCreate } from '../../src/clusters/nodegroup-create.js';
import { ApiError } from '../../src/domain/errors.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { nodegroupCluster, type ClusterFixture, type ClusterFixtureOptions } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

const at = (minor: number) => ({ 'openstack-api-version': `container-infra 1.${minor}` });
const base = (fx: ClusterFixture) => `/v1/clusters/${fx.cluster.uuid}/nodegroups`;
const post = (fx: ClusterFixture, body: unknown, minor?: number) =>
  t.as('demo', { method: 'POST', url: base(fx), payload: body as object, ...(minor ? { headers: at(minor) } : {}) });
const detail = (r: { json(): unknown }) => (r.json() as { errors: { detail: string }[] }).errors[0]!.detail;
const operations = (fx: ClusterFixture) => t.app.services.db.getRepository(OperationEntity).findBy({ cluster_id: fx.cluster.uuid });
const clusterRow = (fx: ClusterFixture) => t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid: fx.cluster.uuid });
const groups = (fx: ClusterFixture) => t.app.services.db.getRepository(NodeGroupEntity).findBy({ cluster_id: fx.cluster.uuid });
const cluster = (opts: ClusterFixtureOptions = {}) => nodegroupCluster(t, { labels: { kube_tag: 'v1.35.2', a: '1' }, ...opts });

describe('create', () => {
  test('202 with the defaults of the cluster and its template; the intent is written at once', async () => {
    const fx = await cluster();
    const r = await post(fx, { name: 'pool-a' }, 13);
    assert.equal(r.statusCode, 202, r.body);
    const ng = r.json();
    assert.deepEqual(ng, {
      uuid: ng.uuid,
      name: 'pool-a',
      cluster_id: fx.cluster.uuid,
      project_id: fx.cluster.project_id,
      docker_volume_size: null,
      labels: { kube_tag: 'v1.35.2', a: '1' },
      labels_overridden: {},
      labels_added: {},
      labels_skipped: {},
      links: [
        { href: `http://localhost:80/v1/clusters/${fx.cluster.uuid}/nodegroups/${ng.uuid}`, rel: 'self' },
        { href: `http://localhost:80/clusters/${fx.cluster.uuid}/nodegroups/${ng.uuid}`, rel: 'bookmark' },
      ],
      flavor_id: 'm1.small',
      image_id: 'ubuntu-24.04',
      node_count: 1,
      role: 'worker',
      min_node_count: 0,
      max_node_count: null,
      merge_labels: false,
    });
    const shown = (await t.as('demo', { method: 'GET', url: `${base(fx)}/${ng.uuid}` })).json();
    assert.equal(shown.status, 'CREATE_IN_PROGRESS');
    assert.equal(shown.is_default, false);
    assert.equal(typeof shown.id, 'number');
    const ops = await operations(fx);
    assert.deepEqual(ops.map((o) => [o.kind, o.params]), [['nodegroup_create', { nodegroup: ng.uuid }]]);
    const c = await clusterRow(fx);
    assert.equal(c.status, 'UPDATE_IN_PROGRESS');
    assert.ok(c.updated_at);
  });

  test('given values win; labels replace the cluster’s, or merge over them with merge_labels', async () => {
    const fx = await cluster({ flavorId: null });
    const r = await post(fx, {
      name: 'big',
      flavor_id: 'm1.large',
      image_id: 'other-image',
      docker_volume_size: '20',
      node_count: 3,
      min_node_count: 2,
      max_node_count: 5,
      role: 'gpu',
      labels: { a: 2, extra: true },
    });
    assert.equal(r.statusCode, 202, r.body);
    const ng = r.json();
    assert.deepEqual(
      [ng.flavor_id, ng.image_id, ng.docker_volume_size, ng.node_count, ng.min_node_count, ng.max_node_count, ng.role],
      ['m1.large', 'other-image', 20, 3, 2, 5, 'gpu'],
    );
    assert.deepEqual(ng.labels, { a: '2', extra: 'True' });
    assert.deepEqual([ng.labels_overridden, ng.labels_added, ng.labels_skipped], [{ a: '1' }, { extra: 'True' }, { kube_tag: 'v1.35.2' }]);
    const fx2 = await cluster({ flavorId: null });
    const merged = (await post(fx2, { name: 'm', labels: { extra: 'x' }, merge_labels: 'true' })).json();
    assert.deepEqual(merged.labels, { kube_tag: 'v1.35.2', a: '1', extra: 'x' });
    assert.equal(merged.flavor_id, null, 'the cluster has no flavor either');
    assert.equal(merged.merge_labels, false);
  });

  const conflicts: [string, ClusterFixtureOptions, Record<string, unknown>, number, string | RegExp][] = [
    ['master role', {}, { name: 'm', role: 'master' }, 400, 'Creating master nodegroups is currently not supported.'],
    ['duplicate name', { name: 'dup' }, { name: 'default-worker' }, 409, 'A node group with name default-worker already exists in the cluster dup.'],
    ['max below min', {}, { name: 'n', min_node_count: 3, max_node_count: 2, node_count: 2 }, 409, /^max_node_count for n is invalid \(.*\)\.$/],
    ['count above max', {}, { name: 'n', node_count: 4, max_node_count: 3 }, 409, /^max_node_count for n is invalid \(node_count 4 .*max_node_count 3\)\.$/],
    ['min above count', {}, { name: 'n', node_count: 1, min_node_count: 2 }, 409, /^min_node_count for n is invalid \(min_node_count 2 .*node_count 1\)\.$/],
    ['no API address yet', { apiAddress: null }, { name: 'n' }, 409, 'Cluster API address is not available yet'],
    ['cluster still creating', { name: 'busy', status: 'CREATE_IN_PROGRESS' }, { name: 'n' }, 409, /^Cluster busy is CREATE_IN_PROGRESS\./],
    ['cluster failed', { name: 'broken', status: 'CREATE_FAILED' }, { name: 'n' }, 409, /^Cluster broken is CREATE_FAILED\./],
    ['missing name', {}, { node_count: 1 }, 400, "Invalid input for field/attribute name. Value: 'None'. Mandatory field missing."],
    ['negative count', {}, { name: 'n', node_count: -1 }, 400, /^Invalid input for field\/attribute node_count\. Value: '-1'\. Value should be greater or equal to 0$/],
    ['read-only status', {}, { name: 'n', status: 'CREATE_COMPLETE' }, 400, /^Invalid input for field\/attribute status\. .*Cannot set read only field\.$/],
    ['unknown attribute', {}, { name: 'n', flavor: 'x' }, 400, 'Unknown attribute for argument nodegroup: flavor'],
  ];
  for (const [name, opts, body, status, message] of conflicts) {
    test(`${status}: ${name}; nothing is written`, async () => {
      const fx = await cluster(opts);
      const r = await post(fx, body);
      assert.equal(r.statusCode, status, r.body);
      if (typeof message === 'string') assert.equal(detail(r), message);
      else assert.match(detail(r), message);
      assert.equal((await groups(fx)).length, 2);
      assert.deepEqual(await operations(fx), []);
      assert.equal((await clusterRow(fx)).status, fx.cluster.status);
    });
  }

  test('409 while another operation runs on the cluster; UPDATE_FAILED clusters take node groups', async () => {
    const fx = await cluster({ name: 'queued' });
    assert.equal((await post(fx, { name: 'one' })).statusCode, 202);
    const r = await post(fx, { name: 'two' });
    assert.equal(r.statusCode, 409);
    assert.equal(detail(r), 'Cluster queued has an operation in progress (nodegroup_create). Try again when it has finished.');
    const fx2 = await cluster({ status: 'UPDATE_FAILED' });
    await t.app.services.db.transaction((em) => t.app.services.operations.insert(em, newOperation(fx2.cluster.uuid, 'resize')).then(() => undefined));
    assert.equal((await post(fx2, { name: 'x' })).statusCode, 409);
    const fx3 = await cluster({ status: 'UPDATE_FAILED' });
    assert.equal((await post(fx3, { name: 'x' })).statusCode, 202);
  });

  test('node_labels and node_taints: unknown attributes at 1.13, stored and shown at 1.14', async () => {
    const fx = await cluster();
    const body = {
      name: 'gpu',
      node_labels: { 'nvidia.com/gpu': 'true' },
      node_taints: [{ key: 'nvidia.com/gpu', effect: 'NoSchedule' }, { key: 'dedicated', value: 'ml', effect: 'NoExecute' }],
    };
    const old = await post(fx, body, 13);
    assert.equal(old.statusCode, 400);
    assert.equal(detail(old), 'Unknown attributes for argument nodegroup: node_labels, node_taints');
    const r = await post(fx, body, 14);
    assert.equal(r.statusCode, 202, r.body);
    assert.deepEqual([r.json().node_labels, r.json().node_taints], [body.node_labels, body.node_taints]);
    const shown = (await t.as('demo', { method: 'GET', url: `${base(fx)}/gpu`, headers: at(14) })).json();
    assert.deepEqual([shown.node_labels, shown.node_taints], [body.node_labels, body.node_taints]);
    const plain = await post(await cluster(), { name: 'plain' }, 14);
    assert.deepEqual([plain.json().node_labels, plain.json().node_taints], [{}, []]);
  });

  const badMeta: [string, Record<string, unknown>, RegExp][] = [
    ['taint effect', { node_taints: [{ key: 'k', effect: 'Sometimes' }] }, /^Invalid input for field\/attribute node_taints\.0\.effect\. .*Value should be one of: NoSchedule, PreferNoSchedule, NoExecute$/],
    ['taint without key', { node_taints: [{ effect: 'NoSchedule' }] }, /Mandatory field missing\.$/],
    ['taint twice', { node_taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule' }] }, /Taint 'k' with effect NoSchedule is given twice\.$/],
    ['label key', { node_labels: { 'bad key': 'v' } }, /^Invalid input for field\/attribute node_labels\. .*Label key 'bad key' must have a name/],
    ['label prefix', { node_labels: { 'Bad_Prefix/x': 'v' } }, /Label key 'Bad_Prefix\/x' has a prefix that is not a DNS subdomain/],
    ['label value', { node_labels: { k: 'x'.repeat(64) } }, /The value of label 'k' must be at most 63/],
    ['label value type', { node_labels: { k: 1 } }, /^Invalid input for field\/attribute node_labels\.k\./],
    // The kubelet registers its Node with these labels and refuses to start with one of kubernetes.io's it may not set.
    ['label the kubelet may not set', { node_labels: { 'node-role.kubernetes.io/gpu': '' } }, /Label key 'node-role\.kubernetes\.io\/gpu' is in the node-role\.kubernetes\.io namespace, where a kubelet may set only kubelet\.kubernetes\.io\/\*, node\.kubernetes\.io\/\*/],
    ['label the service sets', { node_labels: { 'magnum.openstack.org/nodegroup': 'x' } }, /Label key 'magnum\.openstack\.org\/nodegroup' is set by the service on every node of the group\.$/],
    ['taint the controllers own', { node_taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] }, /Taint key 'node\.kubernetes\.io\/unschedulable' is in the node\.kubernetes\.io namespace, which Kubernetes' controllers manage\.$/],
  ];
  for (const [name, extra, message] of badMeta) {
    test(`400 at 1.14: ${name}`, async () => {
      const fx = await cluster();
      const r = await post(fx, { name: 'n', ...extra }, 14);
      assert.equal(r.statusCode, 400, r.body);
      assert.match(detail(r), message);
      assert.equal((await groups(fx)).length, 2);
    });
  }
});

describe('planNodegroupCreate and startNodegroupCreate', () => {
  const V = (minor: number) => ({ major: 1, minor });
  const is = (status: number, message: string | RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));
  const as = async (user: 'demo' | 'demo-reader' | 'admin', minor = 14) => ({ ...(await callerOf(t, user)), version: V(minor) });

  test('planned: the group’s counts and role, node labels and taints from 1.14 only; its bill; nothing written', async () => {
    const fx = await cluster();
    const body = { name: 'gpu', node_count: 2, max_node_count: 4, node_labels: { gpu: 'true' }, node_taints: [{ key: 'gpu', effect: 'NoSchedule' }] };
    const plan = await planNodegroupCreate(t.app.services, await as('demo'), fx.cluster.name, body);
    assert.deepEqual([plan.name, plan.role, plan.counts, plan.nodeLabels, plan.nodeTaints], ['gpu', 'worker', { node_count: 2, min_node_count: 0, max_node_count: 4 }, { gpu: 'true' }, [{ key: 'gpu', effect: 'NoSchedule' }]]);
    assert.equal(plan.bill.lines.find((l) => l.quota === 'instances')!.needed, 2);
    assert.equal(plan.bill.lines.find((l) => l.quota === 'server_groups')!.needed, 1);
    const old = await planNodegroupCreate(t.app.services, await as('demo', 13), fx.cluster.uuid, body);
    assert.deepEqual([old.nodeLabels, old.nodeTaints], [null, null]);
    assert.deepEqual(await operations(fx), []);
  });

  test('started: the group with the cluster’s labels merged over, the template’s image; the operation and the cluster’s status', async () => {
    const fx = await cluster();
    const body = { name: 'merged', labels: { extra: 'x' }, merge_labels: true };
    const plan = await planNodegroupCreate(t.app.services, await as('demo'), fx.cluster.uuid, body);
    const { ng, cluster: c } = await startNodegroupCreate(t.app.services, plan, body);
    assert.deepEqual([ng.labels, ng.image_id, ng.status, ng.is_default], [{ kube_tag: 'v1.35.2', a: '1', extra: 'x' }, fx.template.image_id, 'CREATE_IN_PROGRESS', false]);
    assert.equal(c.status, 'UPDATE_IN_PROGRESS');
    assert.deepEqual((await operations(fx)).map((o) => [o.kind, o.params]), [['nodegroup_create', { nodegroup: ng.uuid }]]);
    // The checks again under the lock: the same name now exists.
    await assert.rejects(startNodegroupCreate(t.app.services, plan, body), is(409, `A node group with name merged already exists in the cluster ${fx.cluster.name}.`));
  });

  test('the checks: a name, the policy, the caller’s own project (an admin’s too), an API address, a free name, no master, the counts', async () => {
    const fx = await cluster();
    const plan = async (body: Record<string, unknown>, who?: Awaited<ReturnType<typeof as>>, ident = fx.cluster.uuid) => planNodegroupCreate(t.app.services, who ?? (await as('demo')), ident, body);
    await assert.rejects(plan({}), is(400, "Invalid input for field/attribute name. Value: 'None'. Mandatory field missing."));
    await assert.rejects(plan({ name: 'x' }, await as('demo-reader')), is(403, "Policy doesn't allow nodegroup:create to be performed."));
    await assert.rejects(plan({ name: 'x' }, await as('admin')), is(404, `Cluster ${fx.cluster.uuid} could not be found.`));
    await assert.rejects(plan({ name: 'default-worker' }), is(409, `A node group with name default-worker already exists in the cluster ${fx.cluster.name}.`));
    await assert.rejects(plan({ name: 'm', role: 'master' }), is(400, 'Creating master nodegroups is currently not supported.'));
    await assert.rejects(plan({ name: 'c', node_count: 1, min_node_count: 2 }), is(409, /^min_node_count for c is invalid/));
    await assert.rejects(plan({ name: 'l', node_labels: { 'bad key': 'x' } }), is(400, /Label key 'bad key'/));
    const early = await cluster({ apiAddress: null });
    await assert.rejects(plan({ name: 'x' }, undefined, early.cluster.uuid), is(409, 'Cluster API address is not available yet'));
  });
});
