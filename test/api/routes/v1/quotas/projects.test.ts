// Whether a Keystone project exists (src/api/routes/v1/quotas/projects.ts), asked with the service's own
// identity when an admin sets a quota: an unknown project is a 404 naming it, never a 503.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../../../support/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

// Found by the fuzz test (test/scenarios/fuzz.test.ts).
test('a quota for a 255-character project id: 404 from Keystone, not 503 (the simulated Keystone answered 414 past 100 characters)', async () => {
  const id = 'p'.repeat(255);
  const r = await t.as('admin', { method: 'POST', url: '/v1/quotas', payload: { project_id: id, resource: 'Cluster' } });
  assert.equal(r.statusCode, 404, r.body);
  assert.equal(r.json().errors[0].detail, `The project_id ${id} could not be found.`);
});
