// The controllers a cluster runs, reduced to what the worker observes: DaemonSet pods on each
// node they fit, Deployment and StatefulSet replicas bound to live schedulable nodes whose taints
// they tolerate (Pending while none fits), static control-plane pods mirrored per control-plane node
// (kubeadm's, and the manifests the node's files hold), pods of vanished nodes and of deleted
// workloads collected, and the workloads' status counts derived from their pods. A pod belongs to
// its workload's template revision (controller-revision-hash, pod-template-hash): when the template
// changes, the controllers replace its pods (new containers, which read their Secrets again).
import { createHash } from 'node:crypto';
import type { SeededRandom } from '../common/clock.js';
import { terminating } from './disruption.js';
import { mirrorStaticPods } from './static-pods.js';
import { deleteGracefully } from './termination.js';
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
  /** The static pod manifests in the node's /etc/kubernetes/manifests (besides kubeadm's): path → content. */
  manifests?: Record<string, string>;
}

export const POD = { group: '', resource: 'pods' };
const DS = { group: 'apps', resource: 'daemonsets' };
const DEPLOY = { group: 'apps', resource: 'deployments' };
const STS = { group: 'apps', resource: 'statefulsets' };

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

/** JSON with object keys sorted: the same template always hashes the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

const revisions = new WeakMap<Obj, string>();
/**
 * The revision of a workload's pod template (what the controllers label its pods with), hashed once per object:
 * the controllers read the store's own objects, frozen, so a stored workload is hashed once for all their passes.
 */
export function templateRevision(w: Obj): string {
  let r = revisions.get(w);
  if (r === undefined) revisions.set(w, (r = hash(canonical((w.spec as Record<string, unknown> | undefined)?.template ?? {}), 10)));
  return r;
}

/** The label each controller puts the revision under. */
const REVISION_LABEL: Record<string, string> = { DaemonSet: 'controller-revision-hash', ReplicaSet: 'pod-template-hash', StatefulSet: 'controller-revision-hash' };
/** Controllers whose pods go with them (the garbage collector follows the owner references). */
const CONTROLLERS = new Set(Object.keys(REVISION_LABEL));
type PodSpec = Record<string, unknown> & { tolerations?: Toleration[]; hostNetwork?: boolean };
const podSpecOf = (w: Obj): PodSpec => (((w.spec as Record<string, unknown> | undefined)?.template as { spec?: PodSpec } | undefined)?.spec ?? {});
const templateMeta = (w: Obj) => (((w.spec as Record<string, unknown> | undefined)?.template as { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } } | undefined)?.metadata ?? {});

const fits = (spec: PodSpec, n: SchedNode, extra: Toleration[] = []) =>
  nodeSelected(spec, n.labels) && n.taints.filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute').every((t) => tolerates([...(spec.tolerations ?? []), ...extra], t));

/** A pod runs ready on a live kubelet; off the host network it needs the CNI too. */
const podReady = (spec: PodSpec, n: SchedNode | undefined, cni: boolean) => n !== undefined && n.alive && (spec.hostNetwork === true || cni);

const isReady = (p: Obj): boolean => ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

function ownerOf(p: Obj): { kind: string; name: string; uid: string } | undefined {
  return p.metadata.ownerReferences?.find((o) => o.controller) ?? p.metadata.ownerReferences?.[0];
}

export class Workloads {
  constructor(
    private readonly store: ObjectStore,
    private readonly random: SeededRandom,
    /** A pod's readiness probe, where the simulator plays one (an agent's): false keeps it not Ready; undefined: no say. */
    private readonly probe: (pod: Obj) => boolean | undefined = () => undefined,
  ) {}

  private suffix(n: number): string {
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    return Array.from({ length: n }, () => alphabet[Math.floor(this.random.random() * alphabet.length)]).join('');
  }

  private pod(w: Obj, name: string, owner: { apiVersion: string; kind: string; name: string; uid: string }, node: SchedNode | undefined, cni: boolean, extraSpec: Record<string, unknown> = {}): Obj {
    const spec = { ...podSpecOf(w), ...extraSpec, ...(node ? { nodeName: node.name } : {}) } as PodSpec;
    const namespace = w.metadata.namespace ?? 'default';
    const uid = this.store.uidOf({ ...POD, namespace, name });
    const ready = podReady(spec, node, cni) && this.probe({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, ...(uid ? { uid } : {}) }, spec }) !== false;
    const meta = templateMeta(w);
    const revision = owner.kind === 'StatefulSet' ? `${w.metadata.name}-${templateRevision(w)}` : templateRevision(w);
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        labels: { ...meta.labels, [REVISION_LABEL[owner.kind]!]: revision },
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
    this.store.save({ ...POD, namespace: p.metadata.namespace ?? 'default', name: p.metadata.name }, p);
  }

  private remove(p: Obj): void {
    this.store.delete({ ...POD, namespace: p.metadata.namespace ?? 'default', name: p.metadata.name });
  }

  /** A controller's delete of a pod: graceful (its terminationGracePeriodSeconds), as through the API. */
  private retire(p: Obj): void {
    deleteGracefully(this.store, { ...POD, namespace: p.metadata.namespace ?? 'default', name: p.metadata.name }, this.store.now());
  }

  /**
   * Of a workload's pods, those of an older template revision end (the rolling update replaces them,
   * gracefully); the others are returned, and `ending` learns where the ended ones ran.
   */
  private current(w: Obj, kind: string, pods: Obj[], ending?: Set<string>): Obj[] {
    const label = REVISION_LABEL[kind]!;
    const want = kind === 'StatefulSet' ? `${w.metadata.name}-${templateRevision(w)}` : templateRevision(w);
    const keep: Obj[] = [];
    for (const p of pods) {
      if (p.metadata.labels?.[label] === want) keep.push(p);
      else {
        this.retire(p);
        ending?.add(`${w.metadata.uid}/${(p.spec as PodSpec | undefined)?.nodeName}`);
      }
    }
    return keep;
  }

  /** The garbage collector (background propagation, apps/v1's default): pods whose DaemonSet, StatefulSet or (Deployment's) ReplicaSet is gone end gracefully. */
  private collectOrphans(): void {
    const live = new Set([
      ...this.store.peekList(DS.group, DS.resource).map((w) => w.metadata.uid!),
      ...this.store.peekList(STS.group, STS.resource).map((w) => w.metadata.uid!),
      ...this.store.peekList(DEPLOY.group, DEPLOY.resource).map((w) => hash(`rs/${w.metadata.uid}`, 32)),
    ]);
    for (const p of this.store.peekList(POD.group, POD.resource)) {
      const owner = ownerOf(p);
      if (owner && CONTROLLERS.has(owner.kind) && !live.has(owner.uid) && !terminating(p)) this.retire(p);
    }
  }

  /** Brings pods and workload status in line with the nodes; `cni` says whether pod networking works. */
  reconcile(nodes: SchedNode[], cni: boolean): void {
    const byName = new Map(nodes.map((n) => [n.name, n]));
    // The controllers read the store's own objects (frozen): what they write are new objects.
    const pods = this.store.peekList(POD.group, POD.resource);
    // pod garbage collection: bound to a Node that no longer exists
    for (const p of pods) {
      const nodeName = (p.spec as PodSpec | undefined)?.nodeName as string | undefined;
      if (nodeName && !byName.has(nodeName)) this.store.delete({ ...POD, namespace: p.metadata.namespace ?? 'default', name: p.metadata.name });
    }
    this.collectOrphans();
    // A terminating pod is no longer its controller's: a replacement is made while it ends.
    const all = this.store.peekList(POD.group, POD.resource);
    const live = all.filter((p) => !terminating(p));
    const owned = (kind: string, uid: string): Obj[] => live.filter((p) => ownerOf(p)?.kind === kind && ownerOf(p)?.uid === uid);
    // The DaemonSet controller waits for a terminating pod to go before it places another on that node.
    const ending = new Set(all.filter(terminating).map((p) => `${ownerOf(p)?.uid}/${(p.spec as PodSpec | undefined)?.nodeName}`));
    this.daemonSets(nodes, byName, owned, cni, ending);
    this.replicated(nodes, byName, owned, cni);
    mirrorStaticPods(this.store, nodes);
  }

  private daemonSets(nodes: SchedNode[], byName: Map<string, SchedNode>, owned: (kind: string, uid: string) => Obj[], cni: boolean, ending: Set<string>): void {
    for (const ds of this.store.peekList(DS.group, DS.resource)) {
      const spec = podSpecOf(ds);
      const extra = spec.hostNetwork ? [...DS_TOLERATIONS, { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' }] : DS_TOLERATIONS;
      const mine = this.current(ds, 'DaemonSet', owned('DaemonSet', ds.metadata.uid!), ending);
      const wanted = nodes.filter((n) => fits(spec, n, extra));
      const owner = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid! };
      // the controller keeps pods on nodes whose labels still fit (a NoSchedule taint added later does not evict)
      for (const p of mine) {
        const n = byName.get((p.spec as PodSpec).nodeName as string);
        if (!n || !nodeSelected(spec, n.labels)) this.store.delete({ ...POD, namespace: p.metadata.namespace!, name: p.metadata.name });
      }
      const placed = new Map(mine.map((p) => [(p.spec as PodSpec).nodeName as string, p]));
      const revision = templateRevision(ds);
      for (const n of wanted) {
        const existing = placed.get(n.name);
        if (!existing && ending.has(`${ds.metadata.uid}/${n.name}`)) continue;
        this.put(this.pod(ds, existing?.metadata.name ?? `${ds.metadata.name}-${hash(`${ds.metadata.uid}/${n.name}/${revision}`, 5)}`, owner, n, cni));
      }
      // Its pods are in its namespace.
      const now = this.store.peekList(POD.group, POD.resource, ds.metadata.namespace ?? 'default').filter((p) => !terminating(p) && ownerOf(p)?.uid === ds.metadata.uid && byName.has((p.spec as PodSpec).nodeName as string));
      const ready = now.filter(isReady).length;
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
      ...this.store.peekList(DEPLOY.group, DEPLOY.resource).map((w) => ({ w, res: DEPLOY, kind: 'ReplicaSet', owner: `${w.metadata.name}-${hash(w.metadata.uid!, 10)}` })),
      ...this.store.peekList(STS.group, STS.resource).map((w) => ({ w, res: STS, kind: 'StatefulSet', owner: w.metadata.name })),
    ];
    for (const { w, res, kind, owner } of workloads) {
      const spec = podSpecOf(w);
      const replicas = typeof (w.spec as { replicas?: unknown }).replicas === 'number' ? ((w.spec as { replicas: number }).replicas) : 1;
      const ownerRef = { apiVersion: 'apps/v1', kind, name: owner, uid: kind === 'ReplicaSet' ? hash(`rs/${w.metadata.uid}`, 32) : w.metadata.uid! };
      let mine = this.current(w, kind, owned(kind, ownerRef.uid)).sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
      // scale down: pending pods first, then the newest
      const excess = mine.length - replicas;
      if (excess > 0) {
        const order = [...mine.filter((p) => !(p.spec as PodSpec).nodeName), ...mine.filter((p) => (p.spec as PodSpec).nodeName).reverse()];
        const gone = new Set(order.slice(0, excess).map((p) => p.metadata.name));
        for (const p of order.slice(0, excess)) this.remove(p);
        mine = mine.filter((p) => !gone.has(p.metadata.name));
      }
      // Where each pod is bound, or is bound by this pass.
      const nodeOf = new Map(mine.map((p) => [p.metadata.name, (p.spec as PodSpec).nodeName as string | undefined]));
      const load = (n: SchedNode) => mine.filter((p) => nodeOf.get(p.metadata.name) === n.name).length;
      // a NotReady node carries the not-ready taint: only pods tolerating it go there (the tigera-operator does)
      const schedulable = nodes.filter((n) => n.alive && !n.unschedulable && fits(spec, n));
      const pick = () => schedulable.sort((a, b) => load(a) - load(b) || a.name.localeCompare(b.name))[0];
      const taken = new Set(mine.map((p) => p.metadata.name));
      // A StatefulSet's pod keeps its identity: its successor waits until the terminating one is gone.
      const ending = new Set(kind === 'StatefulSet' ? this.store.peekList(POD.group, POD.resource, w.metadata.namespace ?? 'default').filter(terminating).map((p) => p.metadata.name) : []);
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
        const bound = byName.get(nodeOf.get(p.metadata.name) ?? '');
        const node = bound ?? pick();
        this.put(this.pod(w, p.metadata.name, ownerRef, node, cni, kind === 'StatefulSet' ? { hostname: p.metadata.name } : {}));
        if (!bound && node) nodeOf.set(p.metadata.name, node.name);
      }
      const ready = mine.filter((p) => podReady(spec, byName.get(nodeOf.get(p.metadata.name) ?? ''), cni)).length;
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

  private setStatus(w: Obj, res: { group: string; resource: string }, status: Record<string, unknown>): void {
    this.store.save({ ...res, namespace: w.metadata.namespace ?? 'default', name: w.metadata.name }, { ...w, status });
  }
}
