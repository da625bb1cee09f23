// The controllers a cluster runs, reduced to what the worker observes: DaemonSet pods on each
// node they fit, Deployment and StatefulSet replicas bound to live schedulable nodes whose taints
// they tolerate (Pending while none fits), static control-plane pods mirrored per control-plane node, pods of vanished
// nodes collected, and the workloads' status counts derived from their pods.
import { createHash } from 'node:crypto';
import type { SeededRandom } from '../common/clock.js';
import { terminating } from './disruption.js';
import { nodeSelected, tolerates, type Taint, type Toleration } from './selectors.js';
import type { Obj, ObjectStore } from './store.js';

/** A node as the scheduler sees it. */
export interface SchedNode {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  ready: boolean;
  /** Its kubelet runs (the server is ACTIVE). */
  alive: boolean;
  unschedulable: boolean;
  controlPlane: boolean;
  ip: string | undefined;
}

export const POD = { group: '', resource: 'pods' };
const DS = { group: 'apps', resource: 'daemonsets' };
const DEPLOY = { group: 'apps', resource: 'deployments' };
const STS = { group: 'apps', resource: 'statefulsets' };
const STATIC_PODS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

/** What the DaemonSet controller adds to every DaemonSet pod. */
const DS_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

const hash = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);
type PodSpec = Record<string, unknown> & { tolerations?: Toleration[]; hostNetwork?: boolean };
const podSpecOf = (w: Obj): PodSpec => (((w.spec as Record<string, unknown> | undefined)?.template as { spec?: PodSpec } | undefined)?.spec ?? {});
const templateMeta = (w: Obj) => (((w.spec as Record<string, unknown> | undefined)?.template as { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } } | undefined)?.metadata ?? {});

const fits = (spec: PodSpec, n: SchedNode, extra: Toleration[] = []) =>
  nodeSelected(spec, n.labels) && n.taints.filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute').every((t) => tolerates([...(spec.tolerations ?? []), ...extra], t));

/** A pod runs ready on a live kubelet; off the host network it needs the CNI too. */
const podReady = (spec: PodSpec, n: SchedNode | undefined, cni: boolean) => n !== undefined && n.alive && (spec.hostNetwork === true || cni);

function ownerOf(p: Obj): { kind: string; name: string; uid: string } | undefined {
  return p.metadata.ownerReferences?.find((o) => o.controller) ?? p.metadata.ownerReferences?.[0];
}

export class Workloads {
  constructor(
    private readonly store: ObjectStore,
    private readonly random: SeededRandom,
  ) {}

  private suffix(n: number): string {
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    return Array.from({ length: n }, () => alphabet[Math.floor(this.random.random() * alphabet.length)]).join('');
  }

  private pod(w: Obj, name: string, owner: { apiVersion: string; kind: string; name: string; uid: string }, node: SchedNode | undefined, cni: boolean, extraSpec: Record<string, unknown> = {}): Obj {
    const spec = { ...podSpecOf(w), ...extraSpec, ...(node ? { nodeName: node.name } : {}) } as PodSpec;
    const ready = podReady(spec, node, cni);
    const meta = templateMeta(w);
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: w.metadata.namespace ?? 'default',
        labels: { ...meta.labels },
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
        ownerReferences: [{ ...owner, controller: true, blockOwnerDeletion: true }],
      },
      spec,
      status: {
        phase: node ? 'Running' : 'Pending',
        conditions: [
          { type: 'PodScheduled', status: node ? 'True' : 'False' },
          { type: 'Ready', status: ready ? 'True' : 'False' },
        ],
        ...(node?.ip ? { hostIP: node.ip, ...(spec.hostNetwork ? { podIP: node.ip } : {}) } : {}),
      },
    };
  }

  private put(p: Obj): void {
    this.store.write({ ...POD, namespace: p.metadata.namespace ?? 'default', name: p.metadata.name }, p);
  }

  /** Brings pods and workload status in line with the nodes; `cni` says whether pod networking works. */
  reconcile(nodes: SchedNode[], cni: boolean): void {
    const byName = new Map(nodes.map((n) => [n.name, n]));
    const pods = this.store.list(POD.group, POD.resource);
    // pod garbage collection: bound to a Node that no longer exists
    for (const p of pods) {
      const nodeName = (p.spec as PodSpec | undefined)?.nodeName as string | undefined;
      if (nodeName && !byName.has(nodeName)) this.store.delete({ ...POD, namespace: p.metadata.namespace ?? 'default', name: p.metadata.name });
    }
    // A terminating pod is no longer its controller's: a replacement is made while it ends.
    const live = this.store.list(POD.group, POD.resource).filter((p) => !terminating(p));
    const owned = (kind: string, uid: string) => live.filter((p) => ownerOf(p)?.kind === kind && ownerOf(p)?.uid === uid);
    // The DaemonSet controller waits for a terminating pod to go before it places another on that node.
    const ending = new Set(this.store.list(POD.group, POD.resource).filter(terminating).map((p) => `${ownerOf(p)?.uid}/${(p.spec as PodSpec | undefined)?.nodeName}`));
    this.daemonSets(nodes, byName, owned, cni, ending);
    this.replicated(nodes, byName, owned, cni);
    this.staticPods(nodes);
  }

  private daemonSets(nodes: SchedNode[], byName: Map<string, SchedNode>, owned: (kind: string, uid: string) => Obj[], cni: boolean, ending: Set<string>): void {
    for (const ds of this.store.list(DS.group, DS.resource)) {
      const spec = podSpecOf(ds);
      const extra = spec.hostNetwork ? [...DS_TOLERATIONS, { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' }] : DS_TOLERATIONS;
      const mine = owned('DaemonSet', ds.metadata.uid!);
      const wanted = nodes.filter((n) => fits(spec, n, extra));
      const owner = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid! };
      // the controller keeps pods on nodes whose labels still fit (a NoSchedule taint added later does not evict)
      for (const p of mine) {
        const n = byName.get((p.spec as PodSpec).nodeName as string);
        if (!n || !nodeSelected(spec, n.labels)) this.store.delete({ ...POD, namespace: p.metadata.namespace!, name: p.metadata.name });
      }
      const placed = new Map(mine.map((p) => [(p.spec as PodSpec).nodeName as string, p]));
      for (const n of wanted) {
        const existing = placed.get(n.name);
        if (!existing && ending.has(`${ds.metadata.uid}/${n.name}`)) continue;
        this.put(this.pod(ds, existing?.metadata.name ?? `${ds.metadata.name}-${hash(`${ds.metadata.uid}/${n.name}`, 5)}`, owner, n, cni));
      }
      const now = owned('DaemonSet', ds.metadata.uid!).filter((p) => byName.has((p.spec as PodSpec).nodeName as string));
      const ready = now.filter((p) => podReady(spec, byName.get((p.spec as PodSpec).nodeName as string), cni)).length;
      this.setStatus(ds, DS, {
        currentNumberScheduled: now.length,
        desiredNumberScheduled: wanted.length,
        numberMisscheduled: 0,
        numberReady: ready,
        numberAvailable: ready,
        ...(wanted.length - ready > 0 ? { numberUnavailable: wanted.length - ready } : {}),
        updatedNumberScheduled: now.length,
        observedGeneration: ds.metadata.generation,
      });
    }
  }

  private replicated(nodes: SchedNode[], byName: Map<string, SchedNode>, owned: (kind: string, uid: string) => Obj[], cni: boolean): void {
    const workloads = [
      ...this.store.list(DEPLOY.group, DEPLOY.resource).map((w) => ({ w, res: DEPLOY, kind: 'ReplicaSet', owner: `${w.metadata.name}-${hash(w.metadata.uid!, 10)}` })),
      ...this.store.list(STS.group, STS.resource).map((w) => ({ w, res: STS, kind: 'StatefulSet', owner: w.metadata.name })),
    ];
    for (const { w, res, kind, owner } of workloads) {
      const spec = podSpecOf(w);
      const replicas = typeof (w.spec as { replicas?: unknown }).replicas === 'number' ? ((w.spec as { replicas: number }).replicas) : 1;
      const ownerRef = { apiVersion: 'apps/v1', kind, name: owner, uid: kind === 'ReplicaSet' ? hash(`rs/${w.metadata.uid}`, 32) : w.metadata.uid! };
      let mine = owned(kind, ownerRef.uid).sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
      // scale down: pending pods first, then the newest
      const excess = mine.length - replicas;
      if (excess > 0) {
        const order = [...mine.filter((p) => !(p.spec as PodSpec).nodeName), ...mine.filter((p) => (p.spec as PodSpec).nodeName).reverse()];
        for (const p of order.slice(0, excess)) this.store.delete({ ...POD, namespace: p.metadata.namespace!, name: p.metadata.name });
        mine = owned(kind, ownerRef.uid);
      }
      const load = (n: SchedNode) => mine.filter((p) => (p.spec as PodSpec).nodeName === n.name).length;
      // a NotReady node carries the not-ready taint: only pods tolerating it go there (the tigera-operator does)
      const schedulable = nodes.filter((n) => n.alive && !n.unschedulable && fits(spec, n));
      const pick = () => schedulable.sort((a, b) => load(a) - load(b) || a.name.localeCompare(b.name))[0];
      const taken = new Set(mine.map((p) => p.metadata.name));
      // A StatefulSet's pod keeps its identity: its successor waits until the terminating one is gone.
      const ending = new Set(kind === 'StatefulSet' ? this.store.list(POD.group, POD.resource, w.metadata.namespace ?? 'default').filter(terminating).map((p) => p.metadata.name) : []);
      const nameFor = (i: number) => (kind === 'StatefulSet' ? `${owner}-${i}` : `${owner}-${this.suffix(5)}`);
      for (let i = 0; mine.length < replicas && i < replicas + taken.size + ending.size + 100; i++) {
        const name = nameFor(i);
        if (taken.has(name)) continue;
        if (ending.has(name)) {
          if (kind === 'StatefulSet') break;
          continue;
        }
        const p = this.pod(w, name, ownerRef, undefined, cni, kind === 'StatefulSet' ? { hostname: name } : {});
        this.put(p);
        taken.add(name);
        mine.push(p);
      }
      for (const p of mine) {
        const bound = byName.get((p.spec as PodSpec).nodeName as string);
        const node = bound ?? pick();
        this.put(this.pod(w, p.metadata.name, ownerRef, node, cni, kind === 'StatefulSet' ? { hostname: p.metadata.name } : {}));
        if (!bound && node) (p.spec as PodSpec).nodeName = node.name;
      }
      const ready = mine.filter((p) => podReady(spec, byName.get((p.spec as PodSpec).nodeName as string), cni)).length;
      const nz = (k: string, v: number) => (v > 0 ? { [k]: v } : {});
      this.setStatus(w, res, {
        observedGeneration: w.metadata.generation,
        ...nz('replicas', mine.length),
        ...nz('updatedReplicas', mine.length),
        ...nz('readyReplicas', ready),
        ...nz(kind === 'StatefulSet' ? 'currentReplicas' : 'availableReplicas', ready),
        ...(kind === 'StatefulSet' ? nz('availableReplicas', ready) : nz('unavailableReplicas', mine.length - ready)),
        ...(kind === 'ReplicaSet'
          ? { conditions: [{ type: 'Available', status: ready >= replicas ? 'True' : 'False', reason: ready >= replicas ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable' }] }
          : {}),
      });
    }
  }

  /** kubeadm's static pods, mirrored while the control plane's Node exists. */
  private staticPods(nodes: SchedNode[]): void {
    for (const n of nodes.filter((x) => x.controlPlane && x.alive)) {
      for (const c of STATIC_PODS) {
        const name = `${c}-${n.name}`;
        this.put({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name,
            namespace: 'kube-system',
            labels: { component: c, tier: 'control-plane' },
            annotations: { 'kubernetes.io/config.mirror': hash(name, 32), 'kubernetes.io/config.source': 'file' },
            ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: n.name, uid: hash(`node/${n.name}`, 32), controller: true }],
          },
          spec: { nodeName: n.name, hostNetwork: true, priorityClassName: 'system-node-critical', containers: [{ name: c, image: `registry.k8s.io/${c}` }] },
          status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], ...(n.ip ? { hostIP: n.ip, podIP: n.ip } : {}) },
        });
      }
    }
  }

  private setStatus(w: Obj, res: { group: string; resource: string }, status: Record<string, unknown>): void {
    this.store.write({ ...res, namespace: w.metadata.namespace ?? 'default', name: w.metadata.name }, { ...w, status });
  }
}
