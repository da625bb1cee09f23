// Labels boot_volume_* and etcd_volume_*: every node boots from a Cinder volume made from the image,
// control planes get a blank etcd volume that cloud-init formats and mounts at /var/lib/etcd, and
// the volumes go with their servers when the cluster is deleted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, deleteCluster, type Harness, leftovers, servers, settled, withHarness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => (h = x));

test('boot and etcd volumes are made, attached, mounted by cloud-init, and deleted with the cluster', async () => {
  const labels = { kube_tag: 'v1.35.1', boot_volume_size: '20', etcd_volume_size: '5' };
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'vols', master_count: 1, node_count: 1, labels });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  const cinder = h.t.cloud!.sims.cinder.state;
  const nova = h.t.cloud!.nova;
  for (const [name, s] of servers(h, uuid)) {
    const server = nova.servers.get(s.id)!;
    const vols = [...cinder.volumes.values()].filter((v) => cinder.attachmentsOf(v.id).some((a) => a.serverId === s.id));
    const sizes = vols.map((v) => v.size).sort((a, b) => a - b);
    const userData = Buffer.from(server.userData ?? '', 'base64').toString();
    if (s.metadata.magnum_role === 'worker') {
      assert.deepEqual(sizes, [20], `${name}: a 20 GB boot volume`);
      assert.doesNotMatch(userData, /fs_setup/);
    } else {
      assert.deepEqual(sizes, [5, 20], `${name}: boot volume and etcd volume`);
      assert.match(userData, /label: etcd/);
      assert.match(userData, /\/var\/lib\/etcd/);
    }
    assert.ok(vols.every((v) => v.status === 'in-use'), `${name}: its volumes are in use`);
  }
  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), [], 'the volumes went with their servers');
});

test('a bad size is a 400 naming the label', async () => {
  const bad = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'badvol', labels: { kube_tag: 'v1.35.1', etcd_volume_size: 'big' } });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  assert.match(bad.body.errors[0].detail, /etcd_volume_size/);
});
