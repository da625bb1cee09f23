// The simulated servers boot the way their image would (cloudsim/kube/guest.ts): Fedora CoreOS
// reads Ignition and fails on cloud-config, Ubuntu's cloud-init ignores Ignition; an image's
// kube_version stands for the Kubernetes it carries, a stock image installs it when its script says
// how, and fails naming why when it may not; the kubelet registers the Node with its labels and taints
// and refuses labels it may not set. What the guests print is in Nova's console log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeReady, type KubeClient } from '../../src/kube/api-client.js';
import { nodeName } from '../../src/bootstrap/render-all.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { input, pki } from '../support/spec-fixtures.js';
import { startKubeHarness, until, type KubeHarness } from './kube-harness.js';

const SMALL = { network_driver: 'flannel', template: { master_lb_enabled: false }, cluster: { name: 'guest', master_count: 1, node_count: 1 }, labels: { kube_tag: 'v1.34.8' } };
const FCOS = { distro: 'fedora-coreos', kubeVersion: null } as const;
let h: KubeHarness;
before(async () => {
  h = await startKubeHarness({ cluster: SMALL });
  h.sims.glance.state.addImage({ name: 'ubuntu-kube-v1.34.8', visibility: 'public', properties: { os_distro: 'ubuntu', os_version: '24.04', kube_version: 'v1.34.8' } });
});
after(() => h?.close());

const consoleOf = async (id: string, length: number | null = null): Promise<string> =>
  (await h.ok(200, 'POST', `${h.sims.urls.compute}/servers/${id}/action`, { 'os-getConsoleOutput': { length } })).output as string;

describe('first boot by image', () => {
  let address: string;
  let kube: KubeClient;
  let n = 0;
  /** A worker booted from `image` with user-data rendered for `renderedFor` (Ubuntu by default). */
  const worker = async (image: string, over: Parameters<KubeHarness['userData']>[3] = {}) => {
    const port = await h.port(`wk-${++n}`);
    const name = nodeName(h.spec, 'worker', `w${n}`);
    const id = await h.boot(name, port.id, h.userData('worker', name, { address }, over), image);
    return { id, name };
  };

  test('a Fedora CoreOS control plane reads its Ignition config and initialises; a stock Ubuntu worker installs Kubernetes, then joins', async () => {
    const cp = await h.port('cp');
    address = cp.ip;
    const cpName = nodeName(h.spec, 'control-plane', 'a0000');
    const cpId = await h.boot(cpName, cp.id, h.userData('init', cpName, { address }, { image: FCOS }), 'fedora-coreos-43');
    kube = h.client(address, await h.identity(pki.ca));
    await until('the API', () => kube.readyz(), 10_000);
    const wk = await worker('ubuntu-24.04');
    const node = await until('the worker\'s Node', () => kube.getNode(wk.name), 10_000);
    assert.equal(node.status?.nodeInfo?.kubeletVersion, 'v1.34.8');
    assert.equal(node.status?.nodeInfo?.osImage, 'Ubuntu 24.04 LTS');
    assert.equal((await kube.getNode(cpName))?.status?.nodeInfo?.osImage, 'Fedora CoreOS 43');
    assert.match(await consoleOf(cpId), /Ignition finished successfully\nmagnum-bootstrap: installing Kubernetes v1\.34\.8\nmagnum-bootstrap: kubeadm init done/);
    assert.match(await consoleOf(wk.id), /magnum-bootstrap: installing Kubernetes v1\.34\.8\nmagnum-bootstrap: kubeadm join done/);
    assert.equal(await consoleOf(wk.id, 1), 'magnum-bootstrap: kubeadm join done\n', 'length: the last lines');
  });

  test('a Fedora CoreOS server given cloud-config boots, Ignition fails, and it never registers a Node', async () => {
    const wk = await worker('fedora-coreos-43');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(h.sims.kube.joinStatus(wk.id), undefined, 'no kubeadm ran');
    assert.equal(await kube.getNode(wk.name), undefined);
    assert.match(await consoleOf(wk.id), /failed to acquire config: config is not valid[\s\S]*Ignition has failed\. Please ensure your config is valid/);
    const server = await h.ok(200, 'GET', `${h.sims.urls.compute}/servers/${wk.id}`);
    assert.equal(server.server.status, 'ACTIVE', 'Nova cannot tell');
  });

  test('an Ubuntu server given an Ignition config: cloud-init does not understand it, no Node', async () => {
    const wk = await worker('ubuntu-24.04', { image: FCOS });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(h.sims.kube.joinStatus(wk.id), undefined);
    assert.equal(await kube.getNode(wk.name), undefined);
    assert.match(await consoleOf(wk.id), /Unhandled non-multipart \(text\/x-not-multipart\) userdata: 'b'\{"ignition/);
  });

  test('installing disabled on an image without Kubernetes: the bootstrap fails naming why, no Node', async () => {
    const spec = parseClusterSpec(input({ ...SMALL, labels: { ...SMALL.labels, kube_install_at_boot: 'false' } })).spec;
    const wk = await worker('ubuntu-24.04', { spec });
    const status = await until('failed', () => h.sims.kube.joinStatus(wk.id)?.state === 'failed' && h.sims.kube.joinStatus(wk.id));
    const why = 'kubeadm and kubelet 1.34.x are required; installing at boot is disabled (label kube_install_at_boot=false) and the image has: no kubeadm';
    assert.equal(status.lastError, why);
    assert.ok((await consoleOf(wk.id)).includes(`magnum-bootstrap: FAILED: ${why}`));
    assert.equal(await kube.getNode(wk.name), undefined);
  });

  test('a prebuilt image (kube_version) joins without installing; one of another minor fails', async () => {
    const spec = parseClusterSpec(input(SMALL)).spec;
    const ok = await worker('ubuntu-kube-v1.34.8', { spec, image: { distro: 'ubuntu', kubeVersion: 'v1.34.8' } });
    await until('joined', () => kube.getNode(ok.name), 10_000);
    assert.doesNotMatch(await consoleOf(ok.id), /installing/);
    const other = await worker('ubuntu-2404-kube-v1.35.5', { spec, image: { distro: 'ubuntu', kubeVersion: 'v1.34.8' } });
    const status = await until('failed', () => h.sims.kube.joinStatus(other.id)?.state === 'failed' && h.sims.kube.joinStatus(other.id));
    assert.match(status.lastError!, /kubeadm and kubelet 1\.34\.x are required; the image says it carries Kubernetes v1\.34\.8 \(property kube_version\) but has: v1\.35\.5/);
  });

  test('the Node registers with its group\'s labels and taints; a label the kubelet may not set keeps it from joining', async () => {
    const labels = { 'magnum.openstack.org/nodegroup': 'gpu', 'magnum.openstack.org/role': 'worker', 'example.org/tier': 'gpu' };
    const taints = [{ key: 'example.org/gpu', value: 'true', effect: 'NoSchedule' as const }];
    const wk = await worker('fedora-coreos-43', { image: FCOS, nodeLabels: labels, nodeTaints: taints });
    const node = await until('joined', () => kube.getNode(wk.name), 10_000);
    for (const [k, v] of Object.entries(labels)) assert.equal(node.metadata.labels?.[k], v, k);
    assert.ok(node.spec?.taints?.some((t) => t.key === 'example.org/gpu' && t.value === 'true' && t.effect === 'NoSchedule'));
    assert.equal((node.metadata.labels ?? {})['kubernetes.io/hostname'], wk.name);
    // The renderer refuses such labels; a hand-made user-data shows what a kubelet does with one.
    const text = h.userData('worker', 'bad-labels', { address }, { nodeLabels: { 'example.org/x': 'y' } }).replace('example.org/x=y', 'node-role.kubernetes.io/gpu=');
    const port = await h.port('bad');
    const id = await h.boot('bad-labels', port.id, text);
    await until('failed', () => h.sims.kube.joinStatus(id)?.state === 'failed');
    assert.match(await consoleOf(id), /unknown 'kubernetes\.io' or 'k8s\.io' labels specified with --node-labels: \[node-role\.kubernetes\.io\/gpu\]/);
    assert.ok((await kube.listNodes()).filter(nodeReady).length >= 0);
  });
});

test('os-getConsoleOutput: a bad length or an unknown action is a 400, another project\'s server a 404', async () => {
  const servers = [...h.sims.nova.state.servers.values()];
  const id = servers[0]!.id;
  await h.ok(400, 'POST', `${h.sims.urls.compute}/servers/${id}/action`, { 'os-getConsoleOutput': { length: 'ten' } });
  await h.ok(400, 'POST', `${h.sims.urls.compute}/servers/${id}/action`, { 'os-fly': {} });
  await h.ok(404, 'POST', `${h.sims.urls.compute}/servers/${id}/action`, { 'os-getConsoleOutput': {} }, 'other');
  assert.equal(typeof (await h.ok(200, 'POST', `${h.sims.urls.compute}/servers/${id}/action`, { 'os-getConsoleOutput': { length: '-1' } })).output, 'string');
});
