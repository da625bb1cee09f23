// Issue 6 item 3: the volumes a cluster's Cinder CSI made (metadata cinder.csi.openstack.org/cluster
// = the cluster's uuid) are kept by its delete unless the label cinder_csi_delete_volumes says so;
// another cluster's volumes and the project's own are never touched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, deleteCluster, type Harness, leftovers, settled, withHarness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => (h = x));

const cinder = () => h.t.cloud!.sims.cinder.state;
const CSI = 'cinder.csi.openstack.org/cluster';

async function clusterWithVolume(name: string, labels: Record<string, string>): Promise<{ uuid: string; volume: string }> {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name, master_count: 1, node_count: 1, labels: { kube_tag: 'v1.35.1', ...labels } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  // What the CSI controller would have made for a PersistentVolumeClaim.
  const v = cinder().create({ size: 1, projectId: h.project, userId: 'csi', name: `pvc-${name}`, metadata: { [CSI]: uuid } });
  return { uuid, volume: v.id };
}

const live = (id: string) => {
  const v = cinder().volumes.get(id);
  return v !== undefined && v.status !== 'deleted';
};

test('by default the volumes stay; with cinder_csi_delete_volumes=true they go; nothing else is touched', async () => {
  const own = cinder().create({ size: 1, projectId: h.project, userId: 'someone', name: 'not-a-cluster-volume', metadata: {} });
  const kept = await clusterWithVolume('keeps', {});
  const removed = await clusterWithVolume('removes', { cinder_csi_delete_volumes: 'true' });

  await deleteCluster(h, kept.uuid);
  assert.ok(live(kept.volume), 'the volume of a cluster without the label is kept');
  assert.ok(live(removed.volume), "another cluster's volume is not touched");

  await deleteCluster(h, removed.uuid);
  assert.ok(!live(removed.volume), 'the volume of a cluster with the label is deleted');
  assert.ok(live(kept.volume) && live(own.id), 'the kept volume and the project\'s own volume stay');

  const rest = leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`).sort();
  assert.deepEqual(rest, [`cinder:volume:${kept.volume}`, `cinder:volume:${own.id}`].sort());
});

test('a bad value of the label is a 400 naming it', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'bad', labels: { kube_tag: 'v1.35.1', cinder_csi_delete_volumes: 'sometimes' } });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.match(r.body.errors[0].detail, /cinder_csi_delete_volumes/);
});
