// Cluster templates through the API (src/api/routes/v1/clustertemplates/routes.ts; spec §3.1, §5): create,
// validation, show, PATCH, delete; and the legacy /v1/baymodels paths: the same storage, Magnum's
// differences (spec §3.7).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ClusterEntity } from '../../../../../src/db/entities/cluster.js';
import { testApp, type TestApp, type User } from '../../../../support/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

const base = { coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public' };

async function create(user: User, body: Record<string, unknown>) {
  const r = await t.as(user, { method: 'POST', url: '/v1/clustertemplates', payload: { ...base, ...body } });
  return { status: r.statusCode, body: r.json(), headers: r.headers };
}

const patch = (user: User, ident: string, ops: unknown) =>
  t.as(user, { method: 'PATCH', url: `/v1/clustertemplates/${ident}`, payload: ops as object });

const detail = (r: { json(): unknown }) => (r.json() as { errors: { detail: string; status: number; code: string }[] }).errors[0]!;

/** A cluster row referencing a template (the cluster API is not part of this suite). */
async function useTemplate(uuid: string, projectId: string) {
  await t.app.services.db.getRepository(ClusterEntity).insert({
    uuid: randomUUID(),
    name: 'c',
    project_id: projectId,
    user_id: 'u',
    cluster_template_id: uuid,
    status: 'CREATE_COMPLETE',
    created_at: new Date(),
  });
}

describe('create', () => {
  test('fills every attribute, its defaults, Location and links', async () => {
    const r = await create('demo', { name: 'k8s-a', labels: { kube_tag: 'v1.35.0', n: 3, b: true }, tags: 'a,b' });
    assert.equal(r.status, 201);
    const ct = r.body;
    assert.equal(r.headers.location, `http://localhost:80/v1/clustertemplates/${ct.uuid}`);
    assert.match(ct.uuid, /^[0-9a-f-]{36}$/);
    assert.equal(ct.name, 'k8s-a');
    assert.equal(ct.network_driver, 'flannel');
    assert.equal(ct.server_type, 'vm');
    assert.equal(ct.floating_ip_enabled, true);
    for (const k of ['public', 'hidden', 'tls_disabled', 'registry_enabled', 'master_lb_enabled']) assert.equal(ct[k], false, k);
    for (const k of ['flavor_id', 'keypair_id', 'volume_driver', 'apiserver_port', 'docker_volume_size']) assert.equal(ct[k], null, k);
    assert.deepEqual(ct.labels, { kube_tag: 'v1.35.0', n: '3', b: 'True' });
    assert.equal(ct.tags, 'a,b');
    assert.equal(ct.project_id, t.keystone.state.projectId('demo'));
    assert.equal(ct.user_id, t.keystone.state.userId('demo'));
    assert.match(ct.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    assert.equal(ct.updated_at, null);
    assert.deepEqual(ct.links, [
      { href: `http://localhost:80/v1/clustertemplates/${ct.uuid}`, rel: 'self' },
      { href: `http://localhost:80/clustertemplates/${ct.uuid}`, rel: 'bookmark' },
    ]);
    assert.equal('id' in ct, false);
  });

  test('generates a name when none is given', async () => {
    const r = await create('demo', { name: null });
    assert.equal(r.status, 201);
    assert.match(r.body.name, /^[a-z]+-([1-9]|1\d|2[0-4])-template$/);
  });

  test('accepts wsme booleans and numeric strings', async () => {
    const r = await create('demo', { tls_disabled: 'yes', master_lb_enabled: 'On', floating_ip_enabled: 'f', docker_volume_size: '5' });
    assert.equal(r.status, 201);
    assert.equal(r.body.tls_disabled, true);
    assert.equal(r.body.master_lb_enabled, true);
    assert.equal(r.body.floating_ip_enabled, false);
    assert.equal(r.body.docker_volume_size, 5);
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['missing coe', { coe: undefined }, /^Requested COE type None is not supported\.$/],
    ['mesos', { coe: 'mesos' }, /^Requested COE type mesos is not supported\.$/],
    ['unknown coe', { coe: 'nomad' }, /^Invalid input for field\/attribute coe\. Value: 'nomad'\. Value should be one of: kubernetes, swarm, swarm-mode, mesos, dcos$/],
    ['missing image', { image_id: undefined }, /^Invalid input for field\/attribute image_id\. Value: 'None'\. Mandatory field missing\.$/],
    ['empty name', { name: '' }, /^Invalid input for field\/attribute name\. Value: ''\. Value should have a minimum character requirement of 1$/],
    ['long name', { name: 'x'.repeat(256) }, /Value should have a maximum character requirement of 255$/],
    ['port too low', { apiserver_port: 80 }, /^Invalid input for field\/attribute apiserver_port\. Value: '80'\. Value should be greater or equal to 1024$/],
    ['port not a number', { apiserver_port: 'abc' }, /^Invalid input for field\/attribute apiserver_port\. Value: 'abc'\./],
    ['volume size 0', { docker_volume_size: 0 }, /Value should be greater or equal to 1$/],
    ['bad boolean', { public: 'maybe' }, /^Invalid input for field\/attribute public\. Value: 'maybe'\./],
    ['bad server type', { server_type: 'container' }, /Value should be one of: vm, bm$/],
    ['network driver', { network_driver: 'docker' }, /^Network driver type docker is not supported, expecting a 'flannel', 'calico' network driver for kubernetes\.$/],
    ['volume driver', { volume_driver: 'rexray' }, /^Volume driver type rexray is not supported, expecting a 'cinder' volume driver for kubernetes\.$/],
    ['devicemapper size', { docker_storage_driver: 'devicemapper', docker_volume_size: 2 }, /expecting minimum value 3GB for devicemapper storage$/],
    ['dns list', { dns_nameserver: '8.8.8.8,999.1.1.1' }, /^Expected a single dns address or comma separated dns list, but received 8\.8\.8\.8,999\.1\.1\.1\.$/],
    ['read-only project_id', { project_id: 'x' }, /^Invalid input for field\/attribute project_id\. Value: 'x'\. Cannot set read only field\.$/],
    ['unknown attributes', { foo: 1, bar: 2 }, /^Unknown attributes for argument cluster_template: foo, bar$/],
    ['labels not a map', { labels: 'a=b' }, /^Invalid input for field\/attribute labels\./],
  ];
  for (const [name, body, message] of invalid) {
    test(`400: ${name}, and nothing is stored`, async () => {
      const before = (await t.as('demo', { method: 'GET', url: '/v1/clustertemplates' })).json().clustertemplates.length;
      const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { ...base, ...body } });
      assert.equal(r.statusCode, 400, r.body);
      const e = detail(r);
      assert.match(e.detail, message);
      assert.equal(e.code, 'client');
      const afterCount = (await t.as('demo', { method: 'GET', url: '/v1/clustertemplates' })).json().clustertemplates.length;
      assert.equal(afterCount, before);
    });
  }

  test('swarm gets the docker network driver by default', async () => {
    const r = await create('demo', { coe: 'swarm' });
    assert.equal(r.status, 201);
    assert.equal(r.body.network_driver, 'docker');
  });

  test('only admin may publish (public or hidden)', async () => {
    for (const flag of ['public', 'hidden']) {
      const r = await create('demo', { [flag]: true });
      assert.equal(r.status, 403);
      assert.equal(r.body.errors[0].detail, 'Not authorized to set public or hidden flag for cluster template.');
      assert.equal((await create('admin', { [flag]: true })).status, 201);
    }
  });

  test('a reader may not create; the policy denial is a 403 in the envelope', async () => {
    const r = await create('demo-reader', { name: 'nope' });
    assert.equal(r.status, 403);
    assert.equal(r.body.errors[0].detail, "Policy doesn't allow clustertemplate:create to be performed.");
    assert.equal(r.body.errors[0].title, "Policy doesn't allow clustertemplate:create to be performed");
  });
});

describe('show', () => {
  test('by uuid and by name; a duplicated name is a 409', async () => {
    const a = (await create('demo', { name: 'twin' })).body;
    let r = await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/${a.uuid}` });
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().name, 'twin');
    r = await t.as('demo', { method: 'GET', url: '/v1/clustertemplates/twin' });
    assert.equal(r.json().uuid, a.uuid);
    await create('demo', { name: 'twin' });
    r = await t.as('demo', { method: 'GET', url: '/v1/clustertemplates/twin' });
    assert.equal(r.statusCode, 409);
    assert.equal(detail(r).detail, 'Multiple cluster templates exist with same name. Please use the cluster template uuid instead.');
  });

  test("another project's private template is a 404, never a 403", async () => {
    const a = (await create('demo', { name: 'private-one' })).body;
    for (const ident of [a.uuid, 'private-one']) {
      const r = await t.as('other', { method: 'GET', url: `/v1/clustertemplates/${ident}` });
      assert.equal(r.statusCode, 404);
      assert.equal(detail(r).detail, `ClusterTemplate ${ident} could not be found.`);
    }
    const r = await t.as('admin', { method: 'GET', url: `/v1/clustertemplates/${a.uuid}` });
    assert.equal(r.statusCode, 200);
  });

  test('public templates are visible to all projects, hidden ones only by id or name', async () => {
    const pub = (await create('admin', { name: 'pub', public: true })).body;
    const hid = (await create('admin', { name: 'hid', public: true, hidden: true })).body;
    const list = (await t.as('other', { method: 'GET', url: '/v1/clustertemplates' })).json().clustertemplates.map((c: { uuid: string }) => c.uuid);
    assert.ok(list.includes(pub.uuid));
    assert.ok(!list.includes(hid.uuid));
    assert.equal((await t.as('other', { method: 'GET', url: `/v1/clustertemplates/${hid.uuid}` })).statusCode, 200);
    const adminList = (await t.as('admin', { method: 'GET', url: '/v1/clustertemplates' })).json().clustertemplates.map((c: { uuid: string }) => c.uuid);
    assert.ok(adminList.includes(hid.uuid));
  });
});

describe('update', () => {
  test('replace, add and remove; labels as a Python dict string', async () => {
    const a = (await create('demo', { name: 'p1' })).body;
    const r = await patch('demo', a.uuid, [
      { op: 'replace', path: '/name', value: 'p1-renamed' },
      { op: 'add', path: '/flavor_id', value: 'm1.large' },
      { op: 'replace', path: '/labels', value: "{'kube_tag': 'v1.36.1', 'auto_healing_enabled': True}" },
      { op: 'replace', path: '/docker_volume_size', value: 20 },
      { op: 'replace', path: '/master_lb_enabled', value: 'true' },
    ]);
    assert.equal(r.statusCode, 200, r.body);
    const ct = r.json();
    assert.equal(ct.name, 'p1-renamed');
    assert.equal(ct.flavor_id, 'm1.large');
    assert.deepEqual(ct.labels, { kube_tag: 'v1.36.1', auto_healing_enabled: 'True' });
    assert.equal(ct.docker_volume_size, 20);
    assert.equal(ct.master_lb_enabled, true);
    assert.match(ct.updated_at, /\+00:00$/);
    const r2 = await patch('demo', a.uuid, [
      { op: 'remove', path: '/flavor_id' },
      { op: 'remove', path: '/floating_ip_enabled' },
      { op: 'add', path: '/labels/extra', value: 'x' },
      { op: 'remove', path: '/labels/kube_tag' },
    ]);
    assert.equal(r2.statusCode, 200, r2.body);
    assert.equal(r2.json().flavor_id, null);
    assert.equal(r2.json().floating_ip_enabled, true, 'a removed attribute returns to its default');
    assert.deepEqual(r2.json().labels, { auto_healing_enabled: 'True', extra: 'x' });
  });

  const refused: [string, unknown, number, RegExp][] = [
    ['not a list', { op: 'replace' }, 400, /Value not a valid list/],
    ['bad op', [{ op: 'move', path: '/name', value: 'x' }], 400, /Value should be one of: add, replace, remove/],
    ['no value', [{ op: 'replace', path: '/name' }], 400, /^'add' and 'replace' operations needs value$/],
    ['object value', [{ op: 'replace', path: '/name', value: { a: 1 } }], 400, /Value should be a string or an integer/],
    ['internal', [{ op: 'replace', path: '/uuid', value: 'x' }], 400, /^'\/uuid' is an internal attribute and can not be updated$/],
    ['project', [{ op: 'replace', path: '/project_id', value: 'x' }], 400, /internal attribute/],
    ['mandatory', [{ op: 'remove', path: '/image_id' }], 400, /^'\/image_id' is a mandatory attribute and can not be removed$/],
    ['add existing', [{ op: 'add', path: '/name', value: 'x' }], 400, /^The attribute \/name has existed, please use 'replace' operation instead\.$/],
    ['add unknown', [{ op: 'add', path: '/foo', value: 'x' }], 400, /^Adding a new attribute \/foo to the root of the resource is not allowed\.$/],
    ['replace unknown', [{ op: 'replace', path: '/foo', value: 'x' }], 400, /^Couldn't apply patch/],
    ['bad labels', [{ op: 'replace', path: '/labels', value: '{oops' }], 400, /labels/],
    ['bad port', [{ op: 'replace', path: '/apiserver_port', value: 99999 }], 400, /Value should be lower or equal to 65535$/],
    ['bad driver', [{ op: 'replace', path: '/network_driver', value: 'weave' }], 400, /Network driver type weave is not supported/],
    ['publish', [{ op: 'replace', path: '/public', value: true }], 403, /^Not authorized to set public or hidden flag for cluster template\.$/],
  ];
  for (const [name, ops, status, message] of refused) {
    test(`${status}: ${name}, and nothing changes`, async () => {
      const a = (await create('demo', { name: `r-${name.replace(/\W/g, '')}` })).body;
      const r = await patch('demo', a.uuid, ops);
      assert.equal(r.statusCode, status, r.body);
      assert.match(detail(r).detail, message);
      const now = (await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/${a.uuid}` })).json();
      assert.deepEqual(now, a);
    });
  }

  test('a malformed patch is a 400 even for a template that does not exist', async () => {
    const r = await patch('demo', randomUUID(), { not: 'a list' });
    assert.equal(r.statusCode, 400);
  });

  test('another project cannot patch (404); a reader cannot (403); admin can', async () => {
    const a = (await create('demo', { name: 'guarded' })).body;
    const ops = [{ op: 'replace', path: '/name', value: 'g2' }];
    assert.equal((await patch('other', a.uuid, ops)).statusCode, 404);
    const r = await patch('demo-reader', a.uuid, ops);
    assert.equal(r.statusCode, 403);
    assert.equal(detail(r).detail, "Policy doesn't allow clustertemplate:update to be performed.");
    const ok = await patch('admin', a.uuid, [{ op: 'replace', path: '/public', value: true }]);
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().public, true);
  });

  test('a template in use allows only one change of name, public→true, hidden or tags', async () => {
    const a = (await create('admin', { name: 'in-use' })).body;
    await useTemplate(a.uuid, a.project_id);
    const ok: unknown[][] = [
      [{ op: 'replace', path: '/name', value: 'in-use-2' }],
      [{ op: 'replace', path: '/public', value: true }],
      [{ op: 'replace', path: '/hidden', value: true }],
      [{ op: 'add', path: '/tags', value: 'gold' }],
    ];
    for (const ops of ok) assert.equal((await patch('admin', a.uuid, ops)).statusCode, 200, JSON.stringify(ops));
    const refused: unknown[][] = [
      [{ op: 'replace', path: '/public', value: false }],
      [{ op: 'replace', path: '/flavor_id', value: 'm1.small' }],
      [
        { op: 'replace', path: '/name', value: 'x' },
        { op: 'replace', path: '/tags', value: 'y' },
      ],
    ];
    for (const ops of refused) {
      const r = await patch('admin', a.uuid, ops);
      assert.equal(r.statusCode, 400, JSON.stringify(ops));
      assert.equal(detail(r).detail, `ClusterTemplate ${a.uuid} is referenced by one or multiple clusters.`);
    }
  });
});

describe('delete', () => {
  test('204, then 404', async () => {
    const a = (await create('demo', { name: 'doomed' })).body;
    const r = await t.as('demo', { method: 'DELETE', url: `/v1/clustertemplates/${a.uuid}`, headers: { 'content-type': 'application/octet-stream' }, payload: '' });
    assert.equal(r.statusCode, 204);
    assert.equal(r.body, '');
    assert.equal((await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/${a.uuid}` })).statusCode, 404);
  });

  test('a template in use is a 400 and stays', async () => {
    const a = (await create('demo', { name: 'kept' })).body;
    await useTemplate(a.uuid, a.project_id);
    const r = await t.as('demo', { method: 'DELETE', url: `/v1/clustertemplates/${a.uuid}` });
    assert.equal(r.statusCode, 400);
    assert.equal(detail(r).detail, `ClusterTemplate ${a.uuid} is referenced by one or multiple clusters.`);
    assert.equal((await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/${a.uuid}` })).statusCode, 200);
  });

  test('reader 403, other project 404, admin 204', async () => {
    const a = (await create('demo', { name: 'del-policy' })).body;
    assert.equal((await t.as('demo-reader', { method: 'DELETE', url: `/v1/clustertemplates/${a.uuid}` })).statusCode, 403);
    assert.equal((await t.as('other', { method: 'DELETE', url: `/v1/clustertemplates/${a.uuid}` })).statusCode, 404);
    assert.equal((await t.as('admin', { method: 'DELETE', url: `/v1/clustertemplates/${a.uuid}` })).statusCode, 204);
  });

  test("a public template of another project can be shown but not deleted", async () => {
    const a = (await create('admin', { name: 'shared', public: true })).body;
    const r = await t.as('demo', { method: 'DELETE', url: `/v1/clustertemplates/${a.uuid}` });
    assert.equal(r.statusCode, 403);
  });
});

describe('the legacy /v1/baymodels (spec §3.7)', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  /** Bays and baymodels exist up to Zed's 1.10; current Magnum (1.11+) removed them. */
  const zed: TestApp['as'] = (user, opts) => t.as(user, { ...opts, headers: { 'openstack-api-version': 'container-infra 1.10', ...(opts.headers ?? {}) } });

  const bayBase = { coe: 'kubernetes', image_id: 'fedora', keypair_id: 'kp' };

  test('create and show: no project/user fields, baymodels links, -model names', async () => {
    const r = await zed('demo', { method: 'POST', url: '/v1/baymodels', payload: bayBase });
    assert.equal(r.statusCode, 201, r.body);
    const bm = r.json();
    assert.match(bm.name, /-model$/);
    assert.equal('project_id' in bm, false);
    assert.equal('user_id' in bm, false);
    assert.equal(bm.links[0].href, `http://localhost:80/v1/baymodels/${bm.uuid}`);
    assert.equal(r.headers.location, `http://localhost:80/v1/baymodels/${bm.uuid}`);
    const ct = await zed('demo', { method: 'GET', url: `/v1/clustertemplates/${bm.uuid}` });
    assert.equal(ct.statusCode, 200, 'the same row is a cluster template');
    const list = await zed('demo', { method: 'GET', url: '/v1/baymodels' });
    assert.deepEqual(list.json().baymodels.map((b: { uuid: string }) => b.uuid), [bm.uuid]);
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['keypair mandatory', { keypair_id: undefined }, /^Invalid input for field\/attribute keypair_id\. Value: 'None'\. Mandatory field missing\.$/],
    ['single dns address', { dns_nameserver: '8.8.8.8,1.1.1.1' }, /Expected a single IPv4 address/],
    ['string labels only', { labels: { n: 3 } }, /field\/attribute labels\.n/],
    ['unknown key', { external_network: 'x' }, /^Unknown attribute for argument baymodel: external_network$/],
  ];
  for (const [name, body, message] of invalid) {
    test(`400: ${name}`, async () => {
      const r = await zed('demo', { method: 'POST', url: '/v1/baymodels', payload: { ...bayBase, ...body } });
      assert.equal(r.statusCode, 400, r.body);
      assert.match(r.json().errors[0].detail, message);
    });
  }

  test('keypair_id cannot be removed from a baymodel, but can from a template', async () => {
    const bm = (await zed('demo', { method: 'POST', url: '/v1/baymodels', payload: bayBase })).json();
    const r = await zed('demo', { method: 'PATCH', url: `/v1/baymodels/${bm.uuid}`, payload: [{ op: 'remove', path: '/keypair_id' }] });
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().errors[0].detail, "'/keypair_id' is a mandatory attribute and can not be removed");
    const r2 = await zed('demo', { method: 'PATCH', url: `/v1/clustertemplates/${bm.uuid}`, payload: [{ op: 'remove', path: '/keypair_id' }] });
    assert.equal(r2.statusCode, 200);
  });

  test('admins are not widened to all projects on baymodels', async () => {
    const mine = (await zed('demo', { method: 'POST', url: '/v1/baymodels', payload: { ...bayBase, name: 'demo-bm' } })).json();
    const list = (await zed('admin', { method: 'GET', url: '/v1/baymodels?limit=1000' })).json();
    assert.equal(list.baymodels.some((b: { uuid: string }) => b.uuid === mine.uuid), false);
    const r = await zed('admin', { method: 'DELETE', url: `/v1/baymodels/${mine.uuid}` });
    assert.equal(r.statusCode, 404);
    assert.equal((await zed('demo', { method: 'DELETE', url: `/v1/baymodels/${mine.uuid}` })).statusCode, 204);
  });

  test('baymodels are gone from 1.11 (current Magnum), 406 like any operation outside its versions', async () => {
    for (const version of ['1.11', 'latest']) {
      const r = await t.as('demo', { method: 'GET', url: '/v1/baymodels', headers: { 'openstack-api-version': `container-infra ${version}` } });
      assert.equal(r.statusCode, 406);
      assert.match(r.json().errors[0].detail, /is not supported for this version/);
    }
  });
});
