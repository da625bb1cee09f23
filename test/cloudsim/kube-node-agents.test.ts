// The simulated cluster's controllers as a rotation needs them (no OCCM here: pods tolerate its taint): a workload whose pod template changes
// gets new pods (a new revision; the old ones end gracefully), a deleted workload's pods are collected,
// and the service's host-sync agent (src/kube/host-sync.ts) writes files of its node, in order, through
// writable hostPath volumes, then is Ready; a static pod manifest it rewrites restarts its mirror pod.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { renderAddons, type K8sObject } from '../../src/bootstrap/addons/framework.js';
import { addons } from '../../src/bootstrap/addons/index.js';
import { nodeReady, type KubeClient } from '../../src/kube/api-client.js';
import { renderCloudConfig } from '../../src/bootstrap/cloudconf.js';
import { hostSyncObjects } from '../../src/bootstrap/host-sync.js';
import { nodeName } from '../../src/bootstrap/render-all.js';
import type { SimCluster } from '../../cloudsim/kube/index.js';
import { pki } from '../support/spec-fixtures.js';
import { startKubeHarness, until, type KubeHarness } from './kube-harness.js';

const SMALL = { network_driver: 'flannel', template: { master_lb_enabled: false }, cluster: { name: 'agents', master_count: 1, node_count: 1 }, labels: { kube_tag: 'v1.35.5' } };
type Any = K8sObject & { metadata: any; [k: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

let h: KubeHarness;
let kube: KubeClient;
let cluster: SimCluster;
let cp: string;

before(async () => {
  h = await startKubeHarness({ cluster: SMALL });
  const port = await h.port('cp');
  cp = nodeName(h.spec, 'control-plane', 'a0000');
  const id = await h.boot(cp, port.id, h.userData('init', cp, { address: port.ip }));
  const wk = await h.port('wk');
  const wkName = nodeName(h.spec, 'worker', 'b0000');
  await h.boot(wkName, wk.id, h.userData('worker', wkName, { address: port.ip }));
  kube = h.client(port.ip, await h.identity(pki.ca));
  await until('two nodes', async () => (await kube.readyz()) && (await kube.listNodes()).length === 2);
  const cloud = renderCloudConfig(h.spec, { authUrl: 'http://127.0.0.1/v3', region: 'RegionOne', applicationCredentialId: 'i', applicationCredentialSecret: 's' }, { floatingNetworkId: 'ext', subnetId: h.subnetId, networkName: 'n' });
  for (const o of renderAddons(addons(), h.spec, { cloud }).find((a) => a.name === 'cni-flannel')!.objects) await kube.apply(o);
  await until('Ready', async () => (await kube.listNodes()).every(nodeReady));
  cluster = h.sims.kube.clusterOf(id)!;
});
after(async () => {
  kube?.close();
  await h?.close();
});

const pods = async (selector: string, namespace = 'default') => (await kube.list<Any>('v1', 'Pod', namespace, selector)) as Any[];
const ready = (p: Any) => (p.status?.conditions ?? []).some((c: Any) => c.type === 'Ready' && c.status === 'True');

function web(version: string): Any {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' }, annotations: { version } }, spec: { terminationGracePeriodSeconds: 5, tolerations: [{ operator: 'Exists' }], containers: [{ name: 'web', image: 'nginx:1.29.0' }] } } },
  };
}

describe('controllers and node agents', () => {
  test('a changed pod template replaces the pods: a new revision, the old pods end gracefully; a deleted workload\'s pods go', async () => {
    await kube.apply(web('1'));
    const first = await until('two pods', async () => {
      const p = await pods('app=web');
      return p.length === 2 && p.every(ready) && p;
    });
    await kube.apply(web('2'));
    const second = await until('two new pods, the old ones gone', async () => {
      const p = await pods('app=web');
      return p.length === 2 && p.every((x) => x.metadata.annotations?.version === '2' && ready(x)) && p;
    });
    assert.ok(second.every((p) => !first.some((o: Any) => o.metadata.uid === p.metadata.uid)), 'new pods');
    assert.notEqual(second[0]!.metadata.labels!['pod-template-hash'], first[0]!.metadata.labels!['pod-template-hash']);
    await kube.delete('apps/v1', 'Deployment', 'default', 'web');
    await until('its pods collected', async () => (await pods('app=web')).length === 0);
  });

  test('the host-sync agent writes its files in order through writable hostPaths; a rewritten manifest restarts its static pod', async () => {
    const manifest = (v: string) => stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'demo', namespace: 'kube-system', labels: { component: 'demo' }, annotations: { v } }, spec: { hostNetwork: true, containers: [{ name: 'demo', image: 'demo:1' }] } });
    const sync = (v: string) => hostSyncObjects({ name: 'demo-sync', image: 'busybox:1.37.0', files: [{ path: '/etc/kubernetes/demo/demo.conf', content: `version=${v}\n` }, { path: '/etc/kubernetes/manifests/demo.yaml', content: manifest(v) }] });
    for (const o of sync('1')) await kube.apply(o);
    const agent = await until('the agent Ready', async () => {
      const p = await pods('app.kubernetes.io/name=demo-sync', 'kube-system');
      return p.length === 1 && ready(p[0]!) && p[0];
    });
    assert.equal(agent.spec.nodeName, cp, 'on the control plane only');
    assert.equal(cluster.nodeFiles(cp)!['/etc/kubernetes/demo/demo.conf'], 'version=1\n');
    const mirror = await until('the static pod mirrored', () => kube.get<Any>('v1', 'Pod', 'kube-system', `demo-${cp}`));
    assert.equal(mirror.metadata.annotations.v, '1');
    assert.ok(mirror.metadata.annotations['kubernetes.io/config.mirror']);

    for (const o of sync('2')) await kube.apply(o);
    const restarted = await until('the manifest rewritten: a new static pod', async () => {
      const m = await kube.get<Any>('v1', 'Pod', 'kube-system', `demo-${cp}`);
      return m?.metadata.annotations.v === '2' && m;
    });
    assert.notEqual(restarted.metadata.uid, mirror.metadata.uid);
    assert.equal(cluster.nodeFiles(cp)!['/etc/kubernetes/demo/demo.conf'], 'version=2\n');
    for (const o of sync('2')) await kube.delete(o.apiVersion, o.kind, 'kube-system', o.metadata.name);
    await until('the agent gone with its DaemonSet', async () => (await pods('app.kubernetes.io/name=demo-sync', 'kube-system')).length === 0);
  });

  test('an agent whose target is not a writable hostPath writes nothing and is never Ready', async () => {
    const [secret, ds] = hostSyncObjects({ name: 'bad-sync', image: 'busybox:1.37.0', files: [{ path: '/etc/kubernetes/demo/demo.conf', content: 'version=3\n' }] }) as [Any, Any];
    const container = ds.spec.template.spec.containers[0];
    container.volumeMounts = container.volumeMounts.map((m: Any) => (m.mountPath.startsWith('/host') ? { ...m, readOnly: true } : m));
    for (const o of [secret, ds]) await kube.apply(o);
    const p = await until('the agent runs', async () => (await pods('app.kubernetes.io/name=bad-sync', 'kube-system'))[0]);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(ready((await pods('app.kubernetes.io/name=bad-sync', 'kube-system'))[0]!), false, `${p.metadata.name} is not Ready`);
    assert.equal(cluster.nodeFiles(cp)!['/etc/kubernetes/demo/demo.conf'], 'version=2\n', 'the file is unchanged');
  });
});
