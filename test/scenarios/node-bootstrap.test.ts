// Nodes that never join, as on a real cloud (the simulator boots what the image would): the create
// shows the cause found on the servers' consoles while it runs, and fails at its create_timeout with
// it. The deadline is brought forward by moving the operation's start back, as time would.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from '../../workers/main.js';
import { api, deleteCluster, harness, leftovers, settled, until, type Harness, type Json } from './lifecycle-support.js';

let h: Harness;
before(async () => {
  h = await harness();
});
after(() => h?.close());

async function template(name: string, image: string, labels: Record<string, string>): Promise<string> {
  const r = await api(h, 'POST', '/v1/clustertemplates', {
    name, coe: 'kubernetes', image_id: image, external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: false, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: 'v1.35.1', ...labels },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.uuid as string;
}

/** Waits until the running create's status_reason matches, then moves the create's start two hours back. */
async function pastDeadline(uuid: string, reason: RegExp): Promise<Json> {
  const running = await until(`status_reason ${reason}`, async () => {
    const c = (await api(h, 'GET', `/v1/clusters/${uuid}`)).body;
    return c.status === 'CREATE_IN_PROGRESS' && reason.test(String(c.status_reason)) && c;
  }, 60_000);
  await h.t.app.services.db.query(`UPDATE operation SET created_at = created_at - interval '2 hours' WHERE cluster_id = $1 AND kind = 'create'`, [uuid]);
  return running;
}

test('no Kubernetes on the image and installing disabled: the cause shows while the create runs, and is the reason it fails at its deadline', async () => {
  const worker = await startWorker(h.workerOptions());
  try {
    const ct = await template('no-install', 'ubuntu-24.04', { kube_install_at_boot: 'false' });
    const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: ct, name: 'air-gapped', master_count: 1, node_count: 1 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const uuid = r.body.uuid as string;
    const cause = 'its bootstrap failed: kubeadm and kubelet 1.35.x are required; installing at boot is disabled (label kube_install_at_boot=false) and the image has: no kubeadm';
    const running = await pastDeadline(uuid, /its bootstrap failed/);
    assert.match(running.status_reason, /^control_plane: Waiting for the API at https:\/\/[\d.]+:6443 to answer \/readyz; server air-gapped-[a-z0-9]+-control-plane-[a-z0-9]+: /);
    assert.ok(running.status_reason.endsWith(`${cause}.`), running.status_reason);
    const failed = await settled(h, uuid, 'CREATE_FAILED');
    assert.match(failed.status_reason, /^NodeBootstrapFailed: The create did not complete within 60 minutes: Waiting for the API/);
    assert.ok(failed.status_reason.includes(cause), failed.status_reason);
    const ngs = (await api(h, 'GET', `/v1/clusters/${uuid}/nodegroups`)).body.nodegroups as { uuid: string; status: string }[];
    assert.deepEqual(ngs.map((g) => g.status), ['CREATE_FAILED', 'CREATE_FAILED']);
    const master = (await api(h, 'GET', `/v1/clusters/${uuid}/nodegroups/${ngs[0]!.uuid}`)).body;
    assert.ok(String(master.status_reason).includes(cause), master.status_reason);
    await deleteCluster(h, uuid);
    assert.deepEqual(leftovers(h), []);
  } finally {
    await worker.close();
  }
});

test('an image that turned into Fedora CoreOS after its nodes\' cloud-config was made: Ignition refuses it, and the create fails at its deadline saying so', async () => {
  const glance = h.t.cloud!.glance;
  const image = glance.addImage({ name: 'turncoat', visibility: 'public', size: 644245094, min_disk: 10, properties: { os_distro: 'ubuntu', os_version: '24.04' } });
  // The image changes the moment the first server is made: every node got cloud-config, every node boots Ignition.
  const worker = await startWorker(h.workerOptions({ runner: { lockRetryMs: 50, pollMs: 20, backoff: { baseMs: 20, maxMs: 300, maxRetries: 30 }, hooks: {
    afterCreate: async (type) => {
      if (type === 'server') image.properties.os_distro = 'fedora-coreos';
    },
  } } }));
  try {
    const ct = await template('turncoat', 'turncoat', {});
    const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: ct, name: 'turncoat', master_count: 1, node_count: 1 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const uuid = r.body.uuid as string;
    await pastDeadline(uuid, /Ignition could not read its user-data/);
    const failed = await settled(h, uuid, 'CREATE_FAILED');
    assert.match(failed.status_reason, /^UserDataNotRead: The create did not complete within 60 minutes: .*server turncoat-[a-z0-9]+-control-plane-[a-z0-9]+: Ignition could not read its user-data \(an Ignition image, such as Fedora CoreOS, reads only Ignition configs, not cloud-config\), so it never bootstrapped\.$/);
    await deleteCluster(h, uuid);
    assert.deepEqual(leftovers(h), []);
  } finally {
    await worker.close();
    glance.images.delete(image.id);
  }
});

test('prebuilt images: a cluster of ubuntu-2404-kube-v1.35.5 upgraded to a template of ubuntu-2404-kube-v1.36.1 replaces its nodes from the new image, which its groups then name', async () => {
  const worker = await startWorker(h.workerOptions());
  try {
    const mk = async (name: string, image: string, tag: string) => {
      const r = await api(h, 'POST', '/v1/clustertemplates', { name, coe: 'kubernetes', image_id: image, external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', master_lb_enabled: true, network_driver: 'calico', labels: { kube_tag: tag } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.uuid as string;
    };
    const from = await mk('prebuilt-135', 'ubuntu-2404-kube-v1.35.5', 'v1.35.5');
    const to = await mk('prebuilt-136', 'ubuntu-2404-kube-v1.36.1', 'v1.36.1');
    const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: from, name: 'prebuilt', master_count: 1, node_count: 1 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const uuid = r.body.uuid as string;
    await settled(h, uuid, 'CREATE_COMPLETE');
    const glance = h.t.cloud!.glance;
    const imageOf = () => [...h.t.cloud!.nova.servers.values()].filter((s) => s.vmState !== 'deleted' && s.tags.includes(`magnum-cluster=${uuid}`)).map((s) => glance.images.get(s.imageId)?.name);
    assert.deepEqual(imageOf(), ['ubuntu-2404-kube-v1.35.5', 'ubuntu-2404-kube-v1.35.5']);
    const up = await api(h, 'POST', `/v1/clusters/${uuid}/actions/upgrade`, { cluster_template: to });
    assert.equal(up.status, 202, JSON.stringify(up.body));
    const done = await settled(h, uuid, 'UPDATE_COMPLETE');
    assert.equal(done.coe_version, 'v1.36.1');
    assert.deepEqual(imageOf(), ['ubuntu-2404-kube-v1.36.1', 'ubuntu-2404-kube-v1.36.1']);
    // Node groups name their image as the template does (here by name).
    const ngs = (await api(h, 'GET', `/v1/clusters/${uuid}/nodegroups`)).body.nodegroups as { uuid: string }[];
    for (const g of ngs) assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}/nodegroups/${g.uuid}`)).body.image_id, 'ubuntu-2404-kube-v1.36.1');
    await deleteCluster(h, uuid);
    assert.deepEqual(leftovers(h), []);
  } finally {
    await worker.close();
  }
});
