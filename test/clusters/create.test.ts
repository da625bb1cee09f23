// A cluster create (src/clusters/create.ts) against the simulated cloud: planCreate checks in Magnum's order
// and bills it, writing nothing (what the dry-run shows); startCreate refuses a shortage before anything is
// made, else makes the cluster's credential and writes, in one transaction, the row, its default node
// groups, its CAs, the create and its events (the label warnings among them); a refusal at the insert (the
// cluster quota) deletes the credential it made.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultNodegroups, planCreate, startCreate, type CreateRequest } from '../../src/clusters/create.js';
import { ApiError } from '../../src/domain/errors.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { clusterRow, templateRow } from '../support/rows.js';

let t: TestApp;
let project: string;
before(async () => {
  t = await testApp({ cloud: true, config: (c) => (c.limits.maxNodeCount = 10) });
  project = t.keystone.state.projectId('demo');
  for (const [name, extra] of [
    ['k8s', { master_lb_enabled: true, labels: { kube_tag: 'v1.35.2', a: '1' } }],
    ['nolb', { labels: { kube_tag: 'v1.35.2' } }],
    ['dm', { docker_storage_driver: 'devicemapper', docker_volume_size: 10, labels: { kube_tag: 'v1.35.2' } }],
  ] as const) {
    const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', keypair_id: null, ...extra } });
    assert.equal(r.statusCode, 201, r.body);
  }
});
after(() => t.close());

const V = (minor: number) => ({ major: 1, minor });
const is = (status: number, message: string | RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));
const count = async (table: string) => Number((await t.app.services.db.query(`SELECT count(*) AS n FROM ${table}`))[0].n);
const written = async () => [await count('cluster'), await count('nodegroup'), await count('operation'), t.keystone.state.appCreds.all().length];

test('planned: the row from the request and its template, the default groups, the warnings and the bill; nothing written', async () => {
  const before = await written();
  const plan = await planCreate(t.app.services, await callerOf(t, 'demo'), { cluster_template_id: 'k8s', name: 'p1', node_count: 2, master_count: 3, labels: { b: '2', bogus_label: 'x' }, merge_labels: true }, V(14), 'cluster');
  assert.deepEqual([plan.row.name, plan.row.status, plan.row.master_lb_enabled, plan.row.flavor_id, plan.row.create_timeout], ['p1', 'CREATE_IN_PROGRESS', true, 'm1.small', 60]);
  assert.deepEqual(plan.row.labels, { kube_tag: 'v1.35.2', a: '1', b: '2', bogus_label: 'x' });
  assert.deepEqual(plan.groups.map((g) => [g.name, g.role, g.node_count, g.flavor_id]), [['default-master', 'master', 3, 'm1.medium'], ['default-worker', 'worker', 2, 'm1.small']]);
  assert.ok(plan.warnings.some((w) => /bogus_label/.test(w)));
  const line = (q: string) => plan.bill.lines.find((l) => l.quota === q)!;
  assert.deepEqual([line('clusters').needed, line('instances').needed, line('cores').needed, line('load_balancer').needed], [1, 5, 8, 1]);
  assert.deepEqual(await written(), before);
});

test('started: credential, row, groups, CAs, the create and its events (label warnings too), all at once', async () => {
  const demo = await callerOf(t, 'demo');
  const plan = await planCreate(t.app.services, demo, { cluster_template_id: 'k8s', name: 'c1', labels: { bogus_label: 'x' }, merge_labels: true }, V(14), 'cluster');
  const creds = t.keystone.state.appCreds.all().length;
  await startCreate(t.app.services, demo, plan);
  const uuid = plan.row.uuid;
  const [row] = await t.app.services.db.query(`SELECT status, app_cred_id, app_cred_secret, app_cred_user_id FROM cluster WHERE uuid = $1`, [uuid]);
  assert.equal(row.status, 'CREATE_IN_PROGRESS');
  assert.equal(t.keystone.state.appCreds.all().length, creds + 1);
  assert.equal(t.keystone.state.appCreds.all().find((c) => c.id === row.app_cred_id)?.name, uuid);
  assert.equal(row.app_cred_user_id, demo.ctx.userId);
  assert.ok(t.app.services.secretBox.open(row.app_cred_secret, `app-cred:${uuid}`));
  assert.equal((await t.app.services.db.query(`SELECT id FROM nodegroup WHERE cluster_id = $1`, [uuid])).length, 2);
  assert.deepEqual((await t.app.services.db.query(`SELECT kind FROM cluster_certificate WHERE cluster_id = $1 ORDER BY kind`, [uuid])).map((r: { kind: string }) => r.kind), ['etcd', 'front_proxy', 'kubernetes', 'service_account']);
  const [op] = await t.app.services.db.query(`SELECT kind, state FROM operation WHERE cluster_id = $1`, [uuid]);
  assert.equal(op.kind, 'create');
  assert.ok(['pending', 'queued'].includes(op.state), `${op.state}: written, the relay may already have queued it`);
  const events = await t.app.services.db.query(`SELECT reason, severity, message FROM cluster_event WHERE cluster_id = $1 ORDER BY id`, [uuid]);
  assert.equal(events[0].reason, 'CreateAccepted');
  assert.match(events[0].message, /^Create of 1 control-plane and 1 worker node\(s\) accepted\.$/);
  assert.ok(events.some((e: { reason: string; severity: string; message: string }) => e.reason === 'LabelWarning' && e.severity === 'warning' && /bogus_label/.test(e.message)));
});

test('the checks in Magnum’s order, each before anything is made', async () => {
  const demo = await callerOf(t, 'demo');
  const plan = (body: CreateRequest, minor = 14, flavor: 'cluster' | 'bay' = 'cluster', who = demo) => planCreate(t.app.services, who, body, V(minor), flavor);
  await assert.rejects(plan({ cluster_template_id: 'ghost', node_count: 11 }), is(400, /^Invalid input for field\/attribute node_count\. Value: '11'\. Value should be lower or equal to 10$/), 'the maximum before the template');
  await assert.rejects(plan({ name: 'x' }), is(400, "Invalid input for field/attribute cluster_template_id. Value: 'None'. Mandatory field missing."));
  await assert.rejects(plan({ cluster_template_id: 'ghost' }, 10), is(404, 'ClusterTemplate ghost could not be found.'));
  await assert.rejects(plan({ cluster_template_id: 'ghost' }, 9), is(400, 'ClusterTemplate ghost could not be found.'));
  await assert.rejects(plan({ baymodel_id: 'ghost' }, 10, 'bay'), is(400, 'ClusterTemplate ghost could not be found.'));
  await assert.rejects(plan({ cluster_template_id: 'dm', docker_volume_size: 2 }), is(400, /expecting minimum value 3GB for devicemapper storage$/));
  await assert.rejects(plan({ cluster_template_id: 'k8s' }, 14, 'cluster', await callerOf(t, 'demo-reader')), is(403, "Policy doesn't allow cluster:create to be performed."));
  await assert.rejects(plan({ cluster_template_id: 'nolb', master_count: 3 }), is(400, 'master_count must be 1 when master_lb_enabled is False'));
  await assert.rejects(plan({ cluster_template_id: 'k8s', node_count: 0 }, 9), is(400, 'Resizing a nodegroup to zero is not supported in the provided microversion.'));
  await assert.rejects(plan({ cluster_template_id: 'k8s', labels: { kube_tag: 'v1.20.0' } }), is(400, /^Invalid input for label kube_tag\./));
  await assert.rejects(plan({ cluster_template_id: 'k8s', labels: { availability_zone: 'mars' } }), is(400, /The cloud offers no availability zone mars/));
  await assert.rejects(plan({ cluster_template_id: 'k8s', keypair: 'no-such-key' }), is(404, 'Unable to find keypair no-such-key.'));
});

test('a bay: its baymodel’s keypair and its own timeout field', async () => {
  const r = await t.as('demo', { method: 'POST', url: '/v1/baymodels', headers: { 'openstack-api-version': 'container-infra 1.10' }, payload: { name: 'bm', coe: 'kubernetes', image_id: 'ubuntu-24.04', keypair_id: 'kp', labels: { kube_tag: 'v1.35.2' } } });
  assert.equal(r.statusCode, 201, r.body);
  const plan = await planCreate({ ...t.app.services, preflight: { ...t.app.services.preflight, assess: async () => ({ checked: false, lines: [] }), checkZones: async () => undefined, fixedSubnetCidr: async () => undefined } as never }, await callerOf(t, 'demo'), { baymodel_id: 'bm', bay_create_timeout: 30, keypair: 'ignored' }, V(10), 'bay');
  assert.deepEqual([plan.row.keypair, plan.row.create_timeout], ['kp', 30]);
  assert.match(plan.row.name, /-bay$/);
});

test('a shortage is refused before anything is made; the cluster quota, met at the insert, deletes the credential it made', async () => {
  const demo = await callerOf(t, 'demo');
  t.cloud!.nova.setQuota(project, { cores: 1 });
  try {
    const plan = await planCreate(t.app.services, demo, { cluster_template_id: 'k8s' }, V(14), 'cluster');
    const before = await written();
    await assert.rejects(startCreate(t.app.services, demo, plan), is(403, /cores: needed 3, in use \d+, (held by accepted operations \d+, )?limit 1/));
    assert.deepEqual(await written(), before);
  } finally {
    t.cloud!.nova.quotas.delete(project);
  }
  const plan = await planCreate(t.app.services, demo, { cluster_template_id: 'k8s' }, V(14), 'cluster');
  await t.app.services.db.query(`INSERT INTO quota (project_id, resource, hard_limit, created_at) VALUES ($1, 'Cluster', 0, now())`, [project]);
  try {
    const before = await written();
    await assert.rejects(startCreate(t.app.services, demo, plan), is(403, 'Resource limit exceeded: You have reached the maximum clusters per project, 0. You may delete a cluster to make room for a new one.'));
    assert.deepEqual(await written(), before, 'nothing written, and the credential made for it deleted');
  } finally {
    await t.app.services.db.query(`DELETE FROM quota WHERE project_id = $1`, [project]);
  }
});

describe('defaultNodegroups', () => {
  const tpl = templateRow();
  test('a master and a worker group of the counts, min_node_count from its label, no maximum', () => {
    const c = clusterRow(tpl, { labels: { min_node_count: '2' }, master_flavor_id: null });
    const [m, w] = defaultNodegroups(c, tpl, 3, 4);
    assert.deepEqual([m!.name, m!.node_count, m!.min_node_count, m!.flavor_id], ['default-master', 3, 1, c.flavor_id], 'the worker flavor when the cluster has no master flavor');
    assert.deepEqual([w!.name, w!.node_count, w!.min_node_count, w!.max_node_count, w!.is_default], ['default-worker', 4, 2, null, true]);
  });

  test('the worker maximum: the label (never below the count); for an autoscaled cluster without it, one more', () => {
    const max = (labels: Record<string, string>, n = 3) => defaultNodegroups(clusterRow(tpl, { labels }), tpl, 1, n)[1]!.max_node_count;
    assert.equal(max({ max_node_count: '10' }), 10);
    assert.equal(max({ max_node_count: '2' }), 3);
    assert.equal(max({ auto_scaling_enabled: 'true' }), 4);
    assert.equal(max({ auto_scaling_enabled: 'false' }), null);
    assert.equal(max({ auto_scaling_enabled: 'sometimes' }), null);
  });
});
