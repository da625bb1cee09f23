// Quotas through the API (spec §3.6): every operation for admin, member, reader and another
// project, Magnum's defaults, the Keystone project check, paging by integer id, and errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type User } from '../support/app.js';

let t: TestApp;
let demo: string;
let other: string;
let admin: string;
before(async () => {
  t = await testApp();
  demo = t.keystone.state.projectId('demo');
  other = t.keystone.state.projectId('other');
  admin = t.keystone.state.projectId('admin');
});
after(() => t.close());

type Quota = { id?: number; project_id: string; resource: string; hard_limit: number; created_at?: string | null; updated_at?: string | null };
const NON_ADMINS: User[] = ['demo', 'demo-reader', 'other'];
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/;

const err = (r: { json(): unknown }) => (r.json() as { errors: { detail: string; status: number; code: string }[] }).errors[0]!;
const newProject = (name: string) => t.keystone.state.createProject(name);

const create = (user: User, payload: Record<string, unknown>) => t.as(user, { method: 'POST', url: '/v1/quotas', payload });
const show = (user: User, project: string, resource = 'Cluster') => t.as(user, { method: 'GET', url: `/v1/quotas/${project}/${resource}` });
const patch = (user: User, project: string, payload: Record<string, unknown>, resource = 'Cluster') =>
  t.as(user, { method: 'PATCH', url: `/v1/quotas/${project}/${resource}`, payload });
const remove = (user: User, project: string, resource = 'Cluster') => t.as(user, { method: 'DELETE', url: `/v1/quotas/${project}/${resource}` });

describe('create', () => {
  test('admin sets a quota: 201 with id, defaults resource Cluster and hard_limit 1', async () => {
    const p = newProject('create-defaults');
    const r = await create('admin', { project_id: p });
    assert.equal(r.statusCode, 201, r.body);
    const q = r.json() as Quota;
    assert.ok(Number.isInteger(q.id) && q.id! > 0);
    assert.equal(q.project_id, p);
    assert.equal(q.resource, 'Cluster');
    assert.equal(q.hard_limit, 1);
    assert.match(q.created_at!, TIMESTAMP);
    assert.equal(q.updated_at, null);
  });

  test('takes hard_limit 0 and numeric strings', async () => {
    const zero = await create('admin', { project_id: newProject('zero'), resource: 'Cluster', hard_limit: 0 });
    assert.equal(zero.statusCode, 201, zero.body);
    assert.equal((zero.json() as Quota).hard_limit, 0);
    const str = await create('admin', { project_id: newProject('str'), hard_limit: '7' });
    assert.equal((str.json() as Quota).hard_limit, 7);
  });

  test('a second quota for the same project and resource is 409', async () => {
    const p = newProject('dup');
    assert.equal((await create('admin', { project_id: p, hard_limit: 3 })).statusCode, 201);
    const r = await create('admin', { project_id: p, hard_limit: 4 });
    assert.equal(r.statusCode, 409);
    assert.equal(err(r).detail, `Quota for project ${p} already exists for resource Cluster.`);
  });

  test('the project must exist in Keystone: 404', async () => {
    const r = await create('admin', { project_id: 'no-such-project' });
    assert.equal(r.statusCode, 404);
    assert.deepEqual(err(r), { ...err(r), code: 'client', status: 404, detail: 'The project_id no-such-project could not be found.' });
  });

  for (const user of NON_ADMINS) {
    test(`${user} may not create quotas, not even for its own project: 403`, async () => {
      const r = await create(user, { project_id: t.keystone.state.projectId(user === 'other' ? 'other' : 'demo'), hard_limit: 50 });
      assert.equal(r.statusCode, 403);
      assert.equal(err(r).detail, "Policy doesn't allow quota:create to be performed.");
    });
  }

  const invalid: [string, Record<string, unknown>, string][] = [
    ['negative hard_limit', { project_id: 'x', hard_limit: -1 }, "Invalid input for field/attribute hard_limit. Value: '-1'. Value should be greater or equal to 0"],
    ['non-numeric hard_limit', { project_id: 'x', hard_limit: 'lots' }, "Invalid input for field/attribute hard_limit. Value: 'lots'. Wrong type. Expected 'integer', got 'string'"],
    ['unknown resource', { project_id: 'x', resource: 'Volume' }, "Invalid input for field/attribute resource. Value: 'Volume'. Value should be one of: Cluster"],
    ['missing project_id', { hard_limit: 2 }, "Invalid input for field/attribute project_id. Value: 'None'. Mandatory field missing."],
    ['empty project_id', { project_id: '' }, "Invalid input for field/attribute project_id. Value: ''. Value should have a minimum character requirement of 1"],
    ['unknown attributes', { project_id: 'x', foo: 1, bar: 2 }, 'Unknown attributes for argument quota: foo, bar'],
    ['read-only id', { project_id: 'x', id: 3 }, "Invalid input for field/attribute id. Value: '3'. Cannot set read only field."],
  ];
  for (const [name, body, detail] of invalid) {
    test(`400 on ${name}`, async () => {
      const r = await create('admin', body);
      assert.equal(r.statusCode, 400, r.body);
      assert.equal(err(r).detail, detail);
    });
  }
});

describe('show', () => {
  let p: string;
  let row: Quota;
  before(async () => {
    // A quota for demo's own project, set by the admin.
    p = demo;
    const r = await create('admin', { project_id: p, hard_limit: 9 });
    assert.equal(r.statusCode, 201, r.body);
    row = r.json() as Quota;
  });

  for (const user of ['admin', 'demo', 'demo-reader'] as const) {
    test(`${user} sees demo's quota row`, async () => {
      const r = await show(user, p);
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual(r.json(), row);
    });
  }

  test('without a row: max_clusters_per_project, without id or timestamps', async () => {
    const r = await show('other', other);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { project_id: other, resource: 'Cluster', hard_limit: 20 });
    assert.deepEqual((await show('admin', 'any-project-at-all')).json(), { project_id: 'any-project-at-all', resource: 'Cluster', hard_limit: 20 });
  });

  test('another project’s quota is 403 "Not authorized." for non-admins', async () => {
    for (const [user, project] of [['other', demo], ['demo', other], ['demo-reader', admin]] as const) {
      const r = await show(user, project);
      assert.equal(r.statusCode, 403, `${user} → ${project}`);
      assert.equal(err(r).detail, 'Not authorized.');
    }
  });
});

describe('update', () => {
  let p: string;
  before(async () => {
    p = newProject('update');
    assert.equal((await create('admin', { project_id: p, hard_limit: 4 })).statusCode, 201);
  });

  test('admin changes hard_limit: 202 with the quota, updated_at set', async () => {
    const r = await patch('admin', p, { hard_limit: 10 });
    assert.equal(r.statusCode, 202, r.body);
    const q = r.json() as Quota;
    assert.equal(q.hard_limit, 10);
    assert.equal(q.project_id, p);
    assert.match(q.updated_at!, TIMESTAMP);
    assert.equal((await show('admin', p)).json().hard_limit, 10);
  });

  test('the path names the row: project_id in the body is ignored', async () => {
    const r = await patch('admin', p, { project_id: other, resource: 'Cluster', hard_limit: 6 });
    assert.equal(r.statusCode, 202);
    assert.equal((r.json() as Quota).project_id, p);
    assert.equal((await show('admin', other)).json().hard_limit, 20, 'other is untouched');
  });

  test('omitting hard_limit resets it to 1 (a plain object, not a JSON patch)', async () => {
    const r = await patch('admin', p, {});
    assert.equal(r.statusCode, 202);
    assert.equal((r.json() as Quota).hard_limit, 1);
  });

  test('a missing row is 404', async () => {
    for (const [project, resource] of [['no-quota-here', 'Cluster'], [p, 'Volume']]) {
      const r = await patch('admin', project!, { hard_limit: 2 }, resource);
      assert.equal(r.statusCode, 404);
      assert.equal(err(r).detail, `Quota could not be found: project_id ${project} resource ${resource}.`);
    }
  });

  test('the body may name the row id, as Horizon sends it: accepted and ignored (Magnum declares it writable)', async () => {
    const before = await patch('admin', p, { hard_limit: 4 });
    assert.equal(before.statusCode, 202, before.body);
    const id = (before.json() as { id: number }).id;
    const r = await patch('admin', p, { id: id + 1000, hard_limit: 5 });
    assert.equal(r.statusCode, 202, r.body);
    assert.deepEqual([(r.json() as { id: number }).id, (r.json() as { hard_limit: number }).hard_limit], [id, 5]);
    const zero = await patch('admin', p, { id: 0, hard_limit: 5 });
    assert.equal(zero.statusCode, 400);
    assert.equal(err(zero).detail, "Invalid input for field/attribute id. Value: '0'. Value should be greater or equal to 1");
  });

  test('400 on bad input', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ hard_limit: -5 }, "Invalid input for field/attribute hard_limit. Value: '-5'. Value should be greater or equal to 0"],
      [{ hard_limit: 2, limit: 3 }, 'Unknown attribute for argument quotapatch: limit'],
      [{ updated_at: 'now' }, "Invalid input for field/attribute updated_at. Value: 'now'. Cannot set read only field."],
    ];
    for (const [body, detail] of cases) {
      const r = await patch('admin', p, body);
      assert.equal(r.statusCode, 400, r.body);
      assert.equal(err(r).detail, detail);
    }
  });

  for (const user of NON_ADMINS) {
    test(`${user} may not update: 403`, async () => {
      const r = await patch(user, demo, { hard_limit: 100 });
      assert.equal(r.statusCode, 403);
      assert.equal(err(r).detail, "Policy doesn't allow quota:update to be performed.");
    });
  }
});

describe('delete', () => {
  test('non-admins 403; admin 204, then 404, and show falls back to the default', async () => {
    const p = newProject('delete');
    assert.equal((await create('admin', { project_id: p, hard_limit: 2 })).statusCode, 201);
    for (const user of NON_ADMINS) {
      const r = await remove(user, p);
      assert.equal(r.statusCode, 403, user);
      assert.equal(err(r).detail, "Policy doesn't allow quota:delete to be performed.");
    }
    const r = await remove('admin', p);
    assert.equal(r.statusCode, 204);
    assert.equal(r.body, '');
    const again = await remove('admin', p);
    assert.equal(again.statusCode, 404);
    assert.equal(err(again).detail, `Quota could not be found: project_id ${p} resource Cluster.`);
    assert.deepEqual((await show('admin', p)).json(), { project_id: p, resource: 'Cluster', hard_limit: 20 });
  });
});

describe('list', () => {
  type Listing = { quotas: Quota[]; next?: string };
  const list = async (url: string, user: User = 'admin') => {
    const r = await t.as(user, { method: 'GET', url });
    assert.equal(r.statusCode, 200, r.body);
    return r.json() as Listing;
  };
  let mine: Quota[];
  before(async () => {
    // Two quotas in the admin's own project would need two resources: one row there, the rest elsewhere.
    const r = await create('admin', { project_id: admin, hard_limit: 30 });
    assert.equal(r.statusCode, 201, r.body);
    mine = [r.json() as Quota];
    for (const name of ['list-a', 'list-b', 'list-c']) assert.equal((await create('admin', { project_id: newProject(name), hard_limit: 3 })).statusCode, 201);
  });

  for (const user of NON_ADMINS) {
    test(`${user} may not list: 403`, async () => {
      const r = await t.as(user, { method: 'GET', url: '/v1/quotas' });
      assert.equal(r.statusCode, 403);
      assert.equal(err(r).detail, "Policy doesn't allow quota:get_all to be performed.");
    });
  }

  test('without all_tenants: only the admin’s own project', async () => {
    assert.deepEqual((await list('/v1/quotas')).quotas, mine);
    assert.deepEqual((await list('/v1/quotas?all_tenants=false')).quotas, mine);
  });

  test('all_tenants=true (wsme booleans): every project, by id', async () => {
    const all = (await list('/v1/quotas?all_tenants=True')).quotas;
    assert.ok(all.length >= 8, `${all.length} rows`);
    assert.deepEqual(all.map((q) => q.id), [...all.map((q) => q.id!)].sort((a, b) => a - b));
    assert.ok(all.some((q) => q.project_id === demo) && all.some((q) => q.project_id === admin));
    assert.deepEqual((await list('/v1/quotas?all_tenants=1')).quotas, all);
  });

  test('pages by integer id marker; next only on a full page, all_tenants not carried', async () => {
    const all = (await list('/v1/quotas?all_tenants=true')).quotas;
    const first = await list('/v1/quotas?all_tenants=true&limit=2');
    assert.deepEqual(first.quotas, all.slice(0, 2));
    assert.equal(first.next, `http://localhost:80/v1/quotas?sort_key=id&sort_dir=asc&limit=2&marker=${all[1]!.id}`);
    const second = await list(`/v1/quotas?all_tenants=true&limit=2&marker=${all[1]!.id}`);
    assert.deepEqual(second.quotas, all.slice(2, 4));
    const last = await list(`/v1/quotas?all_tenants=true&limit=100&marker=${all.at(-2)!.id}`);
    assert.deepEqual(last.quotas, all.slice(-1));
    assert.equal('next' in last, false);
  });

  test('sorts by any column', async () => {
    const byLimit = (await list('/v1/quotas?all_tenants=true&sort_key=hard_limit&sort_dir=desc')).quotas;
    const expected = [...byLimit].sort((a, b) => b.hard_limit - a.hard_limit || b.id! - a.id!);
    assert.deepEqual(byLimit, expected);
  });

  test('400 and 404 on bad paging parameters and unknown arguments', async () => {
    const cases: [string, number, string][] = [
      ['/v1/quotas?marker=99999', 404, 'Quota could not be found: quota id 99999 .'],
      ['/v1/quotas?marker=abc', 400, "Invalid input for field/attribute marker. Value: 'abc'. Wrong type. Expected 'integer', got 'string'"],
      ['/v1/quotas?limit=0', 400, 'Limit must be positive'],
      ['/v1/quotas?sort_key=nope', 400, 'The sort_key value "nope" is an invalid field for sorting'],
      ['/v1/quotas?sort_dir=up', 400, "Invalid sort direction: up. Acceptable values are 'asc' or 'desc'"],
      ['/v1/quotas?all_tenants=maybe', 400, "Invalid input for field/attribute all_tenants. Value: 'maybe'. Wrong type. Expected 'boolean', got 'string'"],
      ['/v1/quotas?project_id=x', 400, 'Unknown argument: "project_id"'],
    ];
    for (const [url, status, detail] of cases) {
      const r = await t.as('admin', { method: 'GET', url });
      assert.equal(r.statusCode, status, `${url}: ${r.body}`);
      assert.equal(err(r).detail, detail, url);
    }
  });
});

test('every quota operation works at microversion 1.1 (not gated)', async () => {
  const r = await t.as('demo', { method: 'GET', url: `/v1/quotas/${demo}/Cluster`, headers: { 'openstack-api-version': 'container-infra 1.1' } });
  assert.equal(r.statusCode, 200);
});

test('without a token: 401', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/v1/quotas' });
  assert.equal(r.statusCode, 401);
});
