// A node group's nodes now (src/api/routes/v1/nodegroups/nodes.ts, src/clusters/nodes.ts): the ledger's servers
// checked against Nova, by the servers' metadata, the default worker group's too (named "worker", not after the
// group); a recorded server Nova no longer has is not listed; one Nova has unrecorded is; Nova not answering
// gives the ledger alone by name, saying so. Scoped like GET of the group. The delete preview lists servers the
// same way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { shortName } from '../../../../../src/cluster-spec/parse.js';
import { clusterTag, META } from '../../../../../src/steps/naming.js';
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

/** Boots a server through Nova's API as the workers do: the cluster's tag, the group and role in its metadata. */
async function boot(token: string, name: string, tag: string, metadata: Record<string, string>, zone?: string): Promise<string> {
  const res = await fetch(`${t.cloud!.sims.urls.compute}/servers`, {
    method: 'POST',
    headers: { 'x-auth-token': token, 'content-type': 'application/json', 'openstack-api-version': 'compute 2.79' },
    body: JSON.stringify({ server: { name, flavorRef: '1', imageRef: [...t.cloud!.glance.images.values()].find((i) => i.name === 'cirros')!.id, networks: 'none', tags: [tag], metadata, ...(zone ? { availability_zone: zone } : {}) } }),
  });
  const body = (await res.json()) as { server: { id: string } };
  assert.equal(res.status, 202, JSON.stringify(body));
  return body.server.id;
}

async function record(cluster: string, id: string, name: string): Promise<void> {
  await t.app.services.db.query(`INSERT INTO cluster_resource (cluster_id, service, type, cloud_id, name, step) VALUES ($1, 'compute', 'server', $2, $3, 'servers')`, [cluster, id, name]);
}

test('a group’s nodes: the ledger checked against Nova, the default worker group included; Nova down says so; scoped', async () => {
  const { cluster } = await insertCluster(t.app, { user: demoUser, project: demoProject, name: 'nodes-one', nodegroups: true, pki: false });
  const groups = (await t.app.services.db.query(`SELECT uuid, role FROM nodegroup WHERE cluster_id = $1`, [cluster.uuid])) as { uuid: string; role: string }[];
  const worker = groups.find((g) => g.role === 'worker')!.uuid;
  const master = groups.find((g) => g.role === 'master')!.uuid;
  const short = shortName(cluster.name, cluster.uuid);
  const token = await t.token('demo');
  const tag = clusterTag(cluster.uuid);
  const w1 = await boot(token, `${short}-worker-aaaaa`, tag, { [META.nodegroup]: worker, [META.role]: 'worker' }, 'az-2');
  const cp = await boot(token, `${short}-control-plane-bbbbb`, tag, { [META.nodegroup]: master, [META.role]: 'init' });
  const unrecorded = await boot(token, `${short}-worker-ccccc`, tag, { [META.nodegroup]: worker, [META.role]: 'worker' });
  await record(cluster.uuid, w1, `${short}-worker-aaaaa`);
  await record(cluster.uuid, cp, `${short}-control-plane-bbbbb`);
  await record(cluster.uuid, 'replaced-long-ago', `${short}-worker-ddddd`); // the ledger outlived it

  const r = await t.as('demo-reader', { method: 'GET', url: `/v1/clusters/nodes-one/nodegroups/default-worker/nodes` });
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json();
  assert.equal(body.nodegroup, 'default-worker');
  assert.deepEqual(body.unreachable, []);
  assert.deepEqual(body.nodes.map((n: { id: string }) => n.id).sort(), [w1, unrecorded].sort());
  const one = body.nodes.find((n: { id: string }) => n.id === w1);
  assert.equal(one.name, `${short}-worker-aaaaa`);
  assert.equal(one.role, 'worker');
  assert.equal(one.availability_zone, 'az-2');
  assert.match(one.status, /^(BUILD|ACTIVE)$/);
  assert.equal(one.source, 'ledger+cloud');
  assert.equal(body.nodes.find((n: { id: string }) => n.id === unrecorded).source, 'cloud');
  assert.ok(!Number.isNaN(Date.parse(one.created_at)));

  const cps = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/nodegroups/${master}/nodes` })).json();
  assert.deepEqual(cps.nodes.map((n: { id: string; role: string }) => [n.id, n.role]), [[cp, 'control-plane']]);

  // The delete preview: the servers that exist now, not the ledger's stale row.
  const preview = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/resources` })).json();
  const servers = preview.resources.filter((x: { type: string }) => x.type === 'server').map((x: { id: string }) => x.id).sort();
  assert.deepEqual(servers, [w1, cp, unrecorded].sort());

  // Nova refusing: the ledger alone, matched by name, with no status; the preview names compute.
  const unfault = t.cloud!.sims.faults.nova.inject({ operation: 'GET /servers/detail', action: 'error', status: 403, message: 'Policy does not allow it.' });
  try {
    const down = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/nodegroups/default-worker/nodes` })).json();
    assert.deepEqual(down.unreachable, ['compute']);
    assert.deepEqual(down.nodes.map((n: { id: string; status: null; source: string }) => [n.id, n.status, n.source]), [[w1, null, 'ledger'], ['replaced-long-ago', null, 'ledger']]);
    const p = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/resources` })).json();
    assert.ok(p.unreachable.includes('compute'), JSON.stringify(p.unreachable));
  } finally {
    unfault();
  }

  assert.equal((await t.as('other', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/nodegroups/default-worker/nodes` })).statusCode, 404);
  const missing = await t.as('demo', { method: 'GET', url: `/v1/clusters/${cluster.uuid}/nodegroups/no-such-group/nodes` });
  assert.equal(missing.statusCode, 404);
  assert.match(missing.json().errors[0].detail, /no-such-group/);
});
