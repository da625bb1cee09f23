// The Designate simulator over HTTP: the version document, zones (PENDING → ACTIVE, filters,
// pagination, delete), recordsets (A/AAAA/CNAME/TXT, duplicates, placement rules, update,
// delete), project scoping with X-Auth-All-Projects, quotas, and Designate's error envelope.
// Time runs a thousand times faster (a zone is ACTIVE in a few ms).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone, startSims } from '../support/app.js';
import { call, waitFor } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let demo: string;
let other: string;
let admin: string;
let v2: string;

before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone);
  const login = (u: 'demo' | 'other' | 'admin') => passwordToken(keystone, u, BUILTIN_USERS[u].password, BUILTIN_USERS[u].project);
  [demo, other, admin] = [await login('demo'), await login('other'), await login('admin')];
  v2 = `${sims.urls.dns}/v2`;
});
after(async () => {
  assertFreshIndexes(sims);
  await sims.close();
  await keystone.app.close();
});

const newZone = async (name: string, token = demo, extra: Record<string, unknown> = {}) => {
  const r = await call('POST', `${v2}/zones`, token, { name, email: 'admin@example.org', ...extra });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body as Record<string, any>;
};
const active = (url: string, token = demo) => waitFor(() => call('GET', url, token), (r) => r.body?.status === 'ACTIVE');
const gone = (url: string, token = demo) => waitFor(() => call('GET', url, token), (r) => r.status === 404);

/** Designate's envelope, with the answer's request id in the body. */
function assertError(r: Awaited<ReturnType<typeof call>>, code: number, type: string, message?: RegExp) {
  assert.equal(r.status, code, JSON.stringify(r.body));
  assert.equal(r.body.code, code);
  assert.equal(r.body.type, type);
  if (message) assert.match(r.body.message, message);
  assert.match(r.body.request_id, /^req-[0-9a-f-]{36}$/);
  assert.equal(r.body.request_id, r.headers.get('x-openstack-request-id'));
}

test('version document at / without a token: v2 versions pointing at /v2', async () => {
  const r = await call('GET', `${sims.urls.dns}/`, undefined);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.versions.map((v: { id: string }) => v.id), ['v2', 'v2.0', 'v2.1']);
  assert.equal(r.body.versions.find((v: { status: string }) => v.status === 'CURRENT').id, 'v2.1');
  assert.deepEqual(r.body.versions[0].links[0], { href: v2, rel: 'self' });
  assert.equal((await call('GET', `${v2}/zones`, undefined)).status, 401);
});

describe('zones', () => {
  test('create answers 202 PENDING CREATE with a Location, then ACTIVE with its SOA and NS', async () => {
    const r = await call('POST', `${v2}/zones`, demo, { name: 'create.example.org.', email: 'joe@example.org', ttl: 7200, description: 'd' });
    assert.equal(r.status, 202);
    const z = r.body;
    assert.deepEqual([z.status, z.action, z.name, z.ttl, z.type, z.version], ['PENDING', 'CREATE', 'create.example.org.', 7200, 'PRIMARY', 1]);
    assert.equal(z.project_id, keystone.state.projectId('demo'));
    assert.equal(r.headers.get('location'), `${v2}/zones/${z.id}`);
    assert.equal(z.links.self, `${v2}/zones/${z.id}`);
    assert.match(z.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    const done = await active(`${v2}/zones/${z.id}`);
    assert.equal(done.body.action, 'NONE');
    const rrsets = await call('GET', `${v2}/zones/${z.id}/recordsets`, demo);
    assert.deepEqual(rrsets.body.recordsets.map((x: { type: string }) => x.type).sort(), ['NS', 'SOA']);
    assert.deepEqual(rrsets.body.recordsets.map((x: { status: string }) => x.status), ['ACTIVE', 'ACTIVE']);
  });

  test('names must be absolute with two labels; email required; duplicates 409 in any project', async () => {
    assertError(await call('POST', `${v2}/zones`, demo, { name: 'nodot.example.org', email: 'a@b.org' }), 400, 'invalid_object', /does not match schema/);
    assertError(await call('POST', `${v2}/zones`, demo, { name: 'org.', email: 'a@b.org' }), 400, 'invalid_zone_name', /More than one label/);
    const noEmail = await call('POST', `${v2}/zones`, demo, { name: 'mail.example.org.' });
    assertError(noEmail, 400, 'invalid_object');
    assert.deepEqual(noEmail.body.errors.errors[0].path, ['email']);
    await newZone('dup.example.org.');
    const dup = await call('POST', `${v2}/zones`, demo, { name: 'dup.example.org.', email: 'a@b.org' });
    assertError(dup, 409, 'duplicate_zone', /^Duplicate Zone$/);
    assertError(await call('POST', `${v2}/zones`, other, { name: 'DUP.example.org.', email: 'a@b.org' }), 409, 'duplicate_zone');
  });

  test('list: filters by name (with *) and status, pages with links.next and metadata.total_count', async () => {
    for (const n of ['a', 'b', 'c']) await newZone(`${n}.list.test.`);
    const byName = await call('GET', `${v2}/zones?name=b.list.test.`, demo);
    assert.deepEqual(byName.body.zones.map((z: { name: string }) => z.name), ['b.list.test.']);
    const wild = await call('GET', `${v2}/zones?name=*.list.test.&limit=2`, demo);
    assert.deepEqual(wild.body.zones.map((z: { name: string }) => z.name), ['a.list.test.', 'b.list.test.']);
    assert.equal(wild.body.metadata.total_count, 3);
    assert.equal(wild.body.links.self, `${v2}/zones?name=*.list.test.&limit=2`);
    const next = await call('GET', wild.body.links.next, demo);
    assert.deepEqual(next.body.zones.map((z: { name: string }) => z.name), ['c.list.test.']);
    assert.equal(next.body.links.next, undefined);
    await active(`${v2}/zones/${next.body.zones[0].id}`);
    const pending = await call('GET', `${v2}/zones?status=PENDING&name=*.list.test.`, demo);
    assert.ok(pending.body.zones.every((z: { status: string }) => z.status === 'PENDING'));
    assertError(await call('GET', `${v2}/zones?sort_key=colour`, demo), 400, 'invalid_sort_key');
  });

  test('PATCH updates ttl/email with a new serial; delete answers 202 PENDING DELETE, then the zone is gone', async () => {
    const z = await newZone('del.example.org.');
    await active(`${v2}/zones/${z.id}`);
    // ~3 ms at this time scale: make the pool take 100 ms so PENDING DELETE can be observed.
    sims.designate.state.clock.setDelay('designate.zone.delete', { kind: 'fixed', ms: 100_000 });
    const patched = await call('PATCH', `${v2}/zones/${z.id}`, demo, { ttl: 600 });
    assert.equal(patched.status, 202);
    assert.deepEqual([patched.body.ttl, patched.body.status, patched.body.action], [600, 'PENDING', 'UPDATE']);
    assert.ok(patched.body.serial > z.serial);
    const del = await call('DELETE', `${v2}/zones/${z.id}`, demo);
    assert.equal(del.status, 202);
    assert.deepEqual([del.body.status, del.body.action], ['PENDING', 'DELETE']);
    assertError(await call('POST', `${v2}/zones/${z.id}/recordsets`, demo, { name: 'www.del.example.org.', type: 'A', records: ['10.0.0.1'] }), 400, 'bad_request', /deleting zone/);
    const after = await gone(`${v2}/zones/${z.id}`);
    assertError(after, 404, 'zone_not_found', /^Could not find Zone$/);
    assert.equal([...sims.designate.state.recordsets.values()].filter((r) => r.zoneId === z.id).length, 0);
  });

  test('a path id that is not a UUID is a 400 invalid_uuid', async () => {
    assertError(await call('GET', `${v2}/zones/example.org.`, demo), 400, 'invalid_uuid', /zone_id/);
  });
});

describe('project scoping', () => {
  test('other projects get 404; admins see every project with X-Auth-All-Projects; others may not ask', async () => {
    const z = await newZone('mine.example.net.');
    assertError(await call('GET', `${v2}/zones/${z.id}`, other), 404, 'zone_not_found');
    assert.ok(!(await call('GET', `${v2}/zones`, other)).body.zones.some((x: { id: string }) => x.id === z.id));
    assert.ok(!(await call('GET', `${v2}/zones`, admin)).body.zones.some((x: { id: string }) => x.id === z.id), 'admins are scoped too');
    const all = await call('GET', `${v2}/zones`, admin, undefined, { 'x-auth-all-projects': 'True' });
    assert.ok(all.body.zones.some((x: { id: string }) => x.id === z.id));
    assert.equal((await call('GET', `${v2}/zones/${z.id}`, admin, undefined, { 'x-auth-all-projects': 'true' })).status, 200);
    assertError(await call('GET', `${v2}/zones`, demo, undefined, { 'x-auth-all-projects': 'True' }), 403, 'forbidden');
    assertError(await call('POST', `${v2}/zones`, other, { name: 'sub.mine.example.net.', email: 'a@b.org' }), 403, 'illegal_child');
  });

  test('X-Auth-Sudo-Project-ID: admins act in another project; others may not', async () => {
    const otherId = keystone.state.projectId('other');
    const sudo = await call('POST', `${v2}/zones`, admin, { name: 'sudo.example.net.', email: 'a@b.org' }, { 'x-auth-sudo-project-id': otherId });
    assert.deepEqual([sudo.status, sudo.body.project_id], [202, otherId]);
    assert.equal((await call('GET', `${v2}/zones/${sudo.body.id}`, other)).status, 200);
    assertError(await call('GET', `${v2}/zones`, demo, undefined, { 'x-auth-sudo-project-id': otherId }), 403, 'forbidden');
  });

  test('zones quota: 413 over_quota', async () => {
    const otherId = keystone.state.projectId('other');
    const owned = [...sims.designate.state.zones.values()].filter((z) => z.projectId === otherId).length;
    sims.designate.state.quotas.set(otherId, { zones: owned + 1 });
    try {
      await newZone('one.quota.test.', other);
      assertError(await call('POST', `${v2}/zones`, other, { name: 'two.quota.test.', email: 'a@b.org' }), 413, 'over_quota', /zones/);
    } finally {
      sims.designate.state.quotas.delete(otherId);
    }
  });
});

describe('recordsets', () => {
  let zone: Record<string, any>;
  let rsUrl: string;
  before(async () => {
    zone = await newZone('rr.example.com.');
    rsUrl = `${v2}/zones/${zone.id}/recordsets`;
    await active(`${v2}/zones/${zone.id}`);
  });
  const create = async (body: Record<string, unknown>) => {
    const r = await call('POST', rsUrl, demo, body);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    return r.body as Record<string, any>;
  };

  test('A, AAAA, CNAME and TXT: 202 PENDING CREATE, then ACTIVE; the zone gets a new serial', async () => {
    const a = await create({ name: 'www.rr.example.com.', type: 'A', records: ['192.0.2.10', '192.0.2.11'], ttl: 300 });
    assert.deepEqual([a.status, a.action, a.zone_name, a.zone_id, a.ttl], ['PENDING', 'CREATE', 'rr.example.com.', zone.id, 300]);
    assert.equal(a.links.self, `${rsUrl}/${a.id}`);
    await create({ name: 'www.rr.example.com.', type: 'AAAA', records: ['2001:db8::10'] });
    await create({ name: 'alias.rr.example.com.', type: 'CNAME', records: ['www.rr.example.com.'] });
    const txt = await create({ name: 'rr.example.com.', type: 'TXT', records: ['"v=spf1 -all"'], description: 'spf' });
    assert.equal(txt.ttl, null);
    const shown = await active(`${rsUrl}/${a.id}`);
    assert.deepEqual([shown.body.action, shown.body.records], ['NONE', ['192.0.2.10', '192.0.2.11']]);
    const z = await active(`${v2}/zones/${zone.id}`);
    assert.ok(z.body.serial > zone.serial);
  });

  test('list in a zone with name and type filters; /v2/recordsets across the project', async () => {
    const byName = await call('GET', `${rsUrl}?name=www.rr.example.com.`, demo);
    assert.deepEqual(byName.body.recordsets.map((r: { type: string }) => r.type).sort(), ['A', 'AAAA']);
    const byType = await call('GET', `${rsUrl}?type=CNAME`, demo);
    assert.deepEqual(byType.body.recordsets.map((r: { name: string }) => r.name), ['alias.rr.example.com.']);
    assert.equal(byType.body.metadata.total_count, 1);
    const all = await call('GET', `${v2}/recordsets?type=TXT&name=rr.example.com.`, demo);
    assert.equal(all.body.recordsets.length, 1);
    assert.equal((await call('GET', `${v2}/recordsets?type=TXT&name=rr.example.com.`, other)).body.recordsets.length, 0);
  });

  test('duplicates, bad data, placement: 409 duplicate_recordset and 400s', async () => {
    assertError(await call('POST', rsUrl, demo, { name: 'www.rr.example.com.', type: 'A', records: ['192.0.2.99'] }), 409, 'duplicate_recordset', /^Duplicate RecordSet$/);
    assertError(await call('POST', rsUrl, demo, { name: 'bad.rr.example.com.', type: 'A', records: ['300.1.1.1'] }), 400, 'invalid_object');
    assertError(await call('POST', rsUrl, demo, { name: 'bad.rr.example.com.', type: 'AAAA', records: ['192.0.2.1'] }), 400, 'invalid_object');
    assertError(await call('POST', rsUrl, demo, { name: 'www.elsewhere.org.', type: 'A', records: ['192.0.2.1'] }), 400, 'invalid_recordset_location', /parent zone/);
    assertError(await call('POST', rsUrl, demo, { name: 'rr.example.com.', type: 'CNAME', records: ['x.example.org.'] }), 400, 'invalid_recordset_location', /apex/);
    assertError(await call('POST', rsUrl, demo, { name: 'www.rr.example.com.', type: 'CNAME', records: ['x.example.org.'] }), 400, 'invalid_recordset_location', /share a name/);
    assertError(await call('POST', rsUrl, demo, { name: 'x.rr.example.com.', type: 'BOGUS', records: ['x'] }), 400, 'invalid_object');
    assertError(await call('GET', `${rsUrl}/6e4a4c62-3b2c-4d5e-8f90-1a2b3c4d5e6f`, demo), 404, 'recordset_not_found');
  });

  test('PUT replaces the records (202 PENDING UPDATE); delete is 202 PENDING DELETE, then gone; managed ones stay', async () => {
    const rs = await create({ name: 'api.rr.example.com.', type: 'A', records: ['192.0.2.20'] });
    await active(`${rsUrl}/${rs.id}`);
    const put = await call('PUT', `${rsUrl}/${rs.id}`, demo, { records: ['192.0.2.21', '192.0.2.22'], ttl: 60 });
    assert.equal(put.status, 202);
    assert.deepEqual([put.body.status, put.body.action, put.body.records, put.body.ttl, put.body.version], ['PENDING', 'UPDATE', ['192.0.2.21', '192.0.2.22'], 60, 2]);
    await active(`${rsUrl}/${rs.id}`);
    const del = await call('DELETE', `${rsUrl}/${rs.id}`, demo);
    assert.deepEqual([del.status, del.body.status, del.body.action], [202, 'PENDING', 'DELETE']);
    await gone(`${rsUrl}/${rs.id}`);
    const soa = (await call('GET', `${rsUrl}?type=SOA`, demo)).body.recordsets[0];
    assertError(await call('DELETE', `${rsUrl}/${soa.id}`, demo), 400, 'bad_request', /Managed records/);
    assertError(await call('PUT', `${rsUrl}/${soa.id}`, demo, { records: ['x'] }), 400, 'bad_request', /Managed records/);
  });
});
