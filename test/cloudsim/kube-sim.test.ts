// The simulated Kubernetes API of each cluster, driven as the worker drives a create through the
// real simulator over HTTP: servers booted with the bootstrap renderer's user-data, the API
// reached only through what the cloud wires (fixed IP, an ACTIVE load balancer with listener,
// pool and member, a floating IP), joins with valid and invalid material, nodes' readiness and
// taints following the add-ons, client-certificate authentication, drains, a CA rotation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { renderAddons, type K8sObject } from '../../src/bootstrap/addons/framework.js';
import { addons as registeredAddons } from '../../src/bootstrap/addons/index.js';
import { KubeError, nodeReady, type KubeClient, type KubeNode } from '../../src/kube/api-client.js';
import { nodeName } from '../../src/bootstrap/render-all.js';
import { renderCloudConfig } from '../../src/bootstrap/cloudconf.js';
import { caCertHash, type KeyPair } from '../../src/bootstrap/join.js';
import { createCa, generateClusterPki } from '../../src/pki/ca.js';
import { call } from '../support/http.js';
import { pki } from '../support/spec-fixtures.js';
import { startKubeHarness, until, type KubeHarness, type Lb } from './kube-harness.js';

let h: KubeHarness;
before(async () => {
  h = await startKubeHarness();
});
after(async () => {
  await h?.close();
});

const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
const readyCondition = (n: KubeNode) => n.status?.conditions?.find((c) => c.type === 'Ready');

/** Every add-on's objects for the spec, by add-on name, in apply order. */
function allAddons(): Map<string, K8sObject[]> {
  const cloud = renderCloudConfig(
    h.spec,
    { authUrl: 'http://127.0.0.1:5000/v3', region: 'RegionOne', applicationCredentialId: 'id', applicationCredentialSecret: 'secret' },
    { floatingNetworkId: 'ext', subnetId: h.subnetId, networkName: 'k1-net' },
  );
  return new Map(renderAddons(registeredAddons(), h.spec, { cloud }).map((a) => [a.name, a.objects]));
}

/** A request without the client's conveniences (no client certificate unless given), routed like the client. */
async function raw(address: string, method: string, path: string, opts: { body?: unknown; contentType?: string; id?: KeyPair } = {}): Promise<{ status: number; body: any }> {
  const target = h.sims.kube.resolve(address, 6443);
  assert.ok(target, `${address} routes`);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.host, port: target.port, method, path, ca: [pki.ca.cert, ...extraCas], ...(opts.id ? { cert: opts.id.cert, key: opts.id.key } : {}),
        checkServerIdentity: () => undefined,
        headers: body === undefined ? {} : { 'content-type': opts.contentType ?? 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: /json/.test(String(res.headers['content-type'])) ? JSON.parse(text) : text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
/** CAs `raw` also accepts as the server's (the rotated one). */
const extraCas: string[] = [];

describe('one cluster: init behind a load balancer, joins, add-ons, drains, CA rotation, end', () => {
  let lb: Lb;
  let poolId: string;
  let fip: string;
  let admin: KeyPair;
  let kube: KubeClient;
  const cps: { name: string; id: string; ip: string; portId: string }[] = [];
  const workers: { name: string; id: string; ip: string }[] = [];
  const endpoint = () => ({ address: lb.vip, extraSans: [fip] });

  test('init: the API answers through the VIP and its floating IP only once an ACTIVE load balancer has a listener, a pool and a member', async () => {
    lb = await h.lb();
    fip = await h.fip(lb.vipPortId);
    const port = await h.port('cp-0');
    const name = nodeName(h.spec, 'control-plane', 'a0000');
    const id = await h.boot(name, port.id, h.userData('init', name, endpoint()));
    cps.push({ name, id, ip: port.ip, portId: port.id });
    admin = await h.identity(pki.ca);
    kube = h.client(fip, admin);
    await until('kubeadm init done', () => h.sims.kube.joinStatus(id)?.state === 'joined');
    await h.sims.kube.settled();
    assert.ok(h.sims.kube.resolve(port.ip, 6443), 'the control plane\'s own fixed IP reaches it');
    assert.equal(h.sims.kube.resolve(port.ip, 443), undefined, 'not on another port');
    for (const address of [lb.vip, fip]) assert.equal(h.sims.kube.resolve(address, 6443), undefined, address);
    assert.equal(await kube.readyz(), false);
    poolId = await h.listenerAndPool(lb);
    assert.equal(await kube.readyz(), false, 'a pool without members');
    await h.member(lb, poolId, port.ip);
    assert.equal(await kube.readyz(), true);
    assert.equal(await h.client(lb.vip, admin).readyz(), true);
    assert.equal((await kube.version()).gitVersion, h.spec.kubernetes.version);
    // a floating IP on the server's own port reaches it too, but that name is not in the certificate
    const direct = await h.fip(port.id);
    assert.ok(h.sims.kube.resolve(direct, 6443));
    await assert.rejects(h.client(direct, admin).version(), (e: unknown) => e instanceof KubeError && e.status === 0 && /IP: .* is not in the cert's list/.test(e.message));
  });

  test('workers join with the init\'s token; Nodes NotReady until a CNI is applied, tainted until OCCM runs', async () => {
    for (const i of [0, 1]) {
      const port = await h.port(`wk-${i}`);
      const name = nodeName(h.spec, 'worker', `b000${i}`);
      workers.push({ name, id: await h.boot(name, port.id, h.userData('worker', name, endpoint())), ip: port.ip });
    }
    const nodes = await until('3 nodes', async () => {
      const n = await kube.listNodes();
      return n.length === 3 && n;
    });
    for (const n of nodes) {
      assert.equal(nodeReady(n), false, n.metadata.name);
      assert.equal(readyCondition(n)?.reason, 'KubeletNotReady');
      assert.match(readyCondition(n)?.message ?? '', /NetworkReady=false .*cni plugin not initialized/);
      assert.ok(n.spec?.taints?.some((t) => t.key === UNINITIALIZED && t.effect === 'NoSchedule'), n.metadata.name);
      assert.equal(n.status?.nodeInfo?.kubeletVersion, h.spec.kubernetes.version);
    }
    const cp = nodes.find((n) => n.metadata.name === cps[0]!.name)!;
    assert.equal(cp.metadata.labels?.['node-role.kubernetes.io/control-plane'], '');
    assert.ok(cp.spec?.taints?.some((t) => t.key === 'node-role.kubernetes.io/control-plane'));
    const wk = nodes.find((n) => n.metadata.name === workers[0]!.name)!;
    assert.equal(wk.metadata.labels?.['kubernetes.io/hostname'], workers[0]!.name);
    assert.equal(wk.metadata.labels?.['node-role.kubernetes.io/control-plane'], undefined);

    const add = allAddons();
    for (const o of [...add.get('cloud-config')!, ...add.get('occm')!]) await kube.apply(o);
    const initialised = await until('OCCM initialised the nodes', async () => {
      const n = await kube.listNodes();
      return n.every((x) => !x.spec?.taints?.some((t) => t.key === UNINITIALIZED)) && n;
    });
    const servers = new Map([...cps, ...workers].map((s) => [s.name, s]));
    for (const n of initialised) {
      const s = servers.get(n.metadata.name)!;
      assert.equal(n.spec?.providerID, `openstack:///${s.id}`);
      assert.deepEqual(n.status?.addresses?.find((a) => a.type === 'InternalIP'), { type: 'InternalIP', address: s.ip });
      assert.equal(n.metadata.labels?.['node.kubernetes.io/instance-type'], 'm1.small');
      assert.equal(nodeReady(n), false, 'still no CNI');
    }
    const occm = await kube.get('apps/v1', 'DaemonSet', 'kube-system', 'openstack-cloud-controller-manager');
    assert.deepEqual([(occm?.status as any).desiredNumberScheduled, (occm?.status as any).numberReady], [1, 1], 'on the control plane only');

    for (const o of add.get('cni-calico')!) await kube.apply(o);
    await until('every node Ready', async () => (await kube.listNodes()).every(nodeReady));
    const dns = await until('CoreDNS available', async () => {
      const d = await kube.get('apps/v1', 'Deployment', 'kube-system', 'coredns');
      return (d?.status as any)?.availableReplicas === 2 && d;
    });
    assert.equal((dns.status as any).readyReplicas, 2);
  });

  test('server-side apply is idempotent; a change keeps uid and creationTimestamp and moves resourceVersion', async () => {
    const all = [...allAddons().values()].flat();
    const first: K8sObject[] = [];
    for (const o of all) first.push(await kube.apply(o));
    // controllers may have written status since the first answer; from then on nothing moves
    const again = async () => {
      const out: K8sObject[] = [];
      for (const o of all) out.push(await kube.apply(o));
      return out.map((o) => o.metadata);
    };
    const second = await again();
    assert.deepEqual(second.map((m: any) => m.uid), first.map((o: any) => o.metadata.uid));
    assert.deepEqual(await again(), second);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default', labels: { app: 'demo' } }, data: { a: '1' } };
    const a = (await kube.apply(cm)).metadata as any;
    const b = (await kube.apply({ ...cm, data: { a: '2' } })).metadata as any;
    assert.equal(b.uid, a.uid);
    assert.equal(b.creationTimestamp, a.creationTimestamp);
    assert.ok(Number(b.resourceVersion) > Number(a.resourceVersion));
    assert.deepEqual((await kube.get('v1', 'ConfigMap', 'default', 'settings'))?.data, { a: '2' });
    assert.deepEqual((await kube.list('v1', 'ConfigMap', 'default', 'app=demo')).map((o) => o.metadata.name), ['settings']);
    assert.deepEqual(await kube.list('v1', 'ConfigMap', 'default', 'app notin (demo)'), []);
    assert.equal(await kube.delete('v1', 'ConfigMap', 'default', 'settings'), true);
    assert.equal(await kube.delete('v1', 'ConfigMap', 'default', 'settings'), false);
    assert.equal(await kube.get('v1', 'ConfigMap', 'default', 'settings'), undefined);
  });

  test('the REST conventions: 409 AlreadyExists, a namespace must exist, merge patches, Status errors', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { x: 'y' } };
    assert.equal((await raw(lb.vip, 'POST', '/api/v1/namespaces/default/configmaps', { body: cm, id: admin })).status, 201);
    const again = await raw(lb.vip, 'POST', '/api/v1/namespaces/default/configmaps', { body: cm, id: admin });
    assert.deepEqual([again.status, again.body.kind, again.body.reason, again.body.code], [409, 'Status', 'AlreadyExists', 409]);
    const nowhere = await raw(lb.vip, 'POST', '/api/v1/namespaces/apps/configmaps', { body: cm, id: admin });
    assert.deepEqual([nowhere.status, nowhere.body.reason, nowhere.body.message], [404, 'NotFound', 'namespaces "apps" not found']);
    assert.equal((await raw(lb.vip, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } }, id: admin })).status, 201);
    assert.equal((await raw(lb.vip, 'POST', '/api/v1/namespaces/apps/configmaps', { body: cm, id: admin })).status, 201);
    const patched = await raw(lb.vip, 'PATCH', '/api/v1/namespaces/apps/configmaps/c1', { body: { metadata: { labels: { tier: 'web' } }, data: { x: null, z: 'w' } }, contentType: 'application/merge-patch+json', id: admin });
    assert.deepEqual([patched.status, patched.body.metadata.labels, patched.body.data], [200, { tier: 'web' }, { z: 'w' }]);
    const stale = await raw(lb.vip, 'PUT', '/api/v1/namespaces/apps/configmaps/c1', { body: { ...cm, metadata: { name: 'c1', resourceVersion: '1' } }, id: admin });
    assert.deepEqual([stale.status, stale.body.reason], [409, 'Conflict']);
    const missing = await raw(lb.vip, 'GET', '/apis/example.org/v1/widgets/nope', { id: admin });
    assert.deepEqual([missing.status, missing.body.message], [404, 'widgets.example.org "nope" not found']);
    assert.equal((await raw(lb.vip, 'DELETE', '/api/v1/namespaces/kube-system', { id: admin })).status, 403);
    assert.equal((await raw(lb.vip, 'DELETE', '/api/v1/namespaces/apps', { id: admin })).status, 200);
    assert.equal((await raw(lb.vip, 'GET', '/api/v1/namespaces/apps/configmaps/c1', { id: admin })).status, 404, 'gone with its namespace');
  });

  test('authentication and authorisation: anonymous health only, another CA 401, non-masters 403, an untrusted server refused', async () => {
    assert.deepEqual(await raw(lb.vip, 'GET', '/readyz'), { status: 200, body: 'ok' });
    assert.equal((await raw(lb.vip, 'GET', '/version')).status, 200);
    const anonymous = await raw(lb.vip, 'GET', '/api/v1/nodes');
    assert.deepEqual([anonymous.status, anonymous.body.kind, anonymous.body.reason], [401, 'Status', 'Unauthorized']);
    const stranger = await h.identity(await createCa('someone else'));
    const e401 = await h.client(fip, stranger).listNodes().catch((e: unknown) => e);
    assert.ok(e401 instanceof KubeError && e401.status === 401 && e401.reason === 'Unauthorized', String(e401));
    assert.equal(await h.client(fip, stranger).readyz(), true, '/readyz needs no identity');
    const dev = await h.identity(pki.ca, 'jane', ['developers']);
    const e403 = await h.client(fip, dev).listNodes().catch((e: unknown) => e);
    assert.ok(e403 instanceof KubeError && e403.status === 403 && e403.reason === 'Forbidden', String(e403));
    assert.match(e403.message, /User "jane" cannot list resource "nodes"/);
    const wrongTrust = h.client(fip, admin, [(await createCa('not the cluster')).cert]);
    assert.equal(await wrongTrust.readyz(), false);
    await assert.rejects(wrongTrust.listNodes(), (e: unknown) => e instanceof KubeError && e.status === 0);
  });

  test('joins that never happen: an unknown token, an unpinned CA, an expired token Secret; a valid Secret token joins', async () => {
    // kubeadm's discovery timeout shortened: each bootstrap-script attempt gives up after 0.5 s of cloud time
    h.sims.kube.clock.setDelay('kube.join.discovery', { kind: 'fixed', ms: 500 });
    const secret = (id: string, expiration: string) => ({
      apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token',
      stringData: { 'token-id': id, 'token-secret': '0123456789abcdef', expiration, 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true' },
    });
    await kube.apply(secret('scale1', new Date(Date.now() + 3_600_000).toISOString()));
    await kube.apply(secret('old123', new Date(Date.now() - 1000).toISOString()));
    const other = await createCa('another cluster');
    const cases = [
      { suffix: 'c0000', over: { token: 'scale1.0123456789abcdef' } },
      { suffix: 'c0001', over: { token: 'zzzzzz.zzzzzzzzzzzzzzzz' }, error: /token id "zzzzzz" is invalid/ },
      { suffix: 'c0002', over: { caCert: other.cert }, error: /none of the public keys .* are pinned/ },
      { suffix: 'c0003', over: { token: 'old123.0123456789abcdef' }, error: /token id "old123" is invalid for this cluster or it has expired/ },
    ];
    const booted: ((typeof cases)[number] & { name: string; id: string })[] = [];
    for (const c of cases) {
      const port = await h.port(`wk-${c.suffix}`);
      const name = nodeName(h.spec, 'worker', c.suffix);
      booted.push({ ...c, name, id: await h.boot(name, port.id, h.userData('worker', name, endpoint(), c.over)) });
    }
    await until('the valid one joined', async () => !!(await kube.getNode(booted[0]!.name)));
    for (const b of booted.slice(1)) {
      const st = await until(`${b.name} gave up`, () => {
        const s = h.sims.kube.joinStatus(b.id);
        return s?.state === 'failed' && s;
      });
      assert.match(st.lastError ?? '', b.error!);
      assert.ok(st.attempts > 1, 'it retried');
      assert.equal(await kube.getNode(b.name), undefined);
    }
    for (const b of booted.slice(1)) await h.remove(b.id);
    h.sims.kube.clock.setDelay('kube.join.discovery', { kind: 'fixed', ms: 300_000 });
    workers.push({ name: booted[0]!.name, id: booted[0]!.id, ip: '' });
  });

  test('PodDisruptionBudgets: an eviction that would break one is refused with 429, one it allows ends the pod gracefully', async () => {
    await kube.apply({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { terminationGracePeriodSeconds: 2000, containers: [{ name: 'api', image: 'nginx' }] } } },
    });
    const pdb = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'api', namespace: 'default' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'api' } } } };
    await kube.apply(pdb);
    const ready = await until('2 api pods Ready and the budget observed', async () => {
      const pods = await kube.list('v1', 'Pod', 'default', 'app=api');
      const b = await kube.get('policy/v1', 'PodDisruptionBudget', 'default', 'api');
      return pods.length === 2 && (b?.status as any)?.currentHealthy === 2 && pods;
    });
    const budget = (await kube.get('policy/v1', 'PodDisruptionBudget', 'default', 'api'))!.status as any;
    assert.deepEqual([budget.desiredHealthy, budget.disruptionsAllowed, budget.expectedPods], [2, 0, 2]);
    assert.equal(budget.conditions[0].reason, 'InsufficientPods');
    const victim = ready[0]!.metadata.name;
    const refused = await raw(fip, 'POST', `/api/v1/namespaces/default/pods/${victim}/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: victim, namespace: 'default' } }, id: admin });
    assert.equal(refused.status, 429);
    assert.deepEqual([refused.body.reason, refused.body.message], ['TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget."]);
    assert.deepEqual(refused.body.details.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget api needs 2 healthy pods and has 2 currently' }]);
    await assert.rejects(kube.evict('default', victim), (e: unknown) => e instanceof KubeError && e.status === 429);
    assert.equal((await kube.get<any>('v1', 'Pod', 'default', victim))?.metadata.deletionTimestamp, undefined, 'the refused pod runs on');

    await kube.apply({ ...pdb, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'api' } } } });
    await kube.evict('default', victim);
    const ending = (await kube.get<any>('v1', 'Pod', 'default', victim))!;
    assert.ok(ending.metadata.deletionTimestamp, 'terminating');
    assert.equal((ending.metadata as any).deletionGracePeriodSeconds, 2000);
    const live = await kube.list<any>('v1', 'Pod', 'default', 'app=api');
    assert.equal(live.filter((p) => !p.metadata.deletionTimestamp).length, 2, 'its replacement is made while it ends');
    await kube.evict('default', victim);
    await until('the evicted pod gone after its grace period', async () => (await kube.get('v1', 'Pod', 'default', victim)) === undefined);

    await kube.apply({ ...pdb, metadata: { name: 'api-2', namespace: 'default' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'api' } } } });
    const other = (await kube.list('v1', 'Pod', 'default', 'app=api'))[0]!.metadata.name;
    await assert.rejects(kube.evict('default', other), (e: unknown) => e instanceof KubeError && e.status === 500 && /more than one PodDisruptionBudget/.test(e.message));
    for (const name of ['api', 'api-2']) await kube.delete('policy/v1', 'PodDisruptionBudget', 'default', name);
    await kube.delete('apps/v1', 'Deployment', 'default', 'api');
    const left = await kube.list('v1', 'Pod', 'default', 'app=api');
    const forced = await raw(fip, 'DELETE', `/api/v1/namespaces/default/pods/${left[0]!.metadata.name}?gracePeriodSeconds=0`, { id: admin });
    assert.equal(forced.status, 200);
    assert.equal(await kube.get('v1', 'Pod', 'default', left[0]!.metadata.name), undefined, 'a grace period of 0 deletes at once');
  });

  test('cordon, drain through the Eviction API, delete the Node', async () => {
    await kube.apply({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { terminationGracePeriodSeconds: 5000, containers: [{ name: 'web', image: 'nginx' }] } } },
    });
    const target = workers[0]!.name;
    await until('web on the target node', async () => (await kube.podsOn(target)).some((p) => p.metadata.labels?.app === 'web'));
    await kube.cordon(target);
    const cordoned = (await kube.getNode(target))!;
    assert.equal(cordoned.spec?.unschedulable, true);
    assert.ok(cordoned.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unschedulable'));
    const pods = await kube.podsOn(target);
    const isDs = (p: (typeof pods)[number]) => (p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet');
    assert.ok(pods.some(isDs), 'kube-proxy and other DaemonSet pods');
    const evicted = pods.filter((x) => !isDs(x));
    assert.ok(evicted.some((p) => p.metadata.labels?.app === 'web'));
    for (const p of evicted) {
      await kube.evict(p.metadata.namespace!, p.metadata.name);
      if (p.metadata.labels?.app !== 'web') continue;
      // Read at once (web's grace period is 5 s at this time scale): the pod ends gracefully, not at once.
      const after = await kube.get<any>('v1', 'Pod', p.metadata.namespace!, p.metadata.name);
      assert.ok(after?.metadata.deletionTimestamp, `evicted pod ${p.metadata.name} ends gracefully`);
    }
    await until('only DaemonSet pods left', async () => (await kube.podsOn(target)).every(isDs));
    const web = await kube.list('v1', 'Pod', 'default', 'app=web');
    assert.equal(web.length, 3, 'replaced');
    assert.ok(web.every((p) => (p.spec as any).nodeName !== target), 'not on the cordoned node');
    await kube.evict('default', 'no-such-pod');
    assert.equal(await kube.deleteNode(target), true);
    assert.equal(await kube.getNode(target), undefined);
    assert.equal(await kube.deleteNode(target), false);
    assert.deepEqual(await kube.podsOn(target), [], 'its pods are collected');
  });

  test('a deleted server: its Node goes NotReady and stays until deleted through the API', async () => {
    const w = workers[1]!;
    await h.remove(w.id);
    const n = await until('NotReady', async () => {
      const x = await kube.getNode(w.name);
      return x && readyCondition(x)?.status === 'Unknown' && x;
    });
    assert.equal(nodeReady(n), false);
    assert.equal(readyCondition(n)?.reason, 'NodeStatusUnknown');
    assert.ok(n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable'));
  });

  test('GET /v1/kube/endpoints: any project-scoped token for its own project\'s clusters, admins for any', async () => {
    const url = (address: string, port = 6443) => `${h.sims.urls['cloudsim-admin']}/kube/endpoints?address=${address}&port=${port}`;
    const mine = await call('GET', url(fip), h.tokens.demo);
    assert.equal(mine.status, 200);
    assert.deepEqual(mine.body, h.sims.kube.resolve(fip, 6443));
    assert.equal((await call('GET', url(fip), h.tokens.admin)).status, 200);
    const theirs = await call('GET', url(fip), h.tokens.other);
    assert.deepEqual([theirs.status, theirs.body.error.code, theirs.body.error.title], [404, 404, 'Not Found']);
    assert.equal((await call('GET', url(fip, 443), h.tokens.demo)).status, 404);
    assert.equal((await call('GET', `${h.sims.urls['cloudsim-admin']}/kube/endpoints`, h.tokens.demo)).status, 400);
    assert.equal((await call('GET', `${h.sims.urls['cloudsim-admin']}/audit`, h.tokens.demo)).status, 403, 'the rest stays admin-only');
  });

  test('GET /v1/kube/agents (admins): each server\'s kubeadm, as the simulated cluster sees it', async () => {
    const all = await call('GET', `${h.sims.urls['cloudsim-admin']}/kube/agents`, h.tokens.admin);
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.agents, JSON.parse(JSON.stringify(h.sims.kube.agentsOf())));
    const cp = all.body.agents.find((a: { role: string }) => a.role === 'init');
    assert.deepEqual([cp.state, typeof cp.server_id, typeof cp.nodeName, cp.lastError], ['joined', 'string', 'string', undefined]);
    assert.ok(all.body.agents.length >= 2);
    const other = await call('GET', `${h.sims.urls['cloudsim-admin']}/kube/agents?project_id=${h.sims.kube.agentsOf()[0]!.project_id}x`, h.tokens.admin);
    assert.deepEqual(other.body.agents, []);
    assert.equal((await call('GET', `${h.sims.urls['cloudsim-admin']}/kube/agents`, h.tokens.demo)).status, 403);
  });

  test('the last control plane deleted: the API stops answering and the listener closes', async () => {
    const before = h.sims.kube.resolve(fip, 6443)!;
    assert.equal(await kube.readyz(), true);
    await h.remove(cps[cps.length - 1]!.id);
    await h.sims.kube.settled();
    assert.equal(h.sims.kube.resolve(fip, 6443), undefined);
    assert.equal(await kube.readyz(), false);
    assert.equal(h.sims.kube.clusters.size, 0);
    const refused = await new Promise<string>((resolve) => {
      const req = request({ host: before.host, port: before.port, path: '/readyz', rejectUnauthorized: false }, () => resolve('answered'));
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      req.end();
    });
    assert.equal(refused, 'ECONNREFUSED');
    const audit = h.sims.audit();
    assert.ok(!JSON.stringify(audit).includes('"service":"kube"'), 'simulated clusters are not cloud resources');
  });
});
