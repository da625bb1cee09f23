// /v1/clusters: create (intent written with its operation, default node groups and CAs), views,
// PATCH, resize, upgrade, delete, events, by role and microversion (spec §3.2, §3.3, §5).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { ClusterCertificateEntity } from '../../src/db/entities/cluster-certificate.js';
import { NodeGroupEntity } from '../../src/db/entities/nodegroup.js';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { testApp, type TestApp, type User } from '../support/app.js';
import { settleCluster } from '../support/settle.js';

let t: TestApp;
let template: string;
let queue: Queue;
let redis: Redis;

const v = (version: string) => ({ 'openstack-api-version': `container-infra ${version}` });

before(async () => {
  t = await testApp();
  const res = await t.as('demo', {
    method: 'POST',
    url: '/v1/clustertemplates',
    payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true, labels: { kube_tag: 'v1.34.2', foo: 'bar' } },
  });
  assert.equal(res.statusCode, 201, res.body);
  template = res.json().uuid;
  redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  queue = new Queue(OPERATIONS_QUEUE, { connection: redis, prefix: t.config.queuePrefix });
});
after(async () => {
  await queue.close();
  redis.disconnect();
  await t.close();
});

async function create(user: User = 'demo', body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return t.as(user, { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, ...body }, headers });
}

const finish = (uuid: string) => settleCluster(t.app, uuid);

describe('create', () => {
  test('202 with the uuid; the row, default node groups, CAs and the queued operation exist at once', async () => {
    const res = await create('demo', { name: 'c1', node_count: 2, labels: { extra: 'x' }, merge_labels: true });
    assert.equal(res.statusCode, 202, res.body);
    const { uuid } = res.json();
    const show = await t.as('demo', { method: 'GET', url: `/v1/clusters/${uuid}` });
    assert.equal(show.statusCode, 200);
    const c = show.json();
    assert.equal(c.status, 'CREATE_IN_PROGRESS');
    assert.equal(c.node_count, 2);
    assert.equal(c.master_count, 1);
    assert.deepEqual(c.labels, { kube_tag: 'v1.34.2', foo: 'bar', extra: 'x' });
    assert.deepEqual(c.labels_added, { extra: 'x' });
    assert.deepEqual(c.labels_skipped, {});
    assert.equal(c.merge_labels, false);
    assert.equal(c.master_lb_enabled, true);
    assert.equal(c.create_timeout, 60);
    assert.equal('faults' in c, false);
    assert.equal('cluster_id' in c, true);
    const groups = await t.app.services.db.getRepository(NodeGroupEntity).findBy({ cluster_id: uuid });
    assert.deepEqual(groups.map((g) => [g.name, g.role, g.node_count, g.is_default]).sort(), [
      ['default-master', 'master', 1, true],
      ['default-worker', 'worker', 2, true],
    ]);
    const certs = await t.app.services.db.getRepository(ClusterCertificateEntity).findBy({ cluster_id: uuid });
    assert.deepEqual(certs.map((x) => x.kind).sort(), ['etcd', 'front_proxy', 'kubernetes', 'service_account']);
    const row = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid });
    assert.ok(row.app_cred_id);
    assert.ok(row.app_cred_secret?.startsWith('v1.'), 'the secret is sealed at rest');
    // The operation is relayed to BullMQ with its own id as the job id.
    const op = await t.app.services.db.getRepository(OperationEntity).findOneByOrFail({ cluster_id: uuid });
    assert.equal(op.kind, 'create');
    await t.services.relay.kick();
    const job = await queue.getJob(op.id);
    assert.equal(job?.name, 'create');
    assert.deepEqual(job?.data, { operationId: op.id, clusterId: uuid });
    const relayed = await t.app.services.db.getRepository(OperationEntity).findOneByOrFail({ id: op.id });
    assert.equal(relayed.state, 'queued');
  });

  test('a missing template is 400 up to 1.9 and 404 from 1.10; a missing id is mandatory', async () => {
    const missing = '5e1f0a5c-9a53-4a07-8a4b-8d4b8a7d0000';
    const r9 = await create('demo', { cluster_template_id: missing }, v('1.9'));
    assert.equal(r9.statusCode, 400);
    assert.equal(r9.json().errors[0].detail, `ClusterTemplate ${missing} could not be found.`);
    const r10 = await create('demo', { cluster_template_id: missing }, v('1.10'));
    assert.equal(r10.statusCode, 404);
    const none = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { name: 'x' } });
    assert.equal(none.statusCode, 400);
    assert.match(none.json().errors[0].detail, /cluster_template_id.*Mandatory field missing/);
  });

  test('node_count 0 only from 1.10; master_count > 1 needs a load balancer; read-only fields refused', async () => {
    assert.equal((await create('demo', { node_count: 0 }, v('1.9'))).statusCode, 400);
    assert.equal((await create('demo', { node_count: 0 }, v('1.10'))).statusCode, 202);
    const lb = await create('demo', { master_count: 3, master_lb_enabled: false });
    assert.equal(lb.statusCode, 400);
    assert.equal(lb.json().errors[0].detail, 'master_count must be 1 when master_lb_enabled is False');
    const ro = await create('demo', { api_address: 'x' });
    assert.equal(ro.statusCode, 400);
    assert.match(ro.json().errors[0].detail, /Cannot set read only field/);
    const bad = await create('demo', { name: '1abc' });
    assert.equal(bad.statusCode, 400);
  });

  test('an invalid label value is a 400 naming the label, and nothing is written', async () => {
    const before = await t.app.services.db.getRepository(ClusterEntity).count();
    const res = await create('demo', { labels: { kube_tag: 'v1.20.0' } });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().errors[0].detail, /label kube_tag/);
    assert.equal(await t.app.services.db.getRepository(ClusterEntity).count(), before);
  });

  test('readers may not create; other projects cannot see the cluster; admins see all', async () => {
    assert.equal((await create('demo-reader')).statusCode, 403);
    const { uuid } = (await create('demo', { name: 'mine' })).json();
    assert.equal((await t.as('other', { method: 'GET', url: `/v1/clusters/${uuid}` })).statusCode, 404);
    assert.equal((await t.as('demo-reader', { method: 'GET', url: `/v1/clusters/${uuid}` })).statusCode, 200);
    assert.equal((await t.as('admin', { method: 'GET', url: `/v1/clusters/${uuid}` })).statusCode, 200);
    const others = (await t.as('other', { method: 'GET', url: '/v1/clusters' })).json().clusters;
    assert.equal(others.some((c: { uuid: string }) => c.uuid === uuid), false);
    const all = (await t.as('admin', { method: 'GET', url: '/v1/clusters' })).json().clusters;
    assert.equal(all.some((c: { uuid: string }) => c.uuid === uuid), true);
  });
});

describe('views and lists', () => {
  test('list items carry the reduced view; /detail the full one; next only on a full page', async () => {
    await create('demo', { name: 'l1' });
    await create('demo', { name: 'l2' });
    const list = await t.as('demo', { method: 'GET', url: '/v1/clusters?limit=1&sort_key=name&sort_dir=desc' });
    assert.equal(list.statusCode, 200, list.body);
    const body = list.json();
    assert.equal(body.clusters.length, 1);
    assert.deepEqual(Object.keys(body.clusters[0]).sort(), [
      'cluster_id', 'cluster_template_id', 'create_timeout', 'docker_volume_size', 'flavor_id', 'health_status', 'keypair', 'labels',
      'links', 'master_count', 'master_flavor_id', 'merge_labels', 'name', 'node_count', 'stack_id', 'status', 'uuid',
    ]);
    assert.match(body.next, /\/v1\/clusters\?sort_key=name&sort_dir=desc&limit=1&marker=/);
    const detail = (await t.as('demo', { method: 'GET', url: '/v1/clusters/detail' })).json();
    assert.ok(detail.clusters.every((c: Record<string, unknown>) => 'api_address' in c && 'labels_added' in c));
    assert.equal('next' in detail, false);
    const old = (await t.as('demo', { method: 'GET', url: '/v1/clusters', headers: v('1.12') })).json();
    assert.equal('cluster_id' in old.clusters[0], false, 'cluster_id appears from 1.13');
  });

  test('sorting by an unknown or secret column is refused; names may repeat and then need the uuid', async () => {
    assert.equal((await t.as('demo', { method: 'GET', url: '/v1/clusters?sort_key=app_cred_secret' })).statusCode, 400);
    assert.equal((await t.as('demo', { method: 'GET', url: '/v1/clusters?sort_key=node_count' })).statusCode, 400);
    await create('demo', { name: 'twin' });
    await create('demo', { name: 'twin' });
    const res = await t.as('demo', { method: 'GET', url: '/v1/clusters/twin' });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().errors[0].detail, 'Multiple clusters exist with same name. Please use the cluster uuid instead.');
  });

  test('the event timeline and conditions are an extension old clients never ask for', async () => {
    const { uuid } = (await create('demo', { name: 'ev' })).json();
    const res = await t.as('demo', { method: 'GET', url: `/v1/clusters/${uuid}/events` });
    assert.equal(res.statusCode, 200, res.body);
    const ev = res.json();
    assert.equal(ev.status, 'CREATE_IN_PROGRESS');
    assert.equal(ev.conditions.network.status, 'Unknown');
    assert.equal(ev.events[0].reason, 'CreateAccepted');
    assert.equal((await t.as('other', { method: 'GET', url: `/v1/clusters/${uuid}/events` })).statusCode, 404);
  });
});

describe('PATCH', () => {
  test('only node_count and the health fields change; anything else is named in a 400', async () => {
    const { uuid } = (await create('demo', { name: 'p1' })).json();
    const res = await t.as('demo', { method: 'PATCH', url: `/v1/clusters/${uuid}`, payload: [{ op: 'replace', path: '/name', value: 'x' }] });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().errors[0].detail, 'cannot change cluster property(ies) name.');
    const internal = await t.as('demo', { method: 'PATCH', url: `/v1/clusters/${uuid}`, payload: [{ op: 'replace', path: '/api_address', value: 'x' }] });
    assert.equal(internal.json().errors[0].detail, "'/api_address' is an internal attribute and can not be updated");
  });

  test('node_count while the create runs is a 409 with the reason; after it completes a 202 that queues an update', async () => {
    const { uuid } = (await create('demo', { name: 'p2' })).json();
    const patch = [{ op: 'replace', path: '/node_count', value: 3 }];
    const busy = await t.as('demo', { method: 'PATCH', url: `/v1/clusters/${uuid}`, payload: patch });
    assert.equal(busy.statusCode, 409);
    assert.match(busy.json().errors[0].detail, /CREATE_IN_PROGRESS/);
    await finish(uuid);
    const ok = await t.as('demo', { method: 'PATCH', url: `/v1/clusters/${uuid}/?rollback=True`, payload: patch });
    assert.equal(ok.statusCode, 202, ok.body);
    assert.deepEqual(ok.json(), { uuid });
    const c = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${uuid}` })).json();
    assert.equal(c.status, 'UPDATE_IN_PROGRESS');
    assert.equal(c.node_count, 3);
    const again = await t.as('demo', { method: 'PATCH', url: `/v1/clusters/${uuid}`, payload: [{ op: 'replace', path: '/node_count', value: 4 }] });
    assert.equal(again.statusCode, 409);
  });

  test('?rollback= is an unknown argument below 1.3; node_count 0 below 1.10', async () => {
    const { uuid } = (await create('demo', { name: 'p3' })).json();
    await finish(uuid);
    const r = await t.as('demo', { method: 'PATCH', url: `/v1/clusters/${uuid}?rollback=true`, payload: [], headers: v('1.2') });
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().errors[0].detail, 'Unknown argument: "rollback"');
    const zero = await t.as('demo', { method: 'PATCH', url: `/v1/clusters/${uuid}`, payload: [{ op: 'replace', path: '/node_count', value: 0 }], headers: v('1.9') });
    assert.equal(zero.statusCode, 400);
  });

  test('the health fields alone are saved at once, in any state (the Python dict string of the client)', async () => {
    const { uuid } = (await create('demo', { name: 'p4' })).json();
    const res = await t.as('demo', {
      method: 'PATCH',
      url: `/v1/clusters/${uuid}`,
      payload: [
        { op: 'replace', path: '/health_status', value: 'UNHEALTHY' },
        { op: 'replace', path: '/health_status_reason', value: "{'api': 'down'}" },
      ],
    });
    assert.equal(res.statusCode, 202, res.body);
    const c = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${uuid}` })).json();
    assert.equal(c.health_status, 'UNHEALTHY');
    assert.deepEqual(c.health_status_reason, { api: 'down' });
    assert.equal(c.status, 'CREATE_IN_PROGRESS');
  });

  test('prototype paths are refused as any role, the reader before the patch is applied; no object of the process changes', async () => {
    const { uuid } = (await create('demo', { name: 'p5' })).json();
    const url = `/v1/clusters/${uuid}`;
    for (const path of ['/labels/__proto__/polluted', '/labels/constructor/prototype/polluted', '/__proto__/polluted', '/labels/prototype']) {
      const payload = [{ op: 'add', path, value: 'y' }];
      for (const user of ['demo-reader', 'demo', 'admin'] as const) {
        const res = await t.as(user, { method: 'PATCH', url, payload });
        assert.equal(res.statusCode, 400, `${user} ${path}: ${res.body}`);
        assert.match(res.json().errors[0].detail, /is not an attribute of any resource/);
      }
    }
    // The reader is refused by policy whatever the patch says (no patch is evaluated for it).
    const health = [{ op: 'replace', path: '/health_status', value: 'UNHEALTHY' }];
    assert.equal((await t.as('demo-reader', { method: 'PATCH', url, payload: health })).statusCode, 403);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
    const c = (await t.as('demo', { method: 'GET', url })).json();
    assert.equal(c.labels.polluted, undefined);
    assert.equal(c.health_status, null);
    // The service still answers every tenant afterwards.
    assert.equal((await t.as('other', { method: 'GET', url: '/v1/clusters' })).statusCode, 200);
  });
});

describe('actions', () => {
  test('resize: 406 below 1.7; master group 400; outside min/max 400; unknown group 404; otherwise 202', async () => {
    const { uuid } = (await create('demo', { name: 'r1' })).json();
    await finish(uuid);
    const url = `/v1/clusters/${uuid}/actions/resize`;
    assert.equal((await t.as('demo', { method: 'POST', url, payload: { node_count: 2 }, headers: v('1.6') })).statusCode, 406);
    const master = await t.as('demo', { method: 'POST', url, payload: { node_count: 2, nodegroup: 'default-master' } });
    assert.equal(master.json().errors[0].detail, 'Resizing a master nodegroup is not supported.');
    const missing = await t.as('demo', { method: 'POST', url, payload: { node_count: 2, nodegroup: 'nope' } });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().errors[0].detail, 'Nodegroup nope could not be found.');
    assert.equal((await t.as('demo', { method: 'POST', url, payload: { node_count: 0 }, headers: v('1.9') })).statusCode, 400);
    assert.equal((await t.as('demo-reader', { method: 'POST', url, payload: { node_count: 2 } })).statusCode, 403);
    const ok = await t.as('demo', { method: 'POST', url, payload: { node_count: 4, nodes_to_remove: [] } });
    assert.equal(ok.statusCode, 202, ok.body);
    assert.deepEqual(ok.json(), { uuid });
    const op = await t.app.services.db.getRepository(OperationEntity).findOneOrFail({ where: { cluster_id: uuid, kind: 'resize' } });
    assert.equal(op.params.node_count, 4);
    assert.equal(op.params.previous_node_count, 1);
  });

  test('upgrade: 400 at 1.7, one minor at a time, never down, only from a settled state', async () => {
    const mk = async (name: string, kube: string) =>
      (
        await t.as('demo', {
          method: 'POST',
          url: '/v1/clustertemplates',
          payload: { name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', master_lb_enabled: true, labels: { kube_tag: kube } },
        })
      ).json().uuid as string;
    const to35 = await mk('k35', 'v1.35.1');
    const to36 = await mk('k36', 'v1.36.0');
    const down = await mk('k33', 'v1.34.0');
    const { uuid } = (await create('demo', { name: 'u1' })).json();
    const url = `/v1/clusters/${uuid}/actions/upgrade`;
    const at17 = await t.as('demo', { method: 'POST', url, payload: { cluster_template: to35 }, headers: v('1.7') });
    assert.equal(at17.statusCode, 400);
    assert.equal(at17.json().errors[0].detail, 'Cluster upgrade is not supported in the provided microversion.');
    const early = await t.as('demo', { method: 'POST', url, payload: { cluster_template: to35 } });
    assert.equal(early.statusCode, 400);
    assert.equal(early.json().errors[0].detail, 'Upgrading a cluster when status is "CREATE_IN_PROGRESS" is not supported.');
    await finish(uuid);
    const skip = await t.as('demo', { method: 'POST', url, payload: { cluster_template: to36 } });
    assert.equal(skip.statusCode, 409);
    assert.match(skip.json().errors[0].detail, /skips a minor version.*1\.34\.x or 1\.35\.x/);
    const downgrade = await t.as('demo', { method: 'POST', url, payload: { cluster_template: down } });
    assert.equal(downgrade.statusCode, 400);
    assert.equal(downgrade.json().errors[0].detail, 'Received invalid tag for kube_tag.');
    assert.equal((await t.as('demo', { method: 'POST', url, payload: { cluster_template: 'nope' } })).statusCode, 404);
    const ok = await t.as('demo', { method: 'POST', url, payload: { cluster_template: to35, max_batch_size: 1 } });
    assert.equal(ok.statusCode, 202, ok.body);
    const op = await t.app.services.db.getRepository(OperationEntity).findOneOrFail({ where: { cluster_id: uuid, kind: 'upgrade' } });
    assert.deepEqual([op.params.from, op.params.to], ['v1.34.2', 'v1.35.1']);
  });
});

describe('delete', () => {
  test('204 in any state; a second delete is the same delete; other projects 404; the template stays referenced', async () => {
    const { uuid } = (await create('demo', { name: 'd1' })).json();
    assert.equal((await t.as('other', { method: 'DELETE', url: `/v1/clusters/${uuid}` })).statusCode, 404);
    assert.equal((await t.as('demo-reader', { method: 'DELETE', url: `/v1/clusters/${uuid}` })).statusCode, 403);
    assert.equal((await t.as('demo', { method: 'DELETE', url: `/v1/clusters/${uuid}`, headers: { 'content-type': 'application/octet-stream' } })).statusCode, 204);
    assert.equal((await t.as('demo', { method: 'DELETE', url: `/v1/clusters/${uuid}` })).statusCode, 204);
    const ops = await t.app.services.db.getRepository(OperationEntity).findBy({ cluster_id: uuid, kind: 'delete' });
    assert.equal(ops.length, 1);
    const c = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${uuid}` })).json();
    assert.equal(c.status, 'DELETE_IN_PROGRESS');
    assert.equal((await t.as('demo', { method: 'DELETE', url: `/v1/clustertemplates/${template}` })).statusCode, 400);
  });
});

describe('quota and credentials', () => {
  test('the cluster quota is enforced at create (403 in Magnum words)', async () => {
    const otherTemplate = (
      await t.as('other', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'o', coe: 'kubernetes', image_id: 'img' } })
    ).json().uuid;
    const pid = (await t.as('other', { method: 'GET', url: `/v1/clustertemplates/${otherTemplate}` })).json().project_id;
    assert.equal((await t.as('admin', { method: 'POST', url: '/v1/quotas', payload: { project_id: pid, resource: 'Cluster', hard_limit: 1 } })).statusCode, 201);
    assert.equal((await create('other', { cluster_template_id: otherTemplate })).statusCode, 202);
    const over = await create('other', { cluster_template_id: otherTemplate });
    assert.equal(over.statusCode, 403);
    assert.equal(
      over.json().errors[0].detail,
      'Resource limit exceeded: You have reached the maximum clusters per project, 1. You may delete a cluster to make room for a new one.',
    );
  });

  test('credential rotation (1.12+) replaces the application credential; below 1.12 it does not exist', async () => {
    const { uuid } = (await create('demo', { name: 'cr' })).json();
    await finish(uuid);
    const before = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid });
    assert.equal((await t.as('demo', { method: 'PATCH', url: `/v1/credentials/${uuid}`, headers: v('1.11') })).statusCode, 406);
    const res = await t.as('demo', { method: 'PATCH', url: `/v1/credentials/${uuid}`, headers: { ...v('1.12'), 'content-type': 'application/octet-stream' } });
    assert.equal(res.statusCode, 202, res.body);
    const after = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid });
    assert.notEqual(after.app_cred_id, before.app_cred_id);
    assert.equal(t.app.services.secretBox.open(after.app_cred_secret!, `app-cred:${uuid}`).length > 10, true);
  });

  test("credential:rotate is Magnum's project_member: another project's cluster is a 404 (its admin too), a reader a 403; nothing is made in Keystone", async () => {
    // The cluster of the test above (the project is at its cluster quota).
    const before = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ name: 'cr' });
    const uuid = before.uuid;
    const creds = () => t.keystone.state.appCreds.all().length;
    const made = creds();
    const rotate = (user: User) => t.as(user, { method: 'PATCH', url: `/v1/credentials/${uuid}` });
    for (const user of ['admin', 'other'] as const) {
      const res = await rotate(user);
      assert.equal(res.statusCode, 404, `${user}: ${res.body}`);
      assert.equal(res.json().errors[0].detail, `Cluster ${uuid} could not be found.`);
    }
    const reader = await rotate('demo-reader');
    assert.equal(reader.statusCode, 403, reader.body);
    assert.match(reader.json().errors[0].detail, /credential:rotate/);
    assert.equal(creds(), made, 'no application credential was made for any of them');
    const after = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid });
    assert.equal(after.app_cred_id, before.app_cred_id, 'the cluster keeps its credential');
  });
});

describe('bays (≤1.10)', () => {
  const bay = (version: string, payload: Record<string, unknown>) =>
    t.as('demo', { method: 'POST', url: '/v1/bays', payload: { baymodel_id: template, ...payload }, headers: v(version) });

  test('1.1 creates synchronously-shaped (201 + Location + the bay); 1.2 answers 202; 1.11 has no bays', async () => {
    const r1 = await bay('1.1', { name: 'b1' });
    assert.equal(r1.statusCode, 201, r1.body);
    assert.match(String(r1.headers.location), /\/v1\/bays\//);
    assert.equal(r1.json().baymodel_id, template);
    assert.equal(r1.json().bay_create_timeout, 60);
    const r2 = await bay('1.2', { name: 'b2' });
    assert.equal(r2.statusCode, 202);
    assert.equal((await bay('1.11', { name: 'b3' })).statusCode, 406);
    const unknown = await bay('1.2', { keypair_id: 'x' });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().errors[0].detail, 'Unknown attribute for argument bay: keypair_id');
    assert.equal((await bay('1.2', { node_count: 0 })).statusCode, 400);
    const list = (await t.as('demo', { method: 'GET', url: '/v1/bays', headers: v('1.10') })).json();
    assert.ok(list.bays.every((b: Record<string, unknown>) => b.floating_ip_enabled === true && 'baymodel_id' in b));
  });
});

describe('callers with an application credential', () => {
  async function appCredToken(unrestricted: boolean): Promise<string> {
    const userToken = await t.token('demo');
    const ks = t.keystone.app;
    const me = await ks.inject({ method: 'GET', url: '/v3/auth/tokens', headers: { 'x-auth-token': userToken, 'x-subject-token': userToken } });
    const userId = me.json().token.user.id;
    const made = await ks.inject({
      method: 'POST',
      url: `/v3/users/${userId}/application_credentials`,
      headers: { 'x-auth-token': userToken },
      payload: { application_credential: { name: `caller-${unrestricted}-${Date.now()}`, unrestricted } },
    });
    assert.equal(made.statusCode, 201, made.body);
    const { id, secret } = made.json().application_credential;
    const auth = await ks.inject({
      method: 'POST',
      url: '/v3/auth/tokens',
      payload: { auth: { identity: { methods: ['application_credential'], application_credential: { id, secret } } } },
    });
    assert.equal(auth.statusCode, 201, auth.body);
    return String(auth.headers['x-subject-token']);
  }
  const post = (token: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/clusters',
      headers: { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' },
      payload: { cluster_template_id: template },
    });

  test('a restricted one may not make the cluster its own credential: a clear 400, nothing written', async () => {
    const before = await t.app.services.db.getRepository(ClusterEntity).count();
    const res = await post(await appCredToken(false));
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().errors[0].detail, /may not create one/);
    assert.equal(await t.app.services.db.getRepository(ClusterEntity).count(), before);
  });

  test('an unrestricted one may', async () => {
    assert.equal((await post(await appCredToken(true))).statusCode, 202);
  });
});
