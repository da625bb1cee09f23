// The portal's previews of a cluster: what a delete removes or keeps (ledger, the cloud's CSI
// volumes per label, the credential) and the valid upgrade targets with the order of the roll.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { insertCluster } from '../../../../support/cluster-fixture.js';
import { testApp, type TestApp } from '../../../../support/app.js';
import { upgradeVerdict } from '../../../../../src/domain/upgrade-path.js';

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

test('the delete preview lists the ledger, the CSI volumes (kept unless the label says delete) and the credential; scoped like GET', async () => {
  const { cluster } = await insertCluster(t.app, { user: demoUser, project: demoProject, name: 'doomed', nodegroups: true, pki: false });
  await t.app.services.db.query(
    `INSERT INTO cluster_resource (cluster_id, service, type, cloud_id, name, step) VALUES
     ($1, 'network', 'network', 'net-1', 'doomed-net', 'network'), ($1, 'compute', 'server', 'srv-1', 'doomed-master-0', 'servers'),
     ($1, 'network', 'floatingip', 'fip-1', NULL, 'api_lb')`,
    [cluster.uuid],
  );
  await t.app.services.db.query(`INSERT INTO cluster_resource (cluster_id, service, type, cloud_id, name, step, deleted_at) VALUES ($1, 'network', 'port', 'gone-1', NULL, 'x', now())`, [cluster.uuid]);
  await t.app.services.db.query(`UPDATE cluster SET app_cred_id = 'cred-1' WHERE uuid = $1`, [cluster.uuid]);
  // A volume the cluster's Cinder CSI made, in the demo project.
  const cinder = t.cloud!.sims.urls['block-storage'] ?? Object.entries(t.cloud!.sims.urls).find(([k]) => /cinder|volume|block/.test(k))?.[1];
  assert.ok(cinder, JSON.stringify(t.cloud!.sims.urls));
  const token = await t.token('demo');
  const base = `${cinder.replace(/\/+$/, '')}`.replace(/\/v3.*$/, '');
  const made = await fetch(`${base}/v3/${demoProject}/volumes`, {
    method: 'POST',
    headers: { 'x-auth-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ volume: { size: 1, name: 'pvc-1', metadata: { 'cinder.csi.openstack.org/cluster': cluster.uuid } } }),
  });
  assert.equal(made.status, 202, await made.clone().text());
  const r = await t.as('demo-reader', { method: 'GET', url: `/v1/clusters/doomed/resources` });
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json();
  const by = (type: string) => body.resources.filter((x: { type: string }) => x.type === type);
  assert.deepEqual(by('network').map((x: { id: string }) => x.id), ['net-1']);
  assert.equal(by('server')[0].action, 'delete');
  assert.equal(by('port').length, 0, 'what is already deleted is not listed');
  assert.equal(by('volume').length, 1);
  assert.equal(by('volume')[0].action, 'keep');
  assert.match(by('volume')[0].note, /cinder_csi_delete_volumes/);
  assert.equal(by('application_credential')[0].id, 'cred-1');
  assert.deepEqual(body.unreachable, []);
  await t.app.services.db.query(`UPDATE cluster SET labels = labels || '{"cinder_csi_delete_volumes":"true"}' WHERE uuid = $1`, [cluster.uuid]);
  const again = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/resources` })).json();
  assert.equal(again.resources.find((x: { type: string }) => x.type === 'volume').action, 'delete');
  assert.equal((await t.as('other', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/resources` })).statusCode, 404);
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

test('the upgrade verdict refuses a skipped minor', () => {
  const v = upgradeVerdict('v1.34.1', { kube_tag: 'v1.36.0' });
  assert.equal(v.ok, false);
  assert.match((v as { reason: string }).reason, /skips a minor version: upgrade to 1.35.x first/);
  assert.equal(upgradeVerdict('v1.34.1', { kube_tag: 'v1.35.0' }).ok, true);
  assert.equal(upgradeVerdict('v1.34.1', {}).ok, false);
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
