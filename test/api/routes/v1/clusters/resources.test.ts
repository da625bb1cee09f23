// The portal's delete preview of a cluster (src/api/routes/v1/clusters/resources.ts): what a delete removes
// or keeps (ledger, its servers as Nova has them now, the cloud's CSI volumes per label, the credential), scoped like GET.
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
  assert.equal(by('server').length, 0, 'a recorded server Nova no longer has is gone (nodegroups/nodes.test.ts lists live ones)');
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
