// The Cinder simulator over HTTP (spec openstack-apis §6): creating → available / error, deleting
// → gone, delete refused while in-use (400), quotas (413 with retryAfter), metadata and its filter,
// `bootable` as a string, microversions, project scoping, list links, volume types, availability zones
// and the Nova-style envelope.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startCloudSims, type CloudSims } from '../../cloudsim/cloud.js';
import { DEFAULT_DELAYS } from '../../cloudsim/common/clock.js';
import { BUILTIN_USERS, SERVICE_USER } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone } from '../support/app.js';
import { call, waitFor } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let demo: string;
let other: string;
let demoProject: string;
let root: string;
let url: string;

before(async () => {
  keystone = await startKeystone();
  sims = await startCloudSims({
    keystone,
    authUrl: `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`,
    credentials: { username: SERVICE_USER.username, password: SERVICE_USER.password, projectName: SERVICE_USER.project },
    host: '127.0.0.1',
    clock: { timeScale: 0.01, seed: 7 }, // a volume takes ~50 ms
  });
  demo = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
  other = await passwordToken(keystone, 'other', BUILTIN_USERS.other.password, 'other');
  demoProject = [...keystone.state.projects.values()].find((p) => p.name === 'demo')!.id;
  root = new URL(sims.urls['block-storage'].replace('%(project_id)s', 'x')).origin;
  url = sims.urls['block-storage'].replace('%(project_id)s', demoProject);
});
after(async () => {
  assertFreshIndexes(sims);
  await sims.close();
  await keystone.app.close();
});

const create = async (volume: Record<string, unknown>, token = demo, base = url) => call('POST', `${base}/volumes`, token, { volume });
const show = (id: string) => call('GET', `${url}/volumes/${id}`, demo);
const settled = (id: string, status: string) => waitFor(() => show(id), (r) => r.body?.volume?.status === status);

describe('versions', () => {
  test('GET / lists v3.0 (300) with its microversion range, no token needed', async () => {
    const r = await call('GET', `${root}/`, undefined);
    assert.equal(r.status, 300);
    assert.deepEqual([r.body.versions[0].id, r.body.versions[0].min_version, r.body.versions[0].version], ['v3.0', '3.0', '3.71']);
  });

  test('microversion header: default 3.0 echoed, 3.x echoed, 406 out of range, 400 malformed', async () => {
    assert.equal((await call('GET', `${url}/volumes`, demo)).headers.get('openstack-api-version'), 'volume 3.0');
    const r = await call('GET', `${url}/volumes`, demo, undefined, { 'openstack-api-version': 'volume 3.60' });
    assert.equal(r.headers.get('openstack-api-version'), 'volume 3.60');
    const hi = await call('GET', `${url}/volumes`, demo, undefined, { 'openstack-api-version': 'volume 3.99' });
    assert.equal(hi.status, 406);
    assert.equal(hi.body.notAcceptable.code, 406);
    assert.equal((await call('GET', `${url}/volumes`, demo, undefined, { 'openstack-api-version': 'volume x' })).status, 400);
  });
});

describe('volume lifecycle', () => {
  // These tests observe `creating` and `deleting` over several HTTP calls: drawn delays (5 ms at
  // the least at this scale) can end before a loaded machine makes them, so both take a fixed
  // 0.5 s here.
  before(() => {
    sims.cinder.state.clock.setDelay('cinder.volume.create', { kind: 'fixed', ms: 50_000 });
    sims.cinder.state.clock.setDelay('cinder.volume.delete', { kind: 'fixed', ms: 50_000 });
  });
  after(() => {
    sims.cinder.state.clock.setDelay('cinder.volume.create', DEFAULT_DELAYS['cinder.volume.create']);
    sims.cinder.state.clock.setDelay('cinder.volume.delete', DEFAULT_DELAYS['cinder.volume.delete']);
  });

  test('202 creating → available; fields; bootable is a string; deleting → 404', async () => {
    const r = await create({ size: 2, name: 'data', metadata: { cluster: 'c1' } });
    assert.equal(r.status, 202);
    const v = r.body.volume;
    assert.deepEqual([v.status, v.size, v.name, v.bootable, v.multiattach, v.encrypted, v.volume_type], ['creating', 2, 'data', 'false', false, false, '__DEFAULT__']);
    assert.deepEqual(v.metadata, { cluster: 'c1' });
    assert.deepEqual(v.attachments, []);
    assert.match(v.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    assert.equal(v['os-vol-tenant-attr:tenant_id'], demoProject);
    await settled(v.id, 'available');

    const boot = await create({ size: 1, imageRef: 'img-1' });
    assert.equal(boot.body.volume.bootable, 'true');

    const d = await call('DELETE', `${url}/volumes/${v.id}`, demo);
    assert.equal(d.status, 202);
    assert.equal((await show(v.id)).body.volume.status, 'deleting');
    const nf = await waitFor(() => show(v.id), (x) => x.status === 404);
    assert.deepEqual(nf.body, { itemNotFound: { code: 404, message: `Volume ${v.id} could not be found.` } });
    await settled(boot.body.volume.id, 'available');
    assert.equal((await call('DELETE', `${url}/volumes/${boot.body.volume.id}`, demo)).status, 202);
  });

  test('delete refused (400) while creating and while in-use; attachments stub (3.27)', async () => {
    const v = (await create({ size: 1, name: 'att' })).body.volume;
    const early = await call('DELETE', `${url}/volumes/${v.id}`, demo);
    assert.equal(early.status, 400);
    assert.match(early.body.badRequest.message, /^Invalid volume: Volume status must be available or error/);
    await settled(v.id, 'available');
    const h = { 'openstack-api-version': 'volume 3.27' };
    assert.equal((await call('POST', `${url}/attachments`, demo, { attachment: { volume_uuid: v.id } })).status, 404, 'needs 3.27');
    const a = await call('POST', `${url}/attachments`, demo, { attachment: { volume_uuid: v.id, instance_uuid: 'srv-1' } }, h);
    assert.equal(a.status, 200);
    assert.equal(a.body.attachment.status, 'reserved');
    assert.equal((await show(v.id)).body.volume.status, 'reserved');
    const done = await call('PUT', `${url}/attachments/${a.body.attachment.id}`, demo, { attachment: { connector: { host: 'h', mountpoint: '/dev/vdc' } } }, h);
    assert.equal(done.body.attachment.status, 'attached');
    const inUse = (await show(v.id)).body.volume;
    assert.equal(inUse.status, 'in-use');
    assert.deepEqual([inUse.attachments[0].server_id, inUse.attachments[0].device], ['srv-1', '/dev/vdc']);
    assert.equal((await call('DELETE', `${url}/volumes/${v.id}`, demo)).status, 400);
    assert.equal((await call('POST', `${url}/attachments`, demo, { attachment: { volume_uuid: v.id } }, h)).status, 400, 'not multiattach');
    assert.equal((await call('DELETE', `${url}/attachments/${a.body.attachment.id}`, demo, undefined, h)).status, 200);
    assert.equal((await show(v.id)).body.volume.status, 'available');
    assert.equal((await call('DELETE', `${url}/volumes/${v.id}`, demo)).status, 202);
  });

  test('a configured fraction of creates ends in error (deletable); stuck mode', async () => {
    sims.cinder.state.behaviour.createErrorFraction = 1;
    try {
      const v = (await create({ size: 1 })).body.volume;
      await settled(v.id, 'error');
      assert.equal((await call('DELETE', `${url}/volumes/${v.id}`, demo)).status, 202);
    } finally {
      sims.cinder.state.behaviour.createErrorFraction = 0;
    }
    sims.cinder.state.behaviour.stuck = true;
    try {
      const v = (await create({ size: 1 })).body.volume;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await show(v.id)).body.volume.status, 'creating');
      sims.cinder.state.volumes.get(v.id)!.status = 'available';
      sims.cinder.state.volumes.delete(v.id);
    } finally {
      sims.cinder.state.behaviour.stuck = false;
    }
  });

  test('validation: size must be a positive integer; body required', async () => {
    for (const size of [0, -1, 1.5, 'abc', undefined]) {
      const r = await create({ size });
      assert.equal(r.status, 400, String(size));
      assert.equal(r.body.badRequest.code, 400);
    }
    assert.equal((await call('POST', `${url}/volumes`, demo, { nope: {} })).status, 400);
  });
});

describe('scoping, quota, metadata, lists', () => {
  test('another project\'s volume is 404; another project in the path is 400; 3.67 drops the project id', async () => {
    const v = (await create({ size: 1, name: 'private' })).body.volume;
    const otherProject = [...keystone.state.projects.values()].find((p) => p.name === 'other')!.id;
    const otherUrl = sims.urls['block-storage'].replace('%(project_id)s', otherProject);
    assert.equal((await call('GET', `${otherUrl}/volumes/${v.id}`, other)).status, 404);
    assert.equal((await call('GET', `${url}/volumes/${v.id}`, other)).status, 400);
    assert.equal((await call('GET', `${root}/v3/volumes/${v.id}`, demo)).status, 404, 'below 3.67');
    const r = await call('GET', `${root}/v3/volumes/${v.id}`, demo, undefined, { 'openstack-api-version': 'volume 3.67' });
    assert.equal(r.body.volume.id, v.id);
    assert.equal(r.body.volume.consumes_quota, true, 'a 3.65 field');
    assert.equal((await show(v.id)).body.volume.consumes_quota, undefined, 'absent at 3.0');
    await settled(v.id, 'available');
    await call('DELETE', `${url}/volumes/${v.id}`, demo);
  });

  test('quota: 413 overLimit with Retry-After and retryAfter, by count and by gigabytes', async () => {
    const otherProject = [...keystone.state.projects.values()].find((p) => p.name === 'other')!.id;
    const otherUrl = sims.urls['block-storage'].replace('%(project_id)s', otherProject);
    sims.cinder.state.setQuota(otherProject, { volumes: 1, gigabytes: 5 });
    const big = await create({ size: 6 }, other, otherUrl);
    assert.equal(big.status, 413);
    assert.equal(big.headers.get('retry-after'), '0');
    assert.deepEqual(big.body, {
      overLimit: {
        code: 413,
        message: 'VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds allowed gigabytes quota. Requested 6G, quota is 5G and 0G has been consumed.',
        retryAfter: '0',
      },
    });
    assert.equal((await create({ size: 1 }, other, otherUrl)).status, 202);
    const count = await create({ size: 1 }, other, otherUrl);
    assert.equal(count.status, 413);
    assert.equal(count.body.overLimit.message, "VolumeLimitExceeded: Maximum number of volumes allowed (1) exceeded for quota 'volumes'.");
  });

  test('metadata API and the metadata / name / status filters; limit/marker with volumes_links', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ size: 1, name: `lst${i}`, metadata: { role: i === 1 ? 'etcd' : 'data', list: 'yes' } })).body.volume.id);
    for (const id of ids) await settled(id, 'available');
    const md = `${url}/volumes/${ids[0]}/metadata`;
    assert.deepEqual((await call('POST', md, demo, { metadata: { extra: '1' } })).body.metadata, { role: 'data', list: 'yes', extra: '1' });
    assert.deepEqual((await call('GET', `${md}/extra`, demo)).body, { meta: { extra: '1' } });
    assert.equal((await call('DELETE', `${md}/extra`, demo)).status, 200);
    assert.equal((await call('GET', `${md}/extra`, demo)).status, 404);
    const upd = await call('PUT', `${url}/volumes/${ids[0]}`, demo, { volume: { description: 'first' } });
    assert.equal(upd.body.volume.description, 'first');

    const list = async (q: string, detail = false) => (await call('GET', `${url}/volumes${detail ? '/detail' : ''}?${q}`, demo)).body;
    const idsOf = (b: { volumes: { id: string }[] }) => b.volumes.map((v) => v.id);
    assert.deepEqual(idsOf(await list(`metadata=${encodeURIComponent(JSON.stringify({ role: 'etcd' }))}`)), [ids[1]]);
    assert.deepEqual(idsOf(await list(`metadata=${encodeURIComponent("{'list': 'yes'}")}&sort=name:asc`)), ids);
    assert.deepEqual(idsOf(await list('name=lst2')), [ids[2]]);
    const summary = await list('name=lst2');
    assert.deepEqual(Object.keys(summary.volumes[0]).sort(), ['id', 'links', 'name']);
    assert.equal((await list('name=lst2', true)).volumes[0].bootable, 'false');
    assert.equal((await list('status=available&name=lst0')).volumes.length, 1);

    const page = await list(`metadata=${encodeURIComponent('{"list":"yes"}')}&limit=2`);
    assert.deepEqual(idsOf(page), [ids[2], ids[1]], 'newest first by default');
    const next = page.volumes_links[0];
    assert.equal(next.rel, 'next');
    const rest = (await call('GET', next.href, demo)).body;
    assert.deepEqual(idsOf(rest), [ids[0]]);
    assert.equal(rest.volumes_links, undefined);
    assert.equal((await list('marker=nope')).badRequest.code, 400);
  });

  test('fault injection per operation in the Nova-style envelope', async () => {
    sims.cinder.state.faults.inject({ method: 'POST', path: '/volumes', status: 500, times: 1 });
    const r = await create({ size: 1 });
    assert.equal(r.status, 500);
    assert.deepEqual(Object.keys(r.body), ['computeFault']);
    assert.equal((await call('GET', `${url}/volumes`, demo)).status, 200);
  });
});

describe('volume types and availability zones', () => {
  test('the default type is listed and shown (by id and as `default`); extra specs trimmed for users; volumes name their type', async () => {
    sims.cinder.state.types.get([...sims.cinder.state.types.keys()][0]!)!.extraSpecs = { multiattach: '<is> False', volume_backend_name: 'lvm' };
    const list = await call('GET', `${url}/types`, demo);
    assert.equal(list.status, 200);
    const [t] = list.body.volume_types;
    assert.deepEqual(
      [t.name, t.description, t.is_public, t['os-volume-type-access:is_public'], t.extra_specs, t.qos_specs_id],
      ['__DEFAULT__', 'Default Volume Type', true, true, { multiattach: '<is> False' }, undefined],
    );
    const asAdmin = (await call('GET', `${url.replace(demoProject, adminProject())}/types/${t.id}`, await admin())).body.volume_type;
    assert.deepEqual([asAdmin.extra_specs, asAdmin.qos_specs_id], [{ multiattach: '<is> False', volume_backend_name: 'lvm' }, null]);
    assert.equal((await call('GET', `${url}/types/default`, demo)).body.volume_type.id, t.id);
    const byName = await call('GET', `${url}/types/__DEFAULT__`, demo);
    assert.deepEqual(byName.body, { itemNotFound: { code: 404, message: 'Volume type __DEFAULT__ could not be found.' } });

    const byTypeName = (await create({ size: 1, volume_type: '__DEFAULT__' })).body.volume;
    const v = (await call('GET', `${url}/volumes/${byTypeName.id}`, demo, undefined, { 'openstack-api-version': 'volume 3.63' })).body.volume;
    assert.deepEqual([v.volume_type, v.volume_type_id], ['__DEFAULT__', t.id]);
    const gold = await create({ size: 1, volume_type: 'gold' });
    assert.deepEqual(gold.body, { itemNotFound: { code: 404, message: 'Volume type with name gold could not be found.' } });
    await settled(byTypeName.id, 'available');
    await call('DELETE', `${url}/volumes/${byTypeName.id}`, demo);
  });

  test('the zones of the seed file: listed, a volume goes to the first unless it names one, an unknown one is a 400', async () => {
    const zones = await call('GET', `${url}/os-availability-zone`, demo);
    assert.deepEqual(zones.body, { availabilityZoneInfo: ['nova', 'az-2', 'az-3'].map((zoneName) => ({ zoneName, zoneState: { available: true } })) });
    const plain = (await create({ size: 1 })).body.volume;
    assert.equal(plain.availability_zone, 'nova');
    const placed = (await create({ size: 1, availability_zone: 'az-2' })).body.volume;
    assert.equal(placed.availability_zone, 'az-2');
    const mars = await create({ size: 1, availability_zone: 'mars' });
    assert.deepEqual(mars.body, { badRequest: { code: 400, message: "Availability zone 'mars' is invalid." } });
    await settled(placed.id, 'available');
    const copy = await create({ size: 1, source_volid: placed.id });
    assert.equal(copy.body.volume.availability_zone, 'az-2', 'a copy stays in the zone of its source');
    const elsewhere = await create({ size: 1, source_volid: placed.id, availability_zone: 'az-3' });
    assert.equal(elsewhere.status, 400);
    for (const id of [plain.id, placed.id, copy.body.volume.id]) {
      await settled(id, 'available');
      await call('DELETE', `${url}/volumes/${id}`, demo);
    }
  });
});

const adminProject = () => [...keystone.state.projects.values()].find((p) => p.name === 'admin')!.id;
const admin = () => passwordToken(keystone, 'admin', BUILTIN_USERS.admin.password, 'admin');
