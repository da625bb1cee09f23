// What the fuzz test (test/api/fuzz.test.ts) found, each kept as a plain case.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp();
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
