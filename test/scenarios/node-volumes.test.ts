// Labels boot_volume_*, etcd_volume_* and docker_volume_size (with the label docker_volume_type): every
// node boots from a Cinder volume made from the image, control planes get a blank etcd volume, every
// node a container runtime volume (a node group's own size for its nodes), formatted and mounted by
// cloud-init; the volumes go with their servers. The Nodes carry their group's labels and taints
// (node_labels, node_taints at 1.14), read back through the cluster's API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, deleteCluster, type Harness, leftovers, servers, settled, userKubeClient, withHarness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => (h = x));

test('boot, etcd and runtime volumes are made, attached, mounted by cloud-init, and deleted with the cluster; Nodes carry their group\'s labels and taints', async () => {
  // The cloud offers a second volume type, which the runtime volumes ask for (an unknown one is Cinder's 404).
  h.t.cloud!.sims.cinder.state.types.set('fast-type', { id: 'fast-type', name: 'fast', description: 'SSD', isPublic: true, extraSpecs: {} });
  const labels = { kube_tag: 'v1.35.1', boot_volume_size: '20', etcd_volume_size: '5', docker_volume_type: 'fast' };
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'vols', master_count: 1, node_count: 1, docker_volume_size: 8, labels });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  const cinder = h.t.cloud!.sims.cinder.state;
  const nova = h.t.cloud!.nova;
  const volumesOf = (serverId: string) => [...cinder.volumes.values()].filter((v) => cinder.attachmentsOf(v.id).some((a) => a.serverId === serverId));
  for (const [name, s] of servers(h, uuid)) {
    const server = nova.servers.get(s.id)!;
    const vols = volumesOf(s.id);
    const sizes = vols.map((v) => v.size).sort((a, b) => a - b);
    const userData = Buffer.from(server.userData ?? '', 'base64').toString();
    if (s.metadata.magnum_role === 'worker') {
      assert.deepEqual(sizes, [8, 20], `${name}: boot volume and runtime volume`);
      assert.doesNotMatch(userData, /label: etcd/);
    } else {
      assert.deepEqual(sizes, [5, 8, 20], `${name}: boot, etcd and runtime volumes`);
      assert.match(userData, /label: etcd/);
      assert.match(userData, /\/var\/lib\/etcd/);
    }
    assert.match(userData, /label: containerd/);
    assert.match(userData, /- LABEL=containerd\n\s+- \/var\/lib\/containerd/);
    // The service made the volumes (in the server's zone: zones.test.ts); the server takes them and deletes them with it.
    const runtime = server.blockDevices.find((b) => b.tag === 'containerd')!;
    assert.deepEqual([runtime.sourceType, runtime.deleteOnTermination], ['volume', true], `${name}: the runtime volume's mapping`);
    const made = cinder.volumes.get(runtime.volumeId!)!;
    assert.deepEqual([made.name, made.size, made.volumeType], [`${name}-containerd`, 8, 'fast'], `${name}: the runtime volume`);
    const boot = cinder.volumes.get(server.blockDevices.find((b) => b.bootIndex === 0)!.volumeId!)!;
    assert.deepEqual([boot.name, boot.size, boot.bootable], [`${name}-root`, 20, true], `${name}: the boot volume, made from the image`);
    assert.ok(vols.every((v) => v.status === 'in-use'), `${name}: its volumes are in use`);
  }

  // A node group of its own: its runtime volume size, its Node labels and taints.
  const ng = await api(h, 'POST', `/v1/clusters/${uuid}/nodegroups`, {
    name: 'gpu', node_count: 1, docker_volume_size: 12,
    node_labels: { 'example.org/tier': 'gpu', 'node.kubernetes.io/pool': 'gpu' },
    node_taints: [{ key: 'example.org/gpu', value: 'true', effect: 'NoSchedule' }],
  });
  assert.equal(ng.status, 202, JSON.stringify(ng.body));
  await settled(h, uuid, 'UPDATE_COMPLETE');
  const gpu = [...servers(h, uuid)].find(([n]) => n.includes('-gpu-'))!;
  assert.deepEqual(volumesOf(gpu[1].id).map((v) => v.size).sort((a, b) => a - b), [12, 20], 'the group\'s own runtime volume size');

  const kube = await userKubeClient(h, uuid);
  try {
    const nodes = new Map((await kube.listNodes()).map((n) => [n.metadata.name, n]));
    assert.equal(nodes.size, 3);
    for (const [name, s] of servers(h, uuid)) {
      const node = nodes.get(name)!;
      const l = node.metadata.labels ?? {};
      const group = s.metadata.magnum_role === 'worker' ? (name.includes('-gpu-') ? 'gpu' : 'default-worker') : 'default-master';
      assert.equal(l['magnum.openstack.org/nodegroup'], group, name);
      assert.equal(l['magnum.openstack.org/role'], group === 'default-master' ? 'master' : 'worker', name);
      const custom = (node.spec?.taints ?? []).filter((t) => t.key === 'example.org/gpu');
      if (group === 'gpu') {
        assert.deepEqual([l['example.org/tier'], l['node.kubernetes.io/pool']], ['gpu', 'gpu']);
        assert.deepEqual(custom, [{ key: 'example.org/gpu', value: 'true', effect: 'NoSchedule' }]);
      } else {
        assert.equal(l['example.org/tier'], undefined);
        assert.deepEqual(custom, []);
      }
    }
  } finally {
    kube.close();
  }
  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), [], 'the volumes went with their servers');
});

test('a bad size is a 400 naming the label', async () => {
  const bad = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'badvol', labels: { kube_tag: 'v1.35.1', etcd_volume_size: 'big' } });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  assert.match(bad.body.errors[0].detail, /etcd_volume_size/);
  const badType = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'badvol', docker_volume_size: 5, labels: { kube_tag: 'v1.35.1', docker_volume_type: 'a\tb' } });
  assert.equal(badType.status, 400, JSON.stringify(badType.body));
  assert.match(badType.body.errors[0].detail, /docker_volume_type/);
});
