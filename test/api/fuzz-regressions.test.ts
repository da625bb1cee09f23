// What the fuzz test (test/api/fuzz.test.ts) found, each kept as a plain case.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp({ cloud: true });
});
after(() => t.close());

test('an unsupported microversion on a route that documents 406 (node groups) is the 406 of spec §1.4, not a 500 from its serializer', async () => {
  const fx = await nodegroupCluster(t);
  for (const url of [`/v1/clusters/${fx.cluster.uuid}/nodegroups`, `/v1/clusters/${fx.cluster.uuid}/nodegroups/${fx.worker.uuid}`]) {
    const r = await t.as('demo', { method: 'GET', url, headers: { 'openstack-api-version': 'container-infra 9.99' } });
    assert.equal(r.statusCode, 406, r.body);
    assert.equal(r.json().errors[0].code, 'magnum.microversion-unsupported');
  }
});

test('a quota for a 255-character project id: 404 from Keystone, not 503 (the simulated Keystone answered 414 past 100 characters)', async () => {
  const id = 'p'.repeat(255);
  const r = await t.as('admin', { method: 'POST', url: '/v1/quotas', payload: { project_id: id, resource: 'Cluster' } });
  assert.equal(r.statusCode, 404, r.body);
  assert.equal(r.json().errors[0].detail, `The project_id ${id} could not be found.`);
});

test('a template naming a 255-character image, flavor or network: 400 naming it, not 503 (the simulated Glance, Nova and Neutron answered 414 past 100 characters)', async () => {
  const long = (c: string) => c.repeat(255);
  const base = { name: 'long-ids', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small' };
  for (const [field, detail] of [
    ['image_id', `Image ${long('i')} could not be found.`],
    ['flavor_id', `Unable to find flavor ${long('f')}.`],
    ['external_network_id', `Unable to find external network ${long('n')}.`],
  ] as const) {
    const value = long(field === 'image_id' ? 'i' : field === 'flavor_id' ? 'f' : 'n');
    const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { ...base, [field]: value } });
    assert.equal(r.statusCode, 400, `${field}: ${r.body}`);
    assert.equal(r.json().errors[0].detail, detail);
  }
});

test('a template’s or baymodel’s name removed by PATCH: a generated one, as a create without a name gets, not a 500', async () => {
  for (const [url, version] of [['/v1/clustertemplates', 'container-infra latest'], ['/v1/baymodels', 'container-infra 1.10']] as const) {
    const headers = { 'openstack-api-version': version };
    const made = await t.as('demo', { method: 'POST', url, headers, payload: { name: 'named', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', keypair_id: 'kp' } });
    assert.equal(made.statusCode, 201, made.body);
    const r = await t.as('demo', { method: 'PATCH', url: `${url}/${made.json().uuid}`, headers, payload: [{ op: 'remove', path: '/name' }] });
    assert.equal(r.statusCode, 200, `${url}: ${r.body}`);
    assert.match(r.json().name, /^[a-z]+-\d+-(template|model)$/);
    assert.notEqual(r.json().name, 'named');
  }
});
