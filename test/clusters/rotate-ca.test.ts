// A rotation of the cluster's CAs (src/clusters/rotate-ca.ts) against the simulated cloud: planRotateCa
// finds the caller's own cluster, checks the policy and TLS, and bills the roll's peak (one node replaced
// at a time); startRotateCa refuses a shortage, else begins rotate_ca with the PKI generation it replaces.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { planRotateCa, startRotateCa } from '../../src/clusters/rotate-ca.js';
import { ApiError } from '../../src/domain/errors.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { insertCluster } from '../support/cluster-fixture.js';

let t: TestApp;
let demoProject: string;
before(async () => {
  t = await testApp({ cloud: true });
  demoProject = t.keystone.state.projectId('demo');
});
after(() => t.close());

const cluster = (over: { status?: string; template?: Record<string, unknown> } = {}) =>
  insertCluster(t.app, { user: t.keystone.state.userId('demo'), project: demoProject, nodegroups: true, ...(over.status ? { status: over.status } : {}), ...(over.template ? { template: over.template } : {}) });
const is = (status: number, message: RegExp) => (e: unknown) => e instanceof ApiError && e.status === status && message.test(e.message);

test('planned and begun: the roll’s peak billed (one control plane first), rotate_ca written with generation 1', async () => {
  const { cluster: c } = await cluster();
  const demo = await callerOf(t, 'demo');
  const plan = await planRotateCa(t.app.services, demo, c.name);
  assert.equal(plan.cluster.uuid, c.uuid);
  assert.equal(plan.bill.checked, true);
  const line = (q: string) => plan.bill.lines.find((l) => l.quota === q)!;
  assert.deepEqual([line('instances').needed, line('cores').needed], [1, 2], 'm1.medium, the control plane, is the peak');
  assert.equal(await startRotateCa(t.app.services, plan), c.uuid);
  const [op] = await t.app.services.db.query(`SELECT kind, params FROM operation WHERE cluster_id = $1`, [c.uuid]);
  assert.deepEqual([op.kind, op.params], ['rotate_ca', { from_generation: 1 }]);
  const [row] = await t.app.services.db.query(`SELECT status FROM cluster WHERE uuid = $1`, [c.uuid]);
  assert.equal(row.status, 'UPDATE_IN_PROGRESS');
  await assert.rejects(startRotateCa(t.app.services, plan), is(400, /^Updating a cluster when status is "UPDATE_IN_PROGRESS" is not supported\.$/), 'not twice');
});

test('the plan refuses: another project’s cluster (404, an admin’s too), a reader (403), a TLS-disabled template (400)', async () => {
  const { cluster: c } = await cluster();
  await assert.rejects(planRotateCa(t.app.services, await callerOf(t, 'admin'), c.uuid), is(404, /could not be found/));
  await assert.rejects(planRotateCa(t.app.services, await callerOf(t, 'demo-reader'), c.uuid), is(403, /certificate:rotate_ca/));
  const { cluster: insecure } = await cluster({ template: { tls_disabled: true } });
  await assert.rejects(planRotateCa(t.app.services, await callerOf(t, 'demo'), insecure.uuid), is(400, /^Rotating the CA certificate on a non-TLS cluster is not supported\.$/));
});

test('a roll the quotas cannot hold: the shortage’s 403, nothing written', async () => {
  const { cluster: c } = await cluster();
  t.cloud!.nova.setQuota(demoProject, { instances: 0 });
  try {
    const plan = await planRotateCa(t.app.services, await callerOf(t, 'demo'), c.uuid);
    assert.ok(plan.bill.lines.find((l) => l.quota === 'instances')!.short);
    await assert.rejects(startRotateCa(t.app.services, plan), is(403, /^Resource limit exceeded: .*instances: needed 1, in use \d+, (held by accepted operations \d+, )?limit 0/));
  } finally {
    t.cloud!.nova.quotas.delete(demoProject);
  }
  assert.deepEqual(await t.app.services.db.query(`SELECT id FROM operation WHERE cluster_id = $1`, [c.uuid]), []);
});

test('a cluster with neither an API load balancer nor a floating IP: refused at the request, naming why (its control plane cannot be replaced)', async () => {
  const { cluster: c } = await cluster();
  await t.app.services.db.query(`UPDATE cluster SET master_lb_enabled = false, floating_ip_enabled = false WHERE uuid = $1`, [c.uuid]);
  await assert.rejects(planRotateCa(t.app.services, await callerOf(t, 'demo'), c.name), is(400, /^The control plane of this cluster cannot be replaced for a CA rotation: the cluster has neither an API load balancer/));
});
