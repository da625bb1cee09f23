// Scope mistakes (issue 15, hole 5): a list marker the caller cannot see is a 404, never a page
// boundary; admin rights need a project-scoped token (a domain- or system-scoped one writes no row of
// no project); cluster:update_health_status is the cluster creator's or an admin's.
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { ClusterTemplateEntity } from '../../src/db/entities/cluster-template.js';
import { QuotaEntity } from '../../src/db/entities/quota.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import { testApp, type TestApp } from '../support/app.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
let demo: string;
let other: string;

before(async () => {
  t = await testApp();
  demo = t.keystone.state.projectId('demo');
  other = t.keystone.state.projectId('other');
});
after(() => t.close());

const detail = (r: { json(): unknown }) => (r.json() as { errors: { detail: string }[] }).errors[0]!.detail;

/** A token of `user` with `scope` (Keystone's auth.scope), from the simulated Keystone. */
async function scopedToken(user: 'admin' | 'demo', scope: object): Promise<string> {
  const res = await t.keystone.app.inject({
    method: 'POST',
    url: '/v3/auth/tokens?nocatalog',
    payload: {
      auth: { identity: { methods: ['password'], password: { user: { name: user, domain: { id: 'default' }, password: BUILTIN_USERS[user].password } } }, scope },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return String(res.headers['x-subject-token']);
}

const withToken = (token: string, opts: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object }) =>
  t.app.inject({ ...opts, headers: { 'x-auth-token': token, 'openstack-api-version': 'container-infra latest' } });

describe('list markers of another project', () => {
  test('clusters, templates, node groups and quotas: 404 naming the marker, whatever the sort', async () => {
    const theirs = await insertCluster(t.app, { user: t.keystone.state.userId('other'), project: other, nodegroups: true, pki: false });
    const mine = await nodegroupCluster(t);
    for (const sort of ['', '&sort_key=name', '&sort_key=created_at&sort_dir=desc']) {
      const c = await t.as('demo', { method: 'GET', url: `/v1/clusters?marker=${theirs.cluster.uuid}${sort}` });
      assert.equal(c.statusCode, 404, c.body);
      assert.equal(detail(c), `Cluster ${theirs.cluster.uuid} could not be found.`);
      const ct = await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/detail?marker=${theirs.template.uuid}${sort}` });
      assert.equal(ct.statusCode, 404, ct.body);
      assert.equal(detail(ct), `ClusterTemplate ${theirs.template.uuid} could not be found.`);
    }
    // Another cluster's node group (of the caller's own project too) is no page boundary of this cluster's list.
    const elsewhere = await nodegroupCluster(t);
    const ng = await t.as('demo', { method: 'GET', url: `/v1/clusters/${mine.cluster.uuid}/nodegroups?marker=${elsewhere.worker.uuid}` });
    assert.equal(ng.statusCode, 404, ng.body);
    // The caller's own markers still page.
    const own = await t.as('demo', { method: 'GET', url: `/v1/clusters?marker=${mine.cluster.uuid}` });
    assert.equal(own.statusCode, 200, own.body);
    // An admin's public template is a boundary for everyone (it is listed to them).
    const { id: _id, ...copy } = theirs.template;
    const pub = { ...copy, uuid: randomUUID(), public: true };
    await t.app.services.db.getRepository(ClusterTemplateEntity).insert(pub);
    assert.equal((await t.as('demo', { method: 'GET', url: `/v1/clustertemplates?marker=${pub.uuid}` })).statusCode, 200);
  });

  test('quotas: an admin without all_tenants pages its own project only', async () => {
    const quotas = t.app.services.db.getRepository(QuotaEntity);
    const theirs = await quotas.save({ project_id: other, resource: 'Cluster', hard_limit: 3, created_at: new Date(), updated_at: null });
    const mine = await quotas.save({ project_id: t.keystone.state.projectId('admin'), resource: 'Cluster', hard_limit: 3, created_at: new Date(), updated_at: null });
    const r = await t.as('admin', { method: 'GET', url: `/v1/quotas?marker=${theirs.id}` });
    assert.equal(r.statusCode, 404, r.body);
    assert.equal(detail(r), `Quota could not be found: quota id ${theirs.id} .`);
    assert.equal((await t.as('admin', { method: 'GET', url: `/v1/quotas?marker=${mine.id}` })).statusCode, 200);
    assert.equal((await t.as('admin', { method: 'GET', url: `/v1/quotas?all_tenants=true&marker=${theirs.id}` })).statusCode, 200);
  });
});

describe('admin rights need a project-scoped token', () => {
  test('a system-scoped admin may not create templates or clusters, nor read them; Magnum’s unscoped admin rules (quotas, services) it may', async () => {
    const system = await scopedToken('admin', { system: { all: true } });
    const rows = () => t.app.services.db.getRepository(ClusterTemplateEntity).count();
    const before = await rows();
    const create = await withToken(system, { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'sys', coe: 'kubernetes', image_id: 'ubuntu-24.04' } });
    assert.equal(create.statusCode, 403, create.body);
    assert.equal(detail(create), "Policy doesn't allow clustertemplate:create to be performed.");
    assert.equal(await rows(), before);
    assert.equal((await withToken(system, { method: 'GET', url: '/v1/clusters' })).statusCode, 403);
    assert.equal((await withToken(system, { method: 'GET', url: '/v1/stats' })).statusCode, 403);
    assert.equal((await withToken(system, { method: 'GET', url: '/v1/quotas?all_tenants=true' })).statusCode, 200);
    const quota = await withToken(system, { method: 'POST', url: '/v1/quotas', payload: { project_id: demo, resource: 'Cluster', hard_limit: 7 } });
    assert.equal(quota.statusCode, 201, quota.body);
    assert.equal((await withToken(system, { method: 'GET', url: '/v1/mservices' })).statusCode, 200);
  });

  test('a domain-scoped token with the admin role is no admin at all: every call is refused, nothing is written', async () => {
    t.keystone.state.grant(t.keystone.state.userId('admin'), { kind: 'domain', id: 'default' }, t.keystone.state.roleId('admin'));
    const domainToken = await scopedToken('admin', { domain: { id: 'default' } });
    const count = () => Promise.all([ClusterTemplateEntity, ClusterEntity, QuotaEntity].map((e) => t.app.services.db.getRepository(e).count()));
    const before = await count();
    for (const [method, url, payload] of [
      ['POST', '/v1/clustertemplates', { name: 'dom', coe: 'kubernetes', image_id: 'ubuntu-24.04' }],
      ['POST', '/v1/quotas', { project_id: other, resource: 'Cluster', hard_limit: 9 }],
      ['GET', '/v1/clusters', undefined],
      ['GET', '/v1/clustertemplates', undefined],
      ['GET', '/v1/quotas', undefined],
      ['GET', '/v1/mservices', undefined],
    ] as const) {
      const r = await withToken(domainToken, { method, url, ...(payload ? { payload } : {}) });
      assert.equal(r.statusCode, 403, `${method} ${url}: ${r.body}`);
    }
    assert.deepEqual(await count(), before);
  });
});

describe('no all-projects widening where Magnum has none', () => {
  test('an admin of another project rotating a cluster’s credential: 404, the cluster untouched', async () => {
    const fx = await nodegroupCluster(t);
    const r = await t.as('admin', { method: 'PATCH', url: `/v1/credentials/${fx.cluster.uuid}` });
    assert.equal(r.statusCode, 404, r.body);
    assert.equal(detail(r), `Cluster ${fx.cluster.uuid} could not be found.`);
    const row = await t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid: fx.cluster.uuid });
    assert.equal(row.app_cred_id, null);
  });
});

describe('cluster:update_health_status', () => {
  test('the creator and an admin report health; another member of the project may not (403), though it may resize', async () => {
    const state = t.keystone.state;
    const colleague = state.createUser('demo-colleague', 'colleague-secret', demo);
    state.assignRole(colleague, demo, 'member');
    const res = await t.keystone.app.inject({
      method: 'POST',
      url: '/v3/auth/tokens?nocatalog',
      payload: {
        auth: {
          identity: { methods: ['password'], password: { user: { name: 'demo-colleague', domain: { id: 'default' }, password: 'colleague-secret' } } },
          scope: { project: { id: demo } },
        },
      },
    });
    const token = String(res.headers['x-subject-token']);
    const fx = await nodegroupCluster(t);
    const url = `/v1/clusters/${fx.cluster.uuid}`;
    const health = [{ op: 'replace', path: '/health_status', value: 'UNHEALTHY' }];
    const refused = await withToken(token, { method: 'PATCH', url, payload: health });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(detail(refused), "Policy doesn't allow cluster:update_health_status to be performed.");
    const row = () => t.app.services.db.getRepository(ClusterEntity).findOneByOrFail({ uuid: fx.cluster.uuid });
    assert.equal((await row()).health_status, null);
    assert.equal((await t.as('demo', { method: 'PATCH', url, payload: health })).statusCode, 202);
    assert.equal((await row()).health_status, 'UNHEALTHY');
    const healed = [{ op: 'replace', path: '/health_status', value: 'HEALTHY' }];
    assert.equal((await t.as('admin', { method: 'PATCH', url, payload: healed })).statusCode, 202);
    assert.equal((await row()).health_status, 'HEALTHY');
    // A node count change is cluster:update, which any member has.
    const grow = await withToken(token, { method: 'PATCH', url, payload: [{ op: 'replace', path: '/node_count', value: 2 }] });
    assert.equal(grow.statusCode, 202, grow.body);
  });
});
