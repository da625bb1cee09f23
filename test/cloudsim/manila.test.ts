// The Manila simulator over HTTP, and the service's Manila client against it: creating → available with an
// export location, deleting → gone, delete refused while creating (403), metadata filter (JSON and the Python
// form python-manilaclient sends), project scoping (404 for another project's share), the microversion header
// (echoed, 406 above 2.84, 400 malformed), quotas (413), share types and Nova's envelope.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { ManilaClient } from '../../src/openstack/manila.js';
import { passwordToken, startKeystone, startSims } from '../support/app.js';
import { call, waitFor } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let demo: string;
let other: string;
let url: string;

before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone, 0.01, { clock: { seed: 11 } });
  // Fixed, observable transitions: 0.3 s each at this scale.
  sims.manila.state.clock.setDelay('manila.share.create', { kind: 'fixed', ms: 30_000 });
  sims.manila.state.clock.setDelay('manila.share.delete', { kind: 'fixed', ms: 30_000 });
  demo = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
  other = await passwordToken(keystone, 'other', BUILTIN_USERS.other.password, 'other');
  url = sims.urls.sharev2;
});
after(async () => {
  assertFreshIndexes(sims);
  await sims.close();
  await keystone.app.close();
});

const create = (share: Record<string, unknown>, token = demo) => call('POST', `${url}/shares`, token, { share });
const show = (id: string) => call('GET', `${url}/shares/${id}`, demo);

test('the catalog has sharev2 at /v2; versions need no token; the microversion is echoed, 406 above the maximum, 400 malformed', async () => {
  assert.match(url, /\/v2$/);
  const v = await call('GET', `${new URL(url).origin}/`, undefined);
  assert.equal(v.status, 200);
  assert.equal(v.body.versions[0].version, '2.84');
  const r = await call('GET', `${url}/shares`, demo, undefined, { 'x-openstack-manila-api-version': '2.65' });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-openstack-manila-api-version'), '2.65');
  const hi = await call('GET', `${url}/shares`, demo, undefined, { 'x-openstack-manila-api-version': '2.99' });
  assert.equal(hi.status, 406);
  assert.equal(hi.body.notAcceptable.code, 406);
  assert.equal((await call('GET', `${url}/shares`, demo, undefined, { 'x-openstack-manila-api-version': 'two' })).status, 400);
  assert.equal((await call('GET', `${url}/shares`, undefined)).status, 401);
});

test('create → creating → available with an export location; 403 deleting while creating; delete → deleting → 404', async () => {
  const r = await create({ share_proto: 'nfs', size: 2, name: 'data', metadata: { 'manila.csi.openstack.org/cluster': 'c1' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const s = r.body.share;
  assert.deepEqual([s.status, s.share_proto, s.size, s.share_type_name, s.metadata], ['creating', 'NFS', 2, 'default', { 'manila.csi.openstack.org/cluster': 'c1' }]);
  assert.equal(s.share_type, [...sims.manila.state.types.values()].find((t) => t.name === 'default')!.id, 'share_type is the id');
  const early = await call('DELETE', `${url}/shares/${s.id}`, demo);
  assert.equal(early.status, 403);
  assert.match(early.body.forbidden.message, /Share status must be one of/);
  await waitFor(() => show(s.id), (x) => x.body?.share?.status === 'available');
  const el = await call('GET', `${url}/shares/${s.id}/export_locations`, demo);
  assert.match(el.body.export_locations[0].path, new RegExp(`:/shares/share-${s.id}$`));
  assert.equal((await call('GET', `${url}/shares/${s.id}`, other)).status, 404, "another project's share is not found");
  assert.equal((await call('DELETE', `${url}/shares/${s.id}`, other)).status, 404);
  assert.equal((await call('DELETE', `${url}/shares/${s.id}`, demo)).status, 202);
  assert.equal((await show(s.id)).body.share.status, 'deleting');
  await waitFor(() => show(s.id), (x) => x.status === 404);
  const gone = await show(s.id);
  assert.equal(gone.body.itemNotFound.code, 404);
});

test('share types: the default type is listed, shown and used by a create without one; an unknown type is a 404', async () => {
  const list = await call('GET', `${url}/types`, demo, undefined, { 'x-openstack-manila-api-version': '2.46' });
  assert.equal(list.status, 200);
  const [t] = list.body.share_types;
  assert.deepEqual([t.name, t.is_default, t.required_extra_specs, t['share_type_access:is_public']], ['default', true, { driver_handles_share_servers: 'False' }, true]);
  assert.deepEqual(list.body.volume_types, list.body.share_types, 'the old key too');
  const byDefault = await call('GET', `${url}/types/default`, demo);
  assert.equal(byDefault.body.share_type.id, t.id);
  assert.equal(byDefault.body.share_type.is_default, undefined, 'is_default from 2.46');
  assert.equal((await call('GET', `${url}/types/${t.id}`, demo)).body.share_type.name, 'default');
  assert.equal((await call('GET', `${url}/types/nope`, demo)).status, 404);
  const typed = await create({ share_proto: 'NFS', size: 1, share_type: t.id });
  assert.equal(typed.body.share.share_type_name, 'default');
  const unknown = await create({ share_proto: 'NFS', size: 1, share_type: 'gold' });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.itemNotFound.message, 'Share type with name or ID gold could not be found.');
  await waitFor(() => show(typed.body.share.id), (x) => x.body?.share?.status === 'available');
  assert.equal((await call('DELETE', `${url}/shares/${typed.body.share.id}`, demo)).status, 202);
});

test('bad input: protocol, size, body', async () => {
  assert.equal((await create({ share_proto: 'SMB3', size: 1 })).status, 400);
  assert.equal((await create({ share_proto: 'NFS', size: 0 })).status, 400);
  assert.equal((await call('POST', `${url}/shares`, demo, { nothing: 1 })).status, 400);
  assert.equal((await create({ share_proto: 'NFS', size: 1, metadata: { k: 1 } })).status, 400);
});

test('the metadata filter (JSON or Python literal) and the client: list by metadata, delete, false when gone', async () => {
  const a = (await create({ share_proto: 'NFS', size: 1, metadata: { owner: 'x' } })).body.share.id;
  const b = (await create({ share_proto: 'NFS', size: 1, metadata: { owner: 'y' } })).body.share.id;
  const py = await call('GET', `${url}/shares/detail?metadata=${encodeURIComponent("{'owner': 'x'}")}`, demo);
  assert.deepEqual(py.body.shares.map((s: { id: string }) => s.id), [a]);
  const binned = await call('GET', `${url}/shares/detail?is_soft_deleted=True`, demo, undefined, { 'x-openstack-manila-api-version': '2.69' });
  assert.deepEqual(binned.body.shares, [], 'nothing is in the recycle bin (the client looks there when it finds a share by name)');
  const client = new ManilaClient({ service: 'sharev2', baseUrl: url, token: demo, timeoutMs: 5000 });
  assert.deepEqual((await client.listShares({ metadata: { owner: 'y' } })).map((s) => s.id), [b]);
  await waitFor(() => show(a), (x) => x.body?.share?.status === 'available');
  assert.equal(await client.deleteShare(a), true);
  await waitFor(() => show(a), (x) => x.status === 404);
  assert.equal(await client.deleteShare(a), false, 'already gone');
  await waitFor(() => show(b), (x) => x.body?.share?.status === 'available');
  await client.deleteShare(b);
});

test('quota: 413 over the project\'s gigabytes; the audit lists live shares', async () => {
  const r = await create({ share_proto: 'NFS', size: 5000 });
  assert.equal(r.status, 413);
  assert.match(r.body.overLimit.message, /gigabytes quota/);
  const s = (await create({ share_proto: 'NFS', size: 1, name: 'audited' })).body.share;
  const audited = sims.audit().projects.flatMap((p) => p.resources).filter((x) => x.service === 'manila');
  assert.ok(audited.some((x) => x.id === s.id && x.type === 'share'));
});
