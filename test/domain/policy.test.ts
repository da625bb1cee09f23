// Policy in code (src/domain/policy.ts): the checks and scope types of the rules as a table over callers;
// then the policy matrix (issue 15): every operation of openapi/magnum-v1.json, called as each persona
// (no token, expired, revoked, reader, member, admin of the project, member and admin of another
// project), answers the status derived from the one table of Magnum's policies
// (test/support/magnum-policy.ts). Allowed calls really run, each on its own fresh resources; an
// operation of the document without an entry in the table, or in this file's request builders, fails.
// Then the scope mistakes of issue 15 hole 5: admin rights need a project-scoped token (a domain- or
// system-scoped one writes no row of no project), no all-projects widening where Magnum has none, and
// cluster:update_health_status is the cluster creator's or an admin's.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { ClusterTemplateEntity } from '../../src/db/entities/cluster-template.js';
import { QuotaEntity } from '../../src/db/entities/quota.js';
import { ApiError } from '../../src/domain/errors.js';
import { allowed, enforce, ruleDef, type Rule, type Target } from '../../src/domain/policy.js';
import { authContext } from '../support/contexts.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import { testApp, passwordToken, type TestApp } from '../support/app.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { expectedStatus, MAGNUM_POLICY, PERSONAS, type Persona } from '../support/magnum-policy.js';
import { insertNodegroup, nodegroupCluster, type ClusterFixture } from '../support/nodegroup-fixture.js';
import { opensslCsr } from '../support/openssl.js';

const doc = JSON.parse(readFileSync(new URL('../../openapi/magnum-v1.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));

let t: TestApp;
let clockOffset = 0;
const tokens = new Map<string, string | undefined>();
let demo: string;
let shared: ClusterFixture;
let publicTemplate: string;
let upgradeTarget: string;
let csr: string;

before(async () => {
  t = await testApp({ listen: true, keystone: { now: () => Date.now() + clockOffset } });
  const ks = t.keystone.state;
  demo = ks.projectId('demo');
  const demoAdmin = ks.createUser('demo-admin', 'demo-admin-secret', demo);
  ks.assignRole(demoAdmin, demo, 'admin');
  clockOffset = -2 * 3600_000;
  const expired = await t.token('demo');
  clockOffset = 0;
  const revoked = await t.token('demo');
  assert.ok(ks.revokeToken(revoked));
  const byName: Record<string, string | undefined> = {
    'no token': undefined,
    'expired token': expired,
    'revoked token': revoked,
    reader: await t.token('demo-reader'),
    'member (the creator)': await t.token('demo'),
    'admin of the project': await passwordToken(t.keystone, 'demo-admin', 'demo-admin-secret', 'demo'),
    'member of another project': await t.token('other'),
    'admin of another project': await t.token('admin'),
  };
  for (const [k, v] of Object.entries(byName)) tokens.set(k, v);
  shared = await fresh({ pki: true });
  const template = async (labels: Record<string, string>) => {
    const r = await t.as('admin', {
      method: 'POST',
      url: '/v1/clustertemplates',
      payload: { name: `pub-${randomUUID().slice(0, 6)}`, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', public: true, labels },
    });
    assert.equal(r.statusCode, 201, r.body);
    return r.json().uuid as string;
  };
  publicTemplate = await template({ kube_tag: 'v1.35.2' });
  upgradeTarget = await template({ kube_tag: 'v1.36.0' });
  await t.app.services.db.getRepository(QuotaEntity).save({ project_id: demo, resource: 'Cluster', hard_limit: 1000, created_at: new Date(), updated_at: null });
  csr = opensslCsr().csr;
});
after(() => t.close());

/** A settled cluster of user demo in project demo, with its two default node groups. */
async function fresh(opts: { pki?: boolean } = {}): Promise<ClusterFixture> {
  if (!opts.pki) return nodegroupCluster(t);
  const { cluster, template } = await insertCluster(t.app, { user: t.keystone.state.userId('demo'), project: demo, nodegroups: true });
  const groups = await t.app.services.clusters.nodegroups([cluster.uuid]);
  return { cluster, template, master: groups.find((g) => g.role === 'master')!, worker: groups.find((g) => g.role === 'worker')! };
}

const name = () => `m-${randomUUID().slice(0, 8)}`;
async function demoTemplate(): Promise<string> {
  const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: name(), coe: 'kubernetes', image_id: 'ubuntu-24.04' } });
  return r.json().uuid as string;
}

type Req = Omit<InjectOptions, 'headers'> & { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; version?: string; stream?: boolean };
const template = { name: 'x', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public' };
const V10 = '1.10';

/** How each operation is called: on shared resources when it changes nothing, on fresh ones when it does. */
const REQUESTS: Record<string, () => Promise<Req> | Req> = {
  'GET /': () => ({ method: 'GET', url: '/' }),
  'GET /v1': () => ({ method: 'GET', url: '/v1' }),
  'GET /portal/login': () => ({ method: 'GET', url: '/portal/login' }),
  'POST /portal/login': () => ({ method: 'POST', url: '/portal/login', payload: { method: 'password', username: 'demo', password: 'demo-secret' } }),
  'GET /portal/session': () => ({ method: 'GET', url: '/portal/session' }),
  'POST /portal/logout': () => ({ method: 'POST', url: '/portal/logout' }),
  'POST /bootstrap/v1/material': () => ({ method: 'POST', url: '/bootstrap/v1/material' }),
  ...Object.fromEntries(
    (['clustertemplates', 'baymodels'] as const).flatMap((coll) => {
      const version = coll === 'baymodels' ? V10 : undefined;
      const body = coll === 'baymodels' ? { ...template, keypair_id: 'kp' } : template;
      return [
        [`GET /v1/${coll}`, () => ({ method: 'GET', url: `/v1/${coll}`, version })],
        [`GET /v1/${coll}/detail`, () => ({ method: 'GET', url: `/v1/${coll}/detail`, version })],
        [`POST /v1/${coll}`, () => ({ method: 'POST', url: `/v1/${coll}`, payload: { ...body, name: name() }, version })],
        [`GET /v1/${coll}/{ident}`, () => ({ method: 'GET', url: `/v1/${coll}/${shared.template.uuid}`, version })],
        [`PATCH /v1/${coll}/{ident}`, () => ({ method: 'PATCH', url: `/v1/${coll}/${shared.template.uuid}`, payload: [{ op: 'replace', path: '/name', value: name() }], version })],
        [`DELETE /v1/${coll}/{ident}`, async () => ({ method: 'DELETE', url: `/v1/${coll}/${await demoTemplate()}`, version })],
      ];
    }),
  ),
  ...Object.fromEntries(
    (['clusters', 'bays'] as const).flatMap((coll) => {
      const version = coll === 'bays' ? V10 : undefined;
      const create = coll === 'bays' ? { baymodel_id: 'TEMPLATE' } : { cluster_template_id: 'TEMPLATE' };
      return [
        [`GET /v1/${coll}`, () => ({ method: 'GET', url: `/v1/${coll}`, version })],
        [`GET /v1/${coll}/detail`, () => ({ method: 'GET', url: `/v1/${coll}/detail`, version })],
        [`POST /v1/${coll}`, () => ({ method: 'POST', url: `/v1/${coll}`, payload: JSON.parse(JSON.stringify({ ...create, name: name() }).replace('TEMPLATE', publicTemplate)), version })],
        [`GET /v1/${coll}/{ident}`, () => ({ method: 'GET', url: `/v1/${coll}/${shared.cluster.uuid}`, version })],
        [`PATCH /v1/${coll}/{ident}`, async () => ({ method: 'PATCH', url: `/v1/${coll}/${(await fresh()).cluster.uuid}`, payload: [{ op: 'replace', path: '/node_count', value: 2 }], version })],
        [`DELETE /v1/${coll}/{ident}`, async () => ({ method: 'DELETE', url: `/v1/${coll}/${(await fresh()).cluster.uuid}`, version })],
      ];
    }),
  ),
  'POST /v1/clusters/{ident}/actions/resize': async () => ({ method: 'POST', url: `/v1/clusters/${(await fresh()).cluster.uuid}/actions/resize`, payload: { node_count: 2 } }),
  'POST /v1/clusters/{ident}/actions/upgrade': async () => ({ method: 'POST', url: `/v1/clusters/${(await fresh()).cluster.uuid}/actions/upgrade`, payload: { cluster_template: upgradeTarget } }),
  'PATCH /v1/credentials/{ident}': async () => ({ method: 'PATCH', url: `/v1/credentials/${(await fresh()).cluster.uuid}` }),
  'GET /v1/clusters/{cluster}/nodegroups': () => ({ method: 'GET', url: `/v1/clusters/${shared.cluster.uuid}/nodegroups` }),
  'GET /v1/clusters/{cluster}/nodegroups/{nodegroup}': () => ({ method: 'GET', url: `/v1/clusters/${shared.cluster.uuid}/nodegroups/${shared.worker.uuid}` }),
  'GET /v1/clusters/{cluster}/nodegroups/{nodegroup}/nodes': () => ({ method: 'GET', url: `/v1/clusters/${shared.cluster.uuid}/nodegroups/${shared.worker.uuid}/nodes` }),
  'POST /v1/clusters/{cluster}/nodegroups': async () => ({ method: 'POST', url: `/v1/clusters/${(await fresh()).cluster.uuid}/nodegroups`, payload: { name: name() } }),
  'PATCH /v1/clusters/{cluster}/nodegroups/{nodegroup}': async () => {
    const fx = await fresh();
    return { method: 'PATCH', url: `/v1/clusters/${fx.cluster.uuid}/nodegroups/${fx.worker.uuid}`, payload: [{ op: 'add', path: '/max_node_count', value: 5 }] };
  },
  'DELETE /v1/clusters/{cluster}/nodegroups/{nodegroup}': async () => {
    const fx = await fresh();
    const ng = await insertNodegroup(t, fx);
    return { method: 'DELETE', url: `/v1/clusters/${fx.cluster.uuid}/nodegroups/${ng.uuid}` };
  },
  'GET /v1/certificates/{ident}': () => ({ method: 'GET', url: `/v1/certificates/${shared.cluster.uuid}` }),
  'POST /v1/certificates': () => ({ method: 'POST', url: '/v1/certificates', payload: { cluster_uuid: shared.cluster.uuid, csr } }),
  'PATCH /v1/certificates/{ident}': async () => ({ method: 'PATCH', url: `/v1/certificates/${(await fresh({ pki: true })).cluster.uuid}` }),
  'GET /v1/quotas': () => ({ method: 'GET', url: '/v1/quotas' }),
  'POST /v1/quotas': () => ({ method: 'POST', url: '/v1/quotas', payload: { project_id: t.keystone.state.createProject(name()), resource: 'Cluster', hard_limit: 3 } }),
  'GET /v1/quotas/{project_id}/{resource}': () => ({ method: 'GET', url: `/v1/quotas/${demo}/Cluster` }),
  'PATCH /v1/quotas/{project_id}/{resource}': () => ({ method: 'PATCH', url: `/v1/quotas/${demo}/Cluster`, payload: { hard_limit: 1000 } }),
  'DELETE /v1/quotas/{project_id}/{resource}': async () => {
    const row = await t.app.services.db.getRepository(QuotaEntity).save({ project_id: randomUUID(), resource: 'Cluster', hard_limit: 2, created_at: new Date(), updated_at: null });
    return { method: 'DELETE', url: `/v1/quotas/${row.project_id}/Cluster` };
  },
  'GET /v1/stats': () => ({ method: 'GET', url: '/v1/stats' }),
  'GET /v1/mservices': () => ({ method: 'GET', url: '/v1/mservices' }),
  'GET /v1/clusters/{ident}/events': () => ({ method: 'GET', url: `/v1/clusters/${shared.cluster.uuid}/events` }),
  'GET /v1/clusters/{ident}/resources': () => ({ method: 'GET', url: `/v1/clusters/${shared.cluster.uuid}/resources` }),
  'GET /v1/clusters/{ident}/kubeconfig': () => ({ method: 'GET', url: `/v1/clusters/${shared.cluster.uuid}/kubeconfig` }),
  'GET /v1/clusters/{ident}/upgrades': () => ({ method: 'GET', url: `/v1/clusters/${shared.cluster.uuid}/upgrades` }),
  'GET /v1/clusters/{ident}/hibernation': () => ({ method: 'GET', url: `/v1/clusters/${shared.cluster.uuid}/hibernation` }),
  'PUT /v1/clusters/{ident}/hibernation/schedule': async () => ({ method: 'PUT', url: `/v1/clusters/${(await fresh()).cluster.uuid}/hibernation/schedule`, payload: { hibernate: '0 19 * * 1-5', wake: null, timezone: 'Europe/Berlin' } }),
  'DELETE /v1/clusters/{ident}/hibernation/schedule': async () => ({ method: 'DELETE', url: `/v1/clusters/${(await fresh()).cluster.uuid}/hibernation/schedule` }),
  'GET /v1/clusters/{ident}/maintenance': () => ({ method: 'GET', url: `/v1/clusters/${shared.cluster.uuid}/maintenance` }),
  'PUT /v1/clusters/{ident}/maintenance': async () => ({
    method: 'PUT',
    url: `/v1/clusters/${(await fresh()).cluster.uuid}/maintenance`,
    payload: { window: { day: 'sunday', start: '03:00', duration_minutes: 120, timezone: 'Europe/Berlin' }, upgrade: { auto_upgrade: 'latest_patch', cluster_template_id: null } },
  }),
  'DELETE /v1/clusters/{ident}/maintenance': async () => ({ method: 'DELETE', url: `/v1/clusters/${(await fresh()).cluster.uuid}/maintenance` }),
  'POST /v1/clusters/{ident}/actions/hibernate': async () => ({ method: 'POST', url: `/v1/clusters/${(await fresh()).cluster.uuid}/actions/hibernate` }),
  'POST /v1/clusters/{ident}/actions/wake': async () => {
    const fx = await fresh();
    await t.app.services.clusters.update(fx.cluster.uuid, { hibernation: 'hibernated', hibernated_at: new Date() });
    return { method: 'POST', url: `/v1/clusters/${fx.cluster.uuid}/actions/wake` };
  },
  'GET /v1/streams/clusters': () => ({ method: 'GET', url: '/v1/streams/clusters', stream: true }),
  'GET /v1/streams/clusters/{ident}': () => ({ method: 'GET', url: `/v1/streams/clusters/${shared.cluster.uuid}`, stream: true }),
  'GET /v1/cloud-choices': () => ({ method: 'GET', url: '/v1/cloud-choices' }),
  // A dry-run writes nothing: the shared cluster serves them all.
  'POST /v1/dry-run/clusters': () => ({ method: 'POST', url: '/v1/dry-run/clusters', payload: { cluster_template_id: publicTemplate, name: name() } }),
  'POST /v1/dry-run/clusters/{ident}/actions/resize': () => ({ method: 'POST', url: `/v1/dry-run/clusters/${shared.cluster.uuid}/actions/resize`, payload: { node_count: 2 } }),
  'POST /v1/dry-run/clusters/{ident}/actions/upgrade': () => ({ method: 'POST', url: `/v1/dry-run/clusters/${shared.cluster.uuid}/actions/upgrade`, payload: { cluster_template: upgradeTarget } }),
  'POST /v1/dry-run/clusters/{cluster}/nodegroups': () => ({ method: 'POST', url: `/v1/dry-run/clusters/${shared.cluster.uuid}/nodegroups`, payload: { name: name() } }),
};

/** The status of one call as `p` (a stream's status line only: the stream is closed at once). */
async function call(req: Req, p: Persona): Promise<{ status: number; body: string }> {
  const token = tokens.get(p.name);
  const headers: Record<string, string> = { 'openstack-api-version': `container-infra ${req.version ?? 'latest'}`, ...(token ? { 'x-auth-token': token } : {}) };
  if (req.stream) {
    // Its own connection (no keep-alive pool), destroyed once the status line is read.
    return new Promise((resolve, reject) => {
      const r = httpGet(`${t.apiUrl}${req.url}`, { headers, agent: false }, (res) => {
        resolve({ status: res.statusCode ?? 0, body: '' });
        r.destroy();
      });
      r.on('error', (e) => (r.destroyed ? undefined : reject(e)));
    });
  }
  const { version: _v, stream: _s, ...inject } = req;
  const res = await t.app.inject({ ...inject, headers });
  return { status: res.statusCode, body: res.body };
}

describe('the rules, as functions', () => {
  const member = authContext();
  const reader = authContext({ roles: ['reader'] });
  const admin = authContext({ roles: ['admin'] });
  const adminWithMember = authContext({ roles: ['admin', 'member'] });
  const systemAdmin = authContext({ scope: 'system', roles: ['admin'] });
  const domainAdmin = authContext({ scope: 'domain', roles: ['admin'] });
  const colleague = authContext({ userId: 'u-2' });
  const stranger = authContext({ projectId: 'p-2' });
  const mine: Target = { project_id: 'p-1', user_id: 'u-1' };
  const theirs: Target = { project_id: 'p-2', user_id: 'u-9' };

  const cases: [string, ReturnType<typeof authContext>, Rule, Target | undefined, boolean][] = [
    ['a member creates in its project', member, 'cluster:create', undefined, true],
    ['a reader may not create', reader, 'cluster:create', undefined, false],
    ['a reader reads', reader, 'cluster:get', mine, true],
    ['a member of another project reads nothing of this one', stranger, 'cluster:get', mine, false],
    ['a member may not read another project’s cluster', member, 'cluster:get', theirs, false],
    ['an admin reads any project’s (admin_or_reader)', admin, 'cluster:get', theirs, true],
    ['only admins publish templates', member, 'clustertemplate:publish', undefined, false],
    ['an admin publishes', admin, 'clustertemplate:publish', undefined, true],
    ['health is the creator’s', member, 'cluster:update_health_status', mine, true],
    ['not a colleague’s of the same project', colleague, 'cluster:update_health_status', mine, false],
    ['but a colleague may update the cluster', colleague, 'cluster:update', mine, true],
    ['the CA is read by its creator', member, 'certificate:get', mine, true],
    ['not by a colleague', colleague, 'certificate:get', mine, false],
    ['credential:rotate is member only: an admin without member is refused', admin, 'credential:rotate', { project_id: 'p-1' }, false],
    ['an admin with member rotates in its own project', adminWithMember, 'credential:rotate', { project_id: 'p-1' }, true],
    ['not in another project, admin or not', adminWithMember, 'credential:rotate', theirs, false],
    ['a system-scoped admin keeps the unscoped admin rules', systemAdmin, 'quota:create', undefined, true],
    ['and mservices', systemAdmin, 'magnum-service:get_all', undefined, true],
    ['but no project-scoped rule', systemAdmin, 'cluster:get_all', undefined, false],
    ['a domain-scoped admin is no admin at all', domainAdmin, 'quota:create', undefined, false],
    ['nor a reader of anything', domainAdmin, 'clustertemplate:get_all', undefined, false],
    ['a member may not set quotas', member, 'quota:create', undefined, false],
  ];
  for (const [name, ctx, rule, target, want] of cases) {
    test(`${name} (${rule})`, () => assert.equal(allowed(ctx, rule, target), want));
  }

  test('enforce: Magnum’s 403 naming the rule when refused, nothing when allowed', () => {
    assert.throws(() => enforce(reader, 'cluster:delete', mine), (e: unknown) => e instanceof ApiError && e.status === 403 && e.message === "Policy doesn't allow cluster:delete to be performed.");
    enforce(member, 'cluster:delete', mine);
  });

  test('ruleDef: the check string and scope of a rule', () => {
    assert.deepEqual(ruleDef('quota:create'), { check: 'admin', scope: 'any' });
    assert.deepEqual(ruleDef('cluster:update_health_status'), { check: 'admin_or_member_user', scope: 'project' });
  });
});

test('every operation of the OpenAPI document has an entry in the policy table and a way to call it', () => {
  const table = Object.keys(MAGNUM_POLICY).sort();
  assert.deepEqual(operations.slice().sort(), table, 'openapi/magnum-v1.json and test/support/magnum-policy.ts list different operations');
  assert.deepEqual(Object.keys(REQUESTS).sort(), table, 'REQUESTS of this file and the policy table list different operations');
});

test(`every operation × ${PERSONAS.length} personas answers the status of Magnum's policy`, async () => {
  const wrong: string[] = [];
  let cells = 0;
  for (const op of operations) {
    const entry = MAGNUM_POLICY[op];
    const build = REQUESTS[op];
    if (!entry || !build) continue; // reported by the test above
    for (const p of PERSONAS) {
      const want = expectedStatus(entry, p);
      const got = await call(await build(), p);
      cells++;
      if (got.status !== want) wrong.push(`${op} as ${p.name}: ${got.status}, expected ${want} (${got.body.slice(0, 200)})`);
    }
  }
  assert.equal(cells, operations.length * PERSONAS.length);
  assert.deepEqual(wrong, []);
});

describe('scope mistakes', () => {
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
});
