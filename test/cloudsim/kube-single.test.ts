// A cluster without an API load balancer (the endpoint is the control plane's own fixed IP) and
// with Flannel: Ready follows the kube-flannel DaemonSet, /version the newest control plane, and the
// simulator's state file keeps the cluster (its objects, its nodes, its address) across a restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderAddons } from '../../src/bootstrap/addons/framework.js';
import { addons } from '../../src/bootstrap/addons/index.js';
import { nodeReady, type KubeClient } from '../../src/kube/api-client.js';
import { renderCloudConfig } from '../../src/bootstrap/cloudconf.js';
import { JOIN_TURN_CONFIGMAP } from '../../src/bootstrap/user-data/host.js';
import { renderUserData } from '../../src/bootstrap/user-data/userdata.js';
import { nodeName } from '../../src/bootstrap/render-all.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import type { KeyPair } from '../../src/bootstrap/join.js';
import { input, pki, TOKEN } from '../support/spec-fixtures.js';
import { startKubeHarness, until, type KubeHarness } from './kube-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-sim-state-'));
const SMALL = { network_driver: 'flannel', template: { master_lb_enabled: false }, cluster: { name: 'small', master_count: 1, node_count: 1 }, labels: { kube_tag: 'v1.34.8' } };
let h: KubeHarness;
before(async () => {
  h = await startKubeHarness({ cluster: SMALL, stateFile: join(dir, 'state.json') });
});
after(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a single control plane without a load balancer, with Flannel, kept in the state file', () => {
  let address: string;
  let admin: KeyPair;
  let kube: KubeClient;
  const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';

  test('the control plane\'s fixed IP is the endpoint; a worker joins; Ready once the kube-flannel DaemonSet is applied', async () => {
    const cp = await h.port('cp');
    address = cp.ip;
    const endpoint = { address };
    const cpName = nodeName(h.spec, 'control-plane', 'a0000');
    await h.boot(cpName, cp.id, h.userData('init', cpName, endpoint));
    const wk = await h.port('wk');
    const wkName = nodeName(h.spec, 'worker', 'b0000');
    await h.boot(wkName, wk.id, h.userData('worker', wkName, endpoint));
    admin = await h.identity(pki.ca);
    kube = h.client(address, admin);
    await until('two nodes', async () => (await kube.readyz()) && (await kube.listNodes()).length === 2);
    assert.ok((await kube.listNodes()).every((n) => !nodeReady(n)));
    const cloud = renderCloudConfig(h.spec, { authUrl: 'http://127.0.0.1/v3', region: 'RegionOne', applicationCredentialId: 'i', applicationCredentialSecret: 's' }, { floatingNetworkId: 'ext', subnetId: h.subnetId, networkName: 'n' });
    const flannel = renderAddons(addons(), h.spec, { cloud }).find((a) => a.name === 'cni-flannel')!;
    for (const o of flannel.objects) await kube.apply(o);
    const nodes = await until('Ready', async () => {
      const n = await kube.listNodes();
      return n.every(nodeReady) && n;
    });
    assert.ok(nodes.every((n) => n.spec?.taints?.some((t) => t.key === UNINITIALIZED)), 'Ready, but no OCCM yet');
    const ds = await kube.get('apps/v1', 'DaemonSet', 'kube-flannel', 'kube-flannel-ds');
    assert.deepEqual([(ds?.status as any).desiredNumberScheduled, (ds?.status as any).numberReady], [2, 2]);
    assert.equal((await kube.version()).gitVersion, 'v1.34.8');
  });

  test('a control plane waits for its turn, then joins; /version follows the newest control plane', async () => {
    const next = parseClusterSpec(input({ ...SMALL, labels: { kube_tag: 'v1.35.5' } })).spec;
    const port = await h.port('cp-next');
    const name = nodeName(next, 'control-plane', 'a0001');
    const id = await h.boot(name, port.id, renderUserData(next, { role: 'control-plane', nodeName: name, endpoint: { address }, bootstrapToken: TOKEN, pki }));
    await until('waiting for its turn', async () => h.sims.kube.joinStatus(id)?.state === 'waiting');
    const turn = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: JOIN_TURN_CONFIGMAP, namespace: 'kube-system' } };
    await kube.apply({ ...turn, data: { node: 'someone-else' } });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(h.sims.kube.joinStatus(id)?.state, 'waiting', 'another node\'s turn');
    assert.equal(await kube.getNode(name), undefined);
    await kube.apply({ ...turn, data: { node: name } });
    const node = await until('joined', () => kube.getNode(name));
    assert.equal(node.status?.nodeInfo?.kubeletVersion, 'v1.35.5');
    assert.equal((await kube.version()).gitVersion, 'v1.35.5');
  });

  test('the state file keeps the cluster: after a restart the same objects answer at the same address', async () => {
    const cm = await kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'default' }, data: { k: 'v' } });
    const names = (await kube.listNodes()).map((n) => n.metadata.name);
    await h.restart();
    const again = h.client(address, admin);
    await until('serving again', () => again.readyz());
    const kept = await again.get('v1', 'ConfigMap', 'default', 'kept');
    assert.ok(kept && kept.data && (kept.metadata as { uid?: string }).uid === (cm.metadata as { uid?: string }).uid, 'the same object');
    const nodes = await again.listNodes();
    assert.deepEqual(nodes.map((n) => n.metadata.name), names);
    assert.ok(nodes.every(nodeReady));
    assert.equal((await again.version()).gitVersion, 'v1.35.5');
  });
});
