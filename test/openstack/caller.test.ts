// The OpenStack clients of an API caller (src/openstack/caller.ts): the caller's token and that token's
// catalog, at the configured interface and region; Cinder's catalog placeholder filled with the caller's
// project; Keystone as the API is configured to reach it; a service the catalog lacks is no_endpoint.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CallerClouds, type CloudCaller } from '../../src/openstack/caller.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { startCloud, type Cloud } from './cloud.js';

let cloud: Cloud;
let demo: CloudCaller;
let clouds: CallerClouds;
before(async () => {
  cloud = await startCloud();
  const { token, context } = await cloud.login('demo');
  demo = { ctx: context, token };
  clouds = new CallerClouds({ interface: 'public', timeoutMs: 5000, keystone: { authUrl: cloud.authUrl, timeoutMs: 5000 } });
});
after(() => cloud.close());

test('offers: a service by its type or an alias, at the configured interface and region', () => {
  const c = clouds.for(demo);
  assert.equal(c.offers('compute'), true);
  assert.equal(c.offers('shared-file-system'), true, 'the catalog says sharev2');
  assert.equal(c.offers('block-storage'), true);
  assert.equal(c.offers('no-such-service'), false);
  const elsewhere = new CallerClouds({ interface: 'public', region: 'RegionNowhere', timeoutMs: 5000, keystone: { authUrl: cloud.authUrl, timeoutMs: 5000 } });
  assert.equal(elsewhere.for(demo).offers('compute'), false);
  const internal = new CallerClouds({ interface: 'admin', timeoutMs: 5000, keystone: { authUrl: cloud.authUrl, timeoutMs: 5000 } });
  assert.equal(internal.for(demo).offers('compute'), false, 'the simulator registers public and internal endpoints only');
});

test('the clients act as the caller: its images, its limits (Cinder’s %(project_id)s filled), its credentials', async () => {
  assert.match(cloud.sims.urls['block-storage'], /%\(project_id\)s$/);
  const c = clouds.for(demo);
  const images = await c.glance().listImages();
  assert.ok(images.some((i) => i.name === 'demo-private-coreos'), 'the project’s private image');
  const otherLogin = await cloud.login('other');
  const other = clouds.for({ ctx: otherLogin.context, token: otherLogin.token });
  assert.ok(!(await other.glance().listImages()).some((i) => i.name === 'demo-private-coreos'));
  const limits = await c.cinder().limits();
  assert.equal(typeof limits.maxTotalVolumes, 'number');
  assert.equal(typeof (await c.nova().listFlavors()).length, 'number');
  const made = await c.keystone().createApplicationCredential({ name: `caller-${Date.now()}`, roles: [{ name: 'member' }] });
  assert.ok(made.secret);
  await c.keystone().deleteApplicationCredential(made.id);
});

test('a service the caller’s catalog lacks: OpenStackError no_endpoint when its client is asked for', () => {
  const bare = clouds.for({ ...demo, ctx: { ...demo.ctx, catalog: demo.ctx.catalog.filter((e) => e.type !== 'dns') } });
  assert.equal(bare.offers('dns'), false);
  assert.throws(() => bare.designate(), (e: unknown) => e instanceof OpenStackError && e.kind === 'no_endpoint');
});
