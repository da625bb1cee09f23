// Draining nodes before their servers go (workers/cluster/drain.ts), against a stand-in Kubernetes API: a node is
// cordoned and marked with when its drain started (kept across runs), its pods evicted (DaemonSet and mirror pods
// stay), the step waiting until they are gone; an eviction a budget refuses retried with one DrainBlocked event;
// past drain_timeout the node goes anyway with a DrainTimeout event naming what was left; a node whose kubelet
// is unreachable not waited for; a node already gone counting as drained; a refusal other than 429 failing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KubeError, type KubeClient, type KubeNode, type KubePod } from '../../../src/kube/api-client.js';
import { StepFailure, Wait } from '../../../src/steps/errors.js';
import { DRAIN_STARTED, drainAndForget } from '../../../workers/cluster/drain.js';
import { startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

type Evict = 'ok' | 'budget' | 'down' | 'forbidden';

/** A cluster's API as drainAndForget uses it: Nodes, the pods on each, evictions answered as told. */
class FakeKube {
  readonly nodes = new Map<string, KubeNode>();
  readonly pods = new Map<string, KubePod[]>();
  readonly evictions: string[] = [];
  readonly deleted: string[] = [];
  answer: Record<string, Evict> = {};

  node(name: string, opts: { ready?: string; annotations?: Record<string, string>; unschedulable?: boolean } = {}): this {
    this.nodes.set(name, { metadata: { name, annotations: opts.annotations ?? {} }, spec: { unschedulable: opts.unschedulable ?? false }, status: { conditions: [{ type: 'Ready', status: opts.ready ?? 'True' }] } } as unknown as KubeNode);
    this.pods.set(name, []);
    return this;
  }

  pod(node: string, name: string, opts: { daemonSet?: boolean; mirror?: boolean; deleting?: boolean } = {}): this {
    this.pods.get(node)!.push({
      metadata: {
        name, namespace: 'default',
        ...(opts.daemonSet ? { ownerReferences: [{ kind: 'DaemonSet', name: 'ds' }] } : {}),
        annotations: opts.mirror ? { 'kubernetes.io/config.mirror': 'x' } : {},
        ...(opts.deleting ? { deletionTimestamp: new Date().toISOString() } : {}),
      },
      spec: { nodeName: node },
    } as unknown as KubePod);
    return this;
  }

  get client(): KubeClient {
    return {
      getNode: async (name: string) => this.nodes.get(name),
      mergePatch: async (_v: string, _k: string, _ns: unknown, name: string, patch: { metadata: { annotations: Record<string, string> }; spec: { unschedulable: boolean } }) => {
        const n = this.nodes.get(name);
        if (!n) return undefined;
        n.metadata.annotations = { ...n.metadata.annotations, ...patch.metadata.annotations };
        n.spec = { ...n.spec, unschedulable: patch.spec.unschedulable };
        return n;
      },
      podsOn: async (node: string) => this.pods.get(node) ?? [],
      evict: async (ns: string, name: string) => {
        this.evictions.push(`${ns}/${name}`);
        const a = this.answer[name] ?? 'ok';
        if (a === 'budget') throw new KubeError(429, 'TooManyRequests', 'Cannot evict pod', [{ reason: 'DisruptionBudget', message: 'The disruption budget web-pdb needs 1 healthy pods' }]);
        if (a === 'down') throw new KubeError(503, 'ServiceUnavailable', 'etcd is busy');
        if (a === 'forbidden') throw new KubeError(403, 'Forbidden', 'pods "x" is forbidden');
        for (const list of this.pods.values()) {
          const p = list.find((x) => x.metadata.name === name);
          if (p) p.metadata.deletionTimestamp = new Date().toISOString();
        }
      },
      deleteNode: async (name: string) => {
        this.deleted.push(name);
        return this.nodes.delete(name);
      },
    } as unknown as KubeClient;
  }

  /** The evicted pods end (their grace period over). */
  settle(): void {
    for (const [node, list] of this.pods) this.pods.set(node, list.filter((p) => !p.metadata.deletionTimestamp));
  }
}

test('a node is cordoned, marked, its pods evicted (DaemonSet and mirror pods stay); the step waits for them, then the Node goes', async () => {
  const r = await stepRun(cloud);
  const kube = new FakeKube().node('n1').pod('n1', 'web-1').pod('n1', 'agent', { daemonSet: true }).pod('n1', 'kube-proxy', { mirror: true });
  await assert.rejects(drainAndForget(r.ctx, kube.client, ['n1']), (e) => e instanceof Wait && /n1 \(1 pod\(s\)\)/.test(e.why));
  const n = kube.nodes.get('n1')!;
  assert.equal(n.spec?.unschedulable, true);
  const started = n.metadata.annotations?.[DRAIN_STARTED];
  assert.ok(started && !Number.isNaN(Date.parse(started)));
  assert.deepEqual(kube.evictions, ['default/web-1']);
  assert.equal(r.db.clusters.get(r.uuid)!.conditions.workers?.reason, 'Draining');
  // The next run: the same drain (its start kept), the pod still ending: waiting, not evicting again.
  r.fresh();
  await assert.rejects(drainAndForget(r.ctx, kube.client, ['n1']), Wait);
  assert.equal(kube.nodes.get('n1')!.metadata.annotations?.[DRAIN_STARTED], started, 'the deadline is kept across runs');
  assert.deepEqual(kube.evictions, ['default/web-1']);
  kube.settle();
  r.fresh();
  await drainAndForget(r.ctx, kube.client, ['n1']);
  assert.deepEqual(kube.deleted, ['n1']);
  // Gone already: drained.
  await drainAndForget(r.ctx, kube.client, ['n1']);
});

test('an eviction a budget refuses is retried at every look with one DrainBlocked event; a busy API the same; another refusal fails', async () => {
  const r = await stepRun(cloud);
  const kube = new FakeKube().node('n1').pod('n1', 'db-0').pod('n1', 'cache-0');
  kube.answer = { 'db-0': 'budget', 'cache-0': 'down' };
  for (let i = 0; i < 3; i++) {
    r.fresh();
    await assert.rejects(drainAndForget(r.ctx, kube.client, ['n1']), Wait);
  }
  assert.equal(kube.evictions.filter((e) => e === 'default/db-0').length, 3, 'asked again at each look');
  const blocked = r.recorded.events.filter((e) => e.reason === 'DrainBlocked');
  assert.equal(blocked.length, 1, 'said once');
  assert.match(blocked[0]!.message, /default\/db-0 \(The disruption budget web-pdb needs 1 healthy pods\)/);
  assert.match(blocked[0]!.message, /for at most 600 s \(label drain_timeout\)/);
  assert.deepEqual(kube.deleted, []);

  const bad = new FakeKube().node('n2').pod('n2', 'x');
  bad.answer = { x: 'forbidden' };
  await assert.rejects(drainAndForget(r.ctx, bad.client, ['n2']), (e) => e instanceof StepFailure && e.reason === 'DrainFailed');
});

test('past drain_timeout the node goes anyway, with an event naming the pods left; an unreachable node\'s ending pods are not waited for', async () => {
  const r = await stepRun(cloud, { template: { labels: { drain_timeout: '60' } } });
  const long = new Date(Date.now() - 120_000).toISOString();
  const kube = new FakeKube()
    .node('stuck', { annotations: { [DRAIN_STARTED]: long }, unschedulable: true }).pod('stuck', 'db-0')
    .node('lost', { ready: 'Unknown' }).pod('lost', 'web-1', { deleting: true });
  kube.answer = { 'db-0': 'budget' };
  await drainAndForget(r.ctx, kube.client, ['stuck', 'lost'], 'control_plane');
  assert.deepEqual(kube.deleted, ['stuck', 'lost']);
  const timeout = r.recorded.events.find((e) => e.reason === 'DrainTimeout');
  assert.equal(timeout?.type, 'control_plane');
  assert.equal(timeout?.severity, 'warning');
  assert.match(timeout?.message ?? '', /Node stuck was not drained within 60 s \(label drain_timeout\): default\/db-0 \(The disruption budget web-pdb needs 1 healthy pods\) still there/);
  assert.equal(r.recorded.events.filter((e) => e.reason === 'DrainTimeout').length, 1, 'the unreachable node needed none');
});

test('drain_timeout=0: no limit, the wait says so', async () => {
  const r = await stepRun(cloud, { template: { labels: { drain_timeout: '0' } } });
  const kube = new FakeKube().node('n1', { annotations: { [DRAIN_STARTED]: new Date(0).toISOString() }, unschedulable: true }).pod('n1', 'db-0');
  kube.answer = { 'db-0': 'budget' };
  await assert.rejects(drainAndForget(r.ctx, kube.client, ['n1']), Wait);
  assert.match(r.recorded.events.find((e) => e.reason === 'DrainBlocked')?.message ?? '', /without a time limit \(drain_timeout=0\)/);
  assert.deepEqual(kube.deleted, []);
});
