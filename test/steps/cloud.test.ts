// The cluster's clients (src/steps/cloud.ts), against Keystone and the simulated cloud: every client acts as the
// cluster (its application credential, in its project); none without a credential; the sealed secret opens only
// for its own cluster; the simulator's admin API as the cluster, none when the catalog lacks it; the credential
// deleted as the service user (a 404 is false); what cloud.conf and the cluster API's bounds are made from.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CloudFactory } from '../../src/steps/cloud.js';
import { startStepCloud, stepRun, withoutService, type StepCloud } from '../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

test('every client acts as the cluster, in its project; without a credential there are none', async () => {
  const r = await stepRun(cloud);
  const clients = cloud.factory.forCluster(r.ctx.cluster);
  assert.ok(clients);
  const net = await (await clients.neutron()).networks.create({ name: 'as-the-cluster' } as never);
  assert.equal(net.project_id, r.project);
  for (const make of [clients.octavia, clients.servers, clients.novaResources, clients.nova, clients.glance, clients.cinder, clients.designate, clients.manila, clients.barbican]) assert.ok(await make());
  assert.ok((await (await clients.nova()).listFlavors()).some((f) => f.name === 'm1.small'));
  const none = await stepRun(cloud, { credential: false });
  assert.equal(cloud.factory.forCluster(none.ctx.cluster), undefined);
  assert.equal(cloud.factory.credentialSecret(none.ctx.cluster), undefined);
});

test('the secret opens for its own cluster only', async () => {
  const r = await stepRun(cloud);
  assert.match(cloud.factory.credentialSecret(r.ctx.cluster) ?? '', /.{16,}/);
  const moved = { ...r.ctx.cluster, uuid: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d' };
  assert.throws(() => cloud.factory.credentialSecret(moved));
  assert.throws(() => cloud.factory.forCluster(moved));
});

test('the simulator\'s admin API as the cluster; none on a cloud without it (a real one)', async () => {
  const r = await stepRun(cloud);
  const admin = await cloud.factory.forCluster(r.ctx.cluster)!.simulatorAdmin();
  assert.equal(typeof admin, 'function');
  // What the worker asks it: where a cluster API's address is served (none yet: a 404), not what only an admin reads.
  await assert.rejects(admin!(`/kube/endpoints?${new URLSearchParams({ address: '203.0.113.250', port: '6443' })}`), (e: unknown) => (e as { status?: number }).status === 404);
  await assert.rejects(admin!('/audit'), (e: unknown) => (e as { status?: number }).status === 403, 'the cluster is no admin');
  await withoutService(cloud, 'cloudsim-admin', async () => {
    const other = await stepRun(cloud);
    assert.equal(await cloud.factory.forCluster(other.ctx.cluster)!.simulatorAdmin(), undefined);
  });
});

test('the credential deleted as the service user under its owner: true, then false once gone; a new login with it fails', async () => {
  const r = await stepRun(cloud);
  const c = r.ctx.cluster;
  await (await cloud.factory.forCluster(c)!.neutron()).networks.list();
  assert.equal(await cloud.factory.deleteAppCredential(c.app_cred_user_id!, c.app_cred_id!), true);
  assert.equal(cloud.keystone.state.appCreds.get(c.app_cred_id!), undefined);
  assert.equal(await cloud.factory.deleteAppCredential(c.app_cred_user_id!, c.app_cred_id!), false);
  cloud.factory.forget(c.uuid);
  await assert.rejects(async () => (await cloud.factory.forCluster(c)!.neutron()).networks.list(), 'a new login with a deleted credential fails');
});

test('what cloud.conf and the cluster API\'s bounds come from', () => {
  assert.deepEqual(cloud.factory.identity, { authUrl: cloud.config.keystone.authUrl, region: 'RegionOne' });
  assert.deepEqual(cloud.factory.kubeLimits, cloud.config.kube);
  const bare = new CloudFactory({ keystone: cloud.config.keystone, openstack: { ...cloud.config.openstack, region: 'North' }, secretKeys: cloud.config.secretKeys });
  assert.deepEqual(bare.kubeLimits, {}, 'the client\'s own defaults');
  assert.equal(bare.identity.region, 'North');
});
