// GET /v1/cloud-choices (src/api/routes/v1/cloud-choices.ts): what the caller's project may pick from in a
// template or a cluster, asked of Nova, Glance and Neutron with the caller's token.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../../support/app.js';

let t: TestApp;

before(async () => {
  t = await testApp({ cloud: true });
});
after(async () => {
  await t?.close();
});

test('cloud choices: the project’s flavors with their sizes, keypairs, active images and external networks', async () => {
  const r = await t.as('demo-reader', { method: 'GET', url: '/v1/cloud-choices' });
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json();
  assert.deepEqual(body.unreachable, []);
  const small = body.flavors.find((f: { name: string }) => f.name === 'm1.small');
  assert.deepEqual({ vcpus: small.vcpus, ram: small.ram, disk: small.disk }, { vcpus: 1, ram: 2048, disk: 20 });
  assert.ok(body.images.some((i: { name: string; os_distro: string }) => i.name === 'ubuntu-24.04' && i.os_distro === 'ubuntu'));
  assert.ok(body.images.some((i: { name: string }) => i.name === 'demo-private-coreos'), 'the project’s private image');
  assert.deepEqual(body.external_networks.map((n: { name: string }) => n.name), ['public']);
  const other = (await t.as('other', { method: 'GET', url: '/v1/cloud-choices' })).json();
  assert.ok(!other.images.some((i: { name: string }) => i.name === 'demo-private-coreos'), 'not another project’s image');
});
