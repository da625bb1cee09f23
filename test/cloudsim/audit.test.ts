// The audit: every live resource of every service by owning project, with tags, as
// CloudSims.audit() and over the admin API; and the per-operation call counters.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone, startSims } from '../support/app.js';
import { call, waitFor } from '../support/http.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let demo: string;
let admin: string;
let demoId: string;

before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone);
  demo = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
  admin = await passwordToken(keystone, 'admin', BUILTIN_USERS.admin.password, 'admin');
  demoId = keystone.state.projectId('demo');
});
after(async () => {
  assertFreshIndexes(sims);
  await sims.close();
  await keystone.app.close();
});

test('every live resource of a project, across services, with its tags; gone when deleted', async () => {
  sims.resetCalls();
  const ids = () => new Set(sims.audit(demoId).projects.flatMap((p) => p.resources.map((r) => r.id)));
  const before = ids();
  const network = (await call('POST', `${sims.urls.network}/v2.0/networks`, demo, { network: { name: 'k8s-net' } })).body.network;
  assert.equal((await call('PUT', `${sims.urls.network}/v2.0/networks/${network.id}/tags/cluster=c1`, demo)).status, 201);
  const subnet = (await call('POST', `${sims.urls.network}/v2.0/subnets`, demo, { subnet: { network_id: network.id, cidr: '10.9.0.0/24', ip_version: 4 } })).body.subnet;
  const lb = (await call('POST', `${sims.urls['load-balancer']}/v2/lbaas/loadbalancers`, demo, { loadbalancer: { name: 'api-lb', vip_subnet_id: subnet.id, tags: ['cluster=c1'] } })).body.loadbalancer;
  const volumes = sims.urls['block-storage'].replace('%(project_id)s', demoId);
  const volume = (await call('POST', `${volumes}/volumes`, demo, { volume: { size: 1, name: 'etcd', metadata: { cluster: 'c1' } } })).body.volume;
  const zone = (await call('POST', `${sims.urls.dns}/v2/zones`, demo, { name: 'c1.example.org.', email: 'a@b.org' })).body;

  const mine = sims.audit(demoId);
  assert.equal(mine.projects.length, 1);
  assert.equal(mine.projects[0]!.project_name, 'demo');
  const found = (service: string, type: string, id: string) => mine.projects[0]!.resources.find((r) => r.service === service && r.type === type && r.id === id);
  assert.deepEqual(found('neutron', 'network', network.id)?.tags, ['cluster=c1']);
  assert.ok(found('neutron', 'subnet', subnet.id));
  assert.deepEqual(found('octavia', 'loadbalancer', lb.id)?.tags, ['cluster=c1']);
  assert.deepEqual(found('cinder', 'volume', volume.id), { service: 'cinder', type: 'volume', id: volume.id, project_id: demoId, name: 'etcd', tags: ['cluster=c1'] });
  assert.equal(found('designate', 'zone', zone.id)?.name, 'c1.example.org.');
  assert.ok(mine.projects[0]!.resources.some((r) => r.service === 'neutron' && r.type === 'port' && r.id === lb.vip_port_id), 'the VIP port is the project\'s');
  assert.ok(!mine.projects[0]!.resources.some((r) => r.service === 'designate' && r.type === 'recordset'), 'SOA and NS are Designate\'s own');

  const everything = sims.audit();
  const admins = everything.projects.find((p) => p.project_name === 'admin');
  assert.ok(admins?.resources.some((r) => r.type === 'network' && r.name === 'public'), 'the seeded public network belongs to admin');
  assert.ok(everything.projects.some((p) => p.project_id === demoId));

  // Over the admin API: the same document, admins only.
  const http = await call('GET', `${sims.urls['cloudsim-admin']}/audit?project_id=${demoId}`, admin);
  assert.equal(http.status, 200);
  assert.deepEqual(http.body, JSON.parse(JSON.stringify(sims.audit(demoId))));
  assert.equal((await call('GET', `${sims.urls['cloudsim-admin']}/audit`, demo)).status, 403);

  // Deleting empties the project.
  await waitFor(() => call('GET', `${sims.urls['load-balancer']}/v2/lbaas/loadbalancers/${lb.id}`, demo), (r) => r.body?.loadbalancer?.provisioning_status === 'ACTIVE');
  await waitFor(() => call('GET', `${volumes}/volumes/${volume.id}`, demo), (r) => r.body?.volume?.status === 'available');
  assert.equal((await call('DELETE', `${sims.urls['load-balancer']}/v2/lbaas/loadbalancers/${lb.id}`, demo)).status, 204);
  assert.equal((await call('DELETE', `${volumes}/volumes/${volume.id}`, demo)).status, 202);
  assert.equal((await call('DELETE', `${sims.urls.dns}/v2/zones/${zone.id}`, demo)).status, 202);
  await waitFor(async () => sims.audit(demoId), (a) => (a.projects[0]?.resources ?? []).every((r) => r.service === 'neutron' || r.service === 'glance'));
  assert.equal((await call('DELETE', `${sims.urls.network}/v2.0/networks/${network.id}`, demo)).status, 204);
  // Nothing left but what was there before: no leak.
  const left = sims.audit(demoId).projects.flatMap((p) => p.resources).filter((r) => !before.has(r.id));
  assert.deepEqual(left, []);

  // The calls made above, by service and operation.
  const calls = sims.calls();
  assert.equal(calls['neutron POST /networks'], 1);
  assert.equal(calls['neutron PUT /networks/:id/tags/:tag'], 1);
  assert.equal(calls['octavia POST /lbaas/loadbalancers'], 1);
  assert.equal(calls['cinder POST /volumes'], 1);
  assert.equal(calls['designate POST /zones'], 1);
  assert.equal(calls['designate DELETE /zones/:zone_id'], 1);
  const viaHttp = await call('GET', `${sims.urls['cloudsim-admin']}/calls`, admin);
  assert.equal(viaHttp.body.calls['neutron POST /networks'], 1);
  assert.equal((await call('DELETE', `${sims.urls['cloudsim-admin']}/calls`, admin)).status, 204);
  assert.deepEqual(sims.calls(), {});
});

test('every boot by project and name: a name booted again is listed, and whether the first server still lived (a duplicate)', async () => {
  const nova = sims.urls.compute;
  const image = (await call('GET', `${sims.urls.image}/v2/images?name=ubuntu-24.04`, demo)).body.images[0].id as string;
  const boot = async (name: string) => {
    const r = await call('POST', `${nova}/servers`, demo, { server: { name, flavorRef: '2', imageRef: image, networks: 'none' } }, { 'X-OpenStack-Nova-API-Version': '2.37' });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    return r.body.server.id as string;
  };
  const before = sims.boots(demoId).booted;
  const first = await boot('twice-at-once');
  const second = await boot('twice-at-once');
  const replaced = await boot('replaced');
  assert.equal((await call('DELETE', `${nova}/servers/${replaced}`, demo)).status, 204);
  await waitFor(() => call('GET', `${nova}/servers/${replaced}`, demo), (r) => r.status === 404);
  const replacement = await boot('replaced');
  const once = await boot('once');

  const report = sims.boots(demoId);
  assert.equal(report.booted - before, 5);
  assert.deepEqual(report.repeated, [
    { project_id: demoId, name: 'twice-at-once', server_ids: [first, second], concurrent: true },
    { project_id: demoId, name: 'replaced', server_ids: [replaced, replacement], concurrent: false },
  ]);
  assert.deepEqual(sims.boots(keystone.state.projectId('other')), { booted: 0, names: 0, repeated: [] });
  const http = await call('GET', `${sims.urls['cloudsim-admin']}/boots?project_id=${demoId}`, admin);
  assert.equal(http.status, 200);
  assert.deepEqual(http.body, report);
  assert.equal((await call('GET', `${sims.urls['cloudsim-admin']}/boots`, demo)).status, 403);
  for (const id of [first, second, replacement, once]) assert.equal((await call('DELETE', `${nova}/servers/${id}`, demo)).status, 204);
});
