// What the apiserver adds to Services and PersistentVolumeClaims on their way in: a node port
// (30000-32767, kept across updates, a taken one refused) for every port of a NodePort or
// LoadBalancer Service; the default StorageClass (DefaultStorageClass admission), the
// kubernetes.io/pvc-protection finalizer (StorageObjectInUseProtection) and a Pending phase for a
// new claim; the kubernetes.io/pv-protection finalizer for a new PersistentVolume.
import { KubeStatus, type Obj, type ObjectStore } from './store.js';

const NODE_PORTS = { min: 30000, max: 32767 };

interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  nodePort?: number;
}

const portsOf = (o: Obj | undefined): ServicePort[] => (((o?.spec as { ports?: ServicePort[] } | undefined)?.ports) ?? []);

function allocateNodePorts(store: ObjectStore, svc: Obj, old: Obj | undefined): Obj {
  const spec = { ...(svc.spec as Record<string, unknown> | undefined) };
  const type = spec.type as string | undefined;
  if (type !== 'NodePort' && type !== 'LoadBalancer') {
    return { ...svc, spec: { ...spec, ports: portsOf(svc).map(({ nodePort: _drop, ...p }) => p) } };
  }
  const used = new Set<number>();
  for (const other of store.list('', 'services')) {
    if (other.metadata.uid === old?.metadata.uid) continue;
    for (const p of portsOf(other)) if (p.nodePort) used.add(p.nodePort);
  }
  const before = portsOf(old);
  let next = NODE_PORTS.min;
  const ports = portsOf(svc).map((p) => {
    const protocol = p.protocol ?? 'TCP';
    const kept = p.nodePort ?? before.find((b) => b.port === p.port && (b.protocol ?? 'TCP') === protocol)?.nodePort;
    if (kept !== undefined) {
      if (kept < NODE_PORTS.min || kept > NODE_PORTS.max) {
        throw new KubeStatus(422, `Service "${svc.metadata.name}" is invalid: spec.ports[].nodePort: Invalid value: ${kept}: provided port is not in the valid range. The range of valid ports is ${NODE_PORTS.min}-${NODE_PORTS.max}`, 'Invalid');
      }
      if (used.has(kept)) throw new KubeStatus(422, `Service "${svc.metadata.name}" is invalid: spec.ports[].nodePort: Invalid value: ${kept}: provided port is already allocated`, 'Invalid');
      used.add(kept);
      return { ...p, protocol, nodePort: kept };
    }
    while (used.has(next)) next++;
    if (next > NODE_PORTS.max) throw new KubeStatus(500, 'Internal error occurred: failed to allocate a nodePort: range is full');
    used.add(next);
    return { ...p, protocol, nodePort: next };
  });
  return { ...svc, spec: { ...spec, ports } };
}

function admitClaim(store: ObjectStore, pvc: Obj, old: Obj | undefined): Obj {
  if (old) return pvc;
  const spec = { ...(pvc.spec as Record<string, unknown> | undefined) };
  if (spec.storageClassName === undefined) {
    const byDefault = store.list('storage.k8s.io', 'storageclasses').find((c) => c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
    if (byDefault) spec.storageClassName = byDefault.metadata.name;
  }
  const finalizers = [...new Set([...((pvc.metadata.finalizers as string[] | undefined) ?? []), 'kubernetes.io/pvc-protection'])];
  return { ...pvc, metadata: { ...pvc.metadata, finalizers }, spec, status: { phase: 'Pending' } };
}

/** The object as the apiserver stores it (`old`: what it replaces, if anything). */
export function admitWithStore(store: ObjectStore, t: { group: string; resource: string }, o: Obj, old: Obj | undefined): Obj {
  if (t.group !== '') return o;
  if (t.resource === 'services') return allocateNodePorts(store, o, old);
  if (t.resource === 'persistentvolumeclaims') return admitClaim(store, o, old);
  if (t.resource === 'persistentvolumes' && !old) {
    return { ...o, metadata: { ...o.metadata, finalizers: [...new Set([...((o.metadata.finalizers as string[] | undefined) ?? []), 'kubernetes.io/pv-protection'])] } };
  }
  return o;
}
