// Static pods as the kubelet mirrors them into the API: kubeadm's control-plane components on each
// live control plane, and every manifest of a node's /etc/kubernetes/manifests (its files), named
// `<name>-<node>`, annotated with the manifest's hash; a changed manifest is a new pod (the kubelet
// kills the old one and starts the new, which reads its files again).
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { Obj, ObjectStore } from './store.js';
import type { SchedNode } from './workloads.js';

const POD = { group: '', resource: 'pods' };
const STATIC_PODS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];
const hash = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);
const put = (store: ObjectStore, p: Obj): void => {
  store.save({ ...POD, namespace: p.metadata.namespace ?? 'default', name: p.metadata.name }, p);
};

/** kubeadm's static pods, mirrored while the control plane's Node exists, and those of the manifests on the nodes' disks. */
export function mirrorStaticPods(store: ObjectStore, nodes: SchedNode[]): void {
  for (const n of nodes.filter((x) => x.controlPlane && x.alive)) {
    for (const c of STATIC_PODS) {
      const name = `${c}-${n.name}`;
      put(store, {
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
  for (const n of nodes.filter((x) => x.alive)) for (const content of Object.values(n.manifests ?? {})) mirror(store, n, content);
}

/**
 * The mirror pod of a static pod manifest on a node's disk, as the kubelet keeps it: named
 * `<name>-<node>`, annotated with the manifest's hash; a changed manifest is a new pod (the kubelet
 * kills the old one and starts the new, which reads its files again).
 */
type Manifest = { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
/** Manifests read, by content (every controller pass mirrors every node's manifests): parsed and hashed once. */
const manifests = new Map<string, { pod: Manifest | undefined; hash: string }>();
function manifest(content: string): { pod: Manifest | undefined; hash: string } {
  let m = manifests.get(content);
  if (!m) {
    let pod: Manifest | undefined;
    try {
      pod = parseYaml(content) as Manifest;
    } catch {
      pod = undefined;
    }
    if (manifests.size >= 4096) manifests.clear();
    manifests.set(content, (m = { pod, hash: hash(content, 32) }));
  }
  return m;
}

function mirror(store: ObjectStore, n: SchedNode, content: string): void {
  // Read only: what is written below is built anew from it.
  const { pod, hash: configHash } = manifest(content);
  if (pod?.kind !== 'Pod' || typeof pod.metadata?.name !== 'string') return;
  const name = `${pod.metadata.name}-${n.name}`;
  const namespace = typeof pod.metadata.namespace === 'string' ? pod.metadata.namespace : 'default';
  const old = store.peek({ ...POD, namespace, name });
  if (old && old.metadata.annotations?.['kubernetes.io/config.hash'] !== configHash) store.delete({ ...POD, namespace, name });
  put(store, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { ...pod.metadata.labels },
      annotations: { ...pod.metadata.annotations, 'kubernetes.io/config.hash': configHash, 'kubernetes.io/config.mirror': configHash, 'kubernetes.io/config.source': 'file' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: n.name, uid: hash(`node/${n.name}`, 32), controller: true }],
    },
    spec: { ...pod.spec, nodeName: n.name },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], ...(n.ip ? { hostIP: n.ip, ...(pod.spec?.hostNetwork ? { podIP: n.ip } : {}) } : {}) },
  });
}
