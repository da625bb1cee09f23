// The legacy /v1/baymodels paths: same storage as templates, Magnum's differences (spec §3.7).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

/** Bays and baymodels exist up to Zed's 1.10; current Magnum (1.11+) removed them. */
const zed: TestApp['as'] = (user, opts) => t.as(user, { ...opts, headers: { 'openstack-api-version': 'container-infra 1.10', ...(opts.headers ?? {}) } });

const base = { coe: 'kubernetes', image_id: 'fedora', keypair_id: 'kp' };

test('create and show: no project/user fields, baymodels links, -model names', async () => {
  const r = await zed('demo', { method: 'POST', url: '/v1/baymodels', payload: base });
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
    const r = await zed('demo', { method: 'POST', url: '/v1/baymodels', payload: { ...base, ...body } });
    assert.equal(r.statusCode, 400, r.body);
    assert.match(r.json().errors[0].detail, message);
  });
}

test('keypair_id cannot be removed from a baymodel, but can from a template', async () => {
  const bm = (await zed('demo', { method: 'POST', url: '/v1/baymodels', payload: base })).json();
  const r = await zed('demo', { method: 'PATCH', url: `/v1/baymodels/${bm.uuid}`, payload: [{ op: 'remove', path: '/keypair_id' }] });
  assert.equal(r.statusCode, 400);
  assert.equal(r.json().errors[0].detail, "'/keypair_id' is a mandatory attribute and can not be removed");
  const r2 = await zed('demo', { method: 'PATCH', url: `/v1/clustertemplates/${bm.uuid}`, payload: [{ op: 'remove', path: '/keypair_id' }] });
  assert.equal(r2.statusCode, 200);
});

test('admins are not widened to all projects on baymodels', async () => {
  const mine = (await zed('demo', { method: 'POST', url: '/v1/baymodels', payload: { ...base, name: 'demo-bm' } })).json();
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
