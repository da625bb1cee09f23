// Issue 5 item 4 (Manila CSI, RWX) through the API and the workers: the plugin gets the cluster's credential,
// its uuid as cluster id and a StorageClass open to the cluster subnet only; the shares it makes (here made with
// that credential, as the plugin would) are kept at delete by default, and deleted when the cluster
// asked for it, never another cluster's; a cloud without Manila fails the create on the add-ons.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MANILA_CLUSTER_KEY, MANILA_SECRET } from '../../src/features/manila-csi/addon.js';
import { api, deleteCluster, leftovers, settled, withHarness, withoutService, type Harness, type Json } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => {
  h = x;
});

async function template(name: string, labels: Record<string, string>): Promise<string> {
  const r = await api(h, 'POST', '/v1/clustertemplates', {
    name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: 'v1.35.1', manila_csi_enabled: 'true', ...labels },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.uuid as string;
}

/** The store of the simulated cluster whose Manila plugin runs with `uuid` as its cluster id. */
function storeOf(uuid: string) {
  const c = [...h.t.cloud!.sims.kube.clusters.values()].find((x) =>
    JSON.stringify(x.store.get({ group: 'apps', resource: 'statefulsets', namespace: 'kube-system', name: 'openstack-manila-csi-controllerplugin' }) ?? {}).includes(`--cluster-id=${uuid}`),
  );
  assert.ok(c, 'the controller plugin was applied with the cluster uuid as its cluster id');
  return (group: string, resource: string, namespace: string, name: string) => c.store.get({ group, resource, namespace, name }) as Json | undefined;
}

/** What the plugin would do with the credential it is given: a share of the cluster, through Manila's API. */
async function shareAs(env: Record<string, string>, name: string, cluster: string): Promise<string> {
  const auth = await h.t.keystone.app.inject({
    method: 'POST',
    url: '/v3/auth/tokens',
    payload: { auth: { identity: { methods: ['application_credential'], application_credential: { id: env['os-applicationCredentialID'], secret: env['os-applicationCredentialSecret'] } } } },
  });
  assert.equal(auth.statusCode, 201, auth.body);
  const res = await h.t.cloud!.sims.manila.app.inject({
    method: 'POST',
    url: '/v2/shares',
    headers: { 'x-auth-token': auth.headers['x-subject-token'] as string, 'x-openstack-manila-api-version': '2.65' },
    payload: { share: { share_proto: 'NFS', size: 1, name, share_type: 'default', metadata: { [MANILA_CLUSTER_KEY]: cluster, 'csi.storage.k8s.io/pvc/name': name } } },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().share.id as string;
}

const shares = () => [...h.t.cloud!.sims.manila.state.shares.values()];

async function createWithShares(name: string, labels: Record<string, string>): Promise<{ uuid: string; mine: string; foreign: string }> {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: await template(name, labels), name, master_count: 1, node_count: 1 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  const get = storeOf(uuid);
  const sc = get('storage.k8s.io', 'storageclasses', '', 'csi-manila-nfs');
  assert.ok(sc, 'the StorageClass was applied');
  assert.equal(sc.parameters['nfs-shareClient'], '10.0.0.0/24', 'shares are mountable from the cluster subnet only');
  const secret = get('', 'secrets', 'kube-system', MANILA_SECRET)!;
  const env = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  const mine = await shareAs(env, `pvc-${name}`, uuid);
  const foreign = await shareAs(env, `pvc-${name}-other`, '00000000-0000-4000-8000-000000000000');
  await settledShares();
  return { uuid, mine, foreign };
}

async function settledShares(): Promise<void> {
  for (let i = 0; i < 200 && shares().some((s) => s.status === 'creating'); i++) await new Promise((r) => setTimeout(r, 25));
}

test('by default the shares of the cluster are kept at delete and listed; other shares are untouched', async () => {
  const { uuid, mine, foreign } = await createWithShares('mkeep', {});
  await deleteCluster(h, uuid);
  assert.ok(shares().some((s) => s.id === mine), 'the cluster\'s share is kept');
  assert.ok(shares().some((s) => s.id === foreign));
  for (const s of [mine, foreign]) h.t.cloud!.sims.manila.state.shares.delete(s);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});

test('manila_csi_delete_shares=true: the delete removes the cluster\'s shares, and only them', async () => {
  const { uuid, mine, foreign } = await createWithShares('mdel', { manila_csi_delete_shares: 'true' });
  await deleteCluster(h, uuid);
  assert.ok(!shares().some((s) => s.id === mine), 'the cluster\'s share is gone');
  assert.ok(shares().some((s) => s.id === foreign), 'another cluster\'s share stays');
  h.t.cloud!.sims.manila.state.shares.delete(foreign);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});

test('a cloud without Manila fails the create on the add-ons condition with the reason', async () => {
  await withoutService(h, 'sharev2', async () => {
    const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: await template('mnone', {}), name: 'mnone', master_count: 1, node_count: 1 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const c = await settled(h, r.body.uuid, 'CREATE_FAILED');
    assert.match(c.status_reason, /manila_csi_enabled needs the shared file system service \(Manila\)/);
    await deleteCluster(h, r.body.uuid);
  });
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});
