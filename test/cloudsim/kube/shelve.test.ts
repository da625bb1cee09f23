// The simulated Kubernetes follows shelved servers: a shelved worker's Node stays, NotReady (the kubelet
// stopped posting), and is Ready again after unshelve; with its only control plane shelved the cluster's API
// stops answering but the cluster lives on (etcd's data is on the disk) and answers again, its objects kept.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderAddons } from '../../../src/bootstrap/addons/framework.js';
import { addons } from '../../../src/bootstrap/addons/index.js';
import { renderCloudConfig } from '../../../src/bootstrap/cloudconf.js';
import { nodeName } from '../../../src/bootstrap/render-all.js';
import { nodeReady } from '../../../src/kube/api-client.js';
import { pki } from '../../support/spec-fixtures.js';
import { startKubeHarness, until, type KubeHarness } from '../kube-harness.js';

const SMALL = { network_driver: 'flannel', template: { master_lb_enabled: false }, cluster: { name: 'sleepy', master_count: 1, node_count: 1 }, labels: { kube_tag: 'v1.34.8' } };
let h: KubeHarness;
before(async () => {
  h = await startKubeHarness({ cluster: SMALL });
});
after(async () => {
  await h?.close();
});

test('shelved nodes go NotReady and come back; a cluster with its control plane shelved keeps its objects and answers after unshelve', async () => {
  const cp = await h.port('cp');
  const endpoint = { address: cp.ip };
  const cpName = nodeName(h.spec, 'control-plane', 'a0000');
  const cpId = await h.boot(cpName, cp.id, h.userData('init', cpName, endpoint));
  const wk = await h.port('wk');
  const wkName = nodeName(h.spec, 'worker', 'b0000');
  const wkId = await h.boot(wkName, wk.id, h.userData('worker', wkName, endpoint));
  const kube = h.client(cp.ip, await h.identity(pki.ca));
  await until('two nodes', async () => (await kube.readyz()) && (await kube.listNodes()).length === 2);
  const cloud = renderCloudConfig(h.spec, { authUrl: 'http://127.0.0.1/v3', region: 'RegionOne', applicationCredentialId: 'i', applicationCredentialSecret: 's' }, { floatingNetworkId: 'ext', subnetId: h.subnetId, networkName: 'n' });
  for (const o of renderAddons(addons(), h.spec, { cloud }).find((a) => a.name === 'cni-flannel')!.objects) await kube.apply(o);
  await until('Ready', async () => (await kube.listNodes()).every(nodeReady));
  await kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'default' }, data: { a: 'b' } });

  const action = (id: string, body: unknown) => h.ok(202, 'POST', `${h.sims.urls.compute}/servers/${id}/action`, body);
  const status = async (id: string) => (await h.ok(200, 'GET', `${h.sims.urls.compute}/servers/${id}`)).server.status as string;

  await action(wkId, { shelve: null });
  const down = await until('the worker NotReady', async () => {
    const n = await kube.getNode(wkName);
    return n && !nodeReady(n) && n;
  });
  assert.equal(down.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'NodeStatusUnknown');
  await until('SHELVED_OFFLOADED', async () => (await status(wkId)) === 'SHELVED_OFFLOADED');
  assert.ok(await kube.getNode(wkName), 'the Node stays while shelved');
  await action(wkId, { unshelve: null });
  await until('the worker Ready again', async () => {
    const n = await kube.getNode(wkName);
    return n && nodeReady(n);
  });

  await action(wkId, { shelve: null });
  await action(cpId, { shelve: null });
  await until('the API gone', async () => !(await kube.readyz()));
  await until('both SHELVED_OFFLOADED', async () => (await status(cpId)) === 'SHELVED_OFFLOADED' && (await status(wkId)) === 'SHELVED_OFFLOADED');
  assert.equal(h.sims.kube.clusters.size, 1, 'the cluster lives on, asleep');
  assert.equal(await kube.readyz(), false);

  await action(cpId, { unshelve: null });
  await action(wkId, { unshelve: null });
  await until('the API answers again', () => kube.readyz());
  await until('both nodes Ready', async () => {
    const n = await kube.listNodes();
    return n.length === 2 && n.every(nodeReady);
  });
  assert.deepEqual((await kube.get('v1', 'ConfigMap', 'default', 'kept'))?.data, { a: 'b' }, "etcd's data kept");
});
