// The portal's upgrade planner (src/api/routes/v1/clusters/upgrades.ts): the valid upgrade targets of a
// cluster, the refused ones with why, and the order of the roll.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { insertCluster } from '../../../../support/cluster-fixture.js';
import { testApp, type TestApp } from '../../../../support/app.js';

let t: TestApp;
let demoProject: string;
let demoUser: string;

before(async () => {
  t = await testApp({ cloud: true });
  demoProject = t.keystone.state.findProjectByName('demo', 'default')!.id;
  demoUser = t.keystone.state.findUserByName('demo', 'default')!.id;
});
after(async () => {
  await t?.close();
});

test('upgrade targets: one minor up at most, never down, never the same; refused ones say why; the roll goes control planes first', async () => {
  const { cluster } = await insertCluster(t.app, { user: demoUser, project: demoProject, name: 'upgradable', nodegroups: true, pki: false, template: { labels: { kube_tag: 'v1.35.2' } } });
  for (const [name, tag] of [['t-1.34', 'v1.34.4'], ['t-1.35.3', 'v1.35.3'], ['t-1.36', 'v1.36.0'], ['t-same', 'v1.35.2']]) {
    const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name, image_id: 'ubuntu-24.04', external_network_id: 'public', coe: 'kubernetes', labels: { kube_tag: tag } } });
    assert.equal(r.statusCode, 201, r.body);
  }
  const r = await t.as('demo-reader', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/upgrades` });
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json();
  assert.equal(body.current_version, 'v1.35.2');
  const valid = body.targets.filter((x: { valid: boolean }) => x.valid).map((x: { name: string; kind: string }) => `${x.name}:${x.kind}`);
  assert.deepEqual(valid, ['t-1.36:minor', 't-1.35.3:patch']);
  const refused = Object.fromEntries(body.targets.filter((x: { valid: boolean }) => !x.valid).map((x: { name: string; reason: string }) => [x.name, x.reason]));
  assert.match(refused['t-1.34'], /never goes down/);
  assert.match(refused['t-same'], /already runs/);
  assert.deepEqual(body.plan.map((p: { nodegroup: string }) => p.nodegroup), ['default-master', 'default-worker']);
  assert.equal(body.surge, 1);
  // The verdict agrees with the upgrade action: a refused target is refused by the API too.
  const down = await t.as('demo', { method: 'POST', url: `/v1/clusters/${cluster.uuid}/actions/upgrade`, payload: { cluster_template: 't-1.34' } });
  assert.equal(down.statusCode, 400);
  assert.equal((await t.as('other', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/upgrades` })).statusCode, 404);
});
