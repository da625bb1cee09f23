// Create and update of cluster templates and baymodels in Magnum's order of checks
// (src/api/routes/v1/clustertemplates/service.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../../../support/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

// Found by the fuzz test (test/scenarios/fuzz.test.ts).
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
