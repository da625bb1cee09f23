// GET /v1/stats (spec §3.8): clusters and nodes (every node group, masters included) of the
// caller's project, another project (admin) or all projects (admin without project_id).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ClusterEntity } from '../../../../src/db/entities/cluster.js';
import { ClusterTemplateEntity } from '../../../../src/db/entities/cluster-template.js';
import { NodeGroupEntity } from '../../../../src/db/entities/nodegroup.js';
import { testApp, type TestApp, type User } from '../../../support/app.js';

let t: TestApp;
let demo: string;
let other: string;

/** A cluster row and its node groups, `[role, node_count]` each (the cluster API is not part of this suite). */
async function cluster(projectId: string, groups: [string, number][]) {
  const db = t.app.services.db;
  const uuid = randomUUID();
  await db.getRepository(ClusterEntity).insert({ uuid, name: 'c', project_id: projectId, user_id: 'u', cluster_template_id: template, status: 'CREATE_COMPLETE', created_at: new Date() });
  for (const [i, [role, count]] of groups.entries()) {
    await db.getRepository(NodeGroupEntity).insert({ uuid: randomUUID(), name: `ng-${i}`, cluster_id: uuid, project_id: projectId, node_count: count, role, created_at: new Date() });
  }
}

const template = randomUUID();
before(async () => {
  t = await testApp();
  demo = t.keystone.state.projectId('demo');
  other = t.keystone.state.projectId('other');
  await t.app.services.db.getRepository(ClusterTemplateEntity).insert({
    uuid: template, name: 'tpl', project_id: demo, user_id: 'u', coe: 'kubernetes', image_id: 'img', created_at: new Date(),
  } as never);
  await cluster(demo, [['master', 1], ['worker', 3], ['worker', 2]]);
  await cluster(demo, [['master', 3], ['worker', 0]]);
  await cluster(other, [['master', 1], ['worker', 1]]);
  await cluster(other, []); // no node groups (yet): a cluster, no nodes
});
after(() => t.close());

const stats = (user: User, query = '', headers: Record<string, string> = {}) => t.as(user, { method: 'GET', url: `/v1/stats${query}`, headers });
const err = (r: { json(): unknown }) => (r.json() as { errors: { detail: string; status: number }[] }).errors[0]!;

const DEMO = { clusters: 2, nodes: 9 };
const OTHER = { clusters: 2, nodes: 2 };

const allowed: [User, string, { clusters: number; nodes: number }][] = [
  ['admin', '', { clusters: 4, nodes: 11 }],
  ['admin', '?project_id=', { clusters: 4, nodes: 11 }],
  ['admin', '?project_id=DEMO', DEMO],
  ['admin', '?project_id=OTHER', OTHER],
  ['admin', '?project_id=empty-project', { clusters: 0, nodes: 0 }],
  ['admin', '?type=CLUSTER', { clusters: 4, nodes: 11 }],
  ['demo', '', DEMO],
  ['demo', '?project_id=DEMO&type=cluster', DEMO],
  ['demo-reader', '', DEMO],
  ['demo-reader', '?project_id=DEMO', DEMO],
  ['other', '', OTHER],
  ['other', '?project_id=', OTHER],
];
for (const [user, query, expected] of allowed) {
  test(`${user} ${query || '(no parameters)'} → ${JSON.stringify(expected)}`, async () => {
    const r = await stats(user, query.replace('DEMO', demo).replace('OTHER', other));
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), expected);
  });
}

test('non-admins asking for another project: 403 "Not authorized."', async () => {
  for (const [user, project] of [['demo', other], ['demo-reader', other], ['other', demo]] as const) {
    const r = await stats(user, `?project_id=${project}`);
    assert.equal(r.statusCode, 403, user);
    assert.equal(err(r).detail, 'Not authorized.');
  }
});

test('a type other than cluster is 400, checked before the project', async () => {
  for (const [user, query] of [['admin', '?type=node'], ['demo', `?type=nodes&project_id=${other}`], ['other', '?type=']] as const) {
    const r = await stats(user, query);
    assert.equal(r.statusCode, 400, `${user} ${query}`);
    assert.equal(err(r).detail, "Invalid stats type. Allowed values are 'cluster'");
  }
});

test('unknown arguments are 400', async () => {
  const r = await stats('admin', '?all_tenants=1');
  assert.equal(r.statusCode, 400);
  assert.equal(err(r).detail, 'Unknown argument: "all_tenants"');
});

test('not gated by microversion: works at 1.1', async () => {
  const r = await stats('demo', '', { 'openstack-api-version': 'container-infra 1.1' });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), DEMO);
});

test('without a token: 401', async () => {
  assert.equal((await t.app.inject({ method: 'GET', url: '/v1/stats' })).statusCode, 401);
});
