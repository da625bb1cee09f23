// What a pod's containers read of Secrets, as the kubelet hands them over: the data of each Secret
// its spec names (volumes, projected volumes, envFrom, env) as it was when its containers started (a
// missing Secret holds the start back; it is read once it appears). A process that reads its
// configuration at start (OCCM, the CSI drivers, ExternalDNS, the KMS plugin's agent) keeps using
// that, whatever the Secret holds later, until its pod is replaced. Kept in memory only: after a
// restore of the simulator, pods read their Secrets again (as after a reboot of every node).
import { terminating } from './disruption.js';
import type { Obj, ObjectStore } from './store.js';

type Volume = {
  name: string;
  secret?: { secretName?: string; items?: { key: string; path: string }[] };
  projected?: { sources?: { secret?: { name?: string } }[] };
  hostPath?: { path: string };
};
type PodSpec = { nodeName?: string; volumes?: Volume[]; containers?: Container[]; initContainers?: Container[] };
export type Container = {
  name?: string;
  command?: string[];
  args?: string[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  envFrom?: { secretRef?: { name?: string } }[];
  env?: { valueFrom?: { secretKeyRef?: { name?: string } } }[];
};

/** Where a path of a container lands: the volume of the deepest mount holding it, and the path within. */
export function volumeAt(pod: Obj, c: Container, path: string): { volume: Volume; rest: string; readOnly: boolean } | undefined {
  const mounts = (c.volumeMounts ?? []).filter((m) => path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`)).sort((a, b) => b.mountPath.length - a.mountPath.length);
  const m = mounts[0];
  const volume = m && (pod.spec as PodSpec | undefined)?.volumes?.find((v) => v.name === m.name);
  return m && volume ? { volume, rest: path.slice(m.mountPath.replace(/\/$/, '').length + 1), readOnly: m.readOnly === true } : undefined;
}

/** The Secrets a pod spec names. */
function named(spec: PodSpec | undefined): Set<string> {
  const out = new Set<string>();
  for (const v of spec?.volumes ?? []) {
    if (v.secret?.secretName) out.add(v.secret.secretName);
    for (const s of v.projected?.sources ?? []) if (s.secret?.name) out.add(s.secret.name);
  }
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) {
    for (const e of c.envFrom ?? []) if (e.secretRef?.name) out.add(e.secretRef.name);
    for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef?.name) out.add(e.valueFrom.secretKeyRef.name);
  }
  return out;
}

export class PodMounts {
  /** Pod uid → Secret name → its data (base64 values) when the pod's containers started. */
  private readonly read = new Map<string, Map<string, Record<string, string>>>();

  /** After the controllers' pass: started pods read the Secrets they name (those not read yet); gone pods are forgotten. */
  sync(store: ObjectStore): void {
    const seen = new Set<string>();
    for (const p of store.peekList('', 'pods')) {
      const spec = p.spec as PodSpec | undefined;
      if (!spec?.nodeName || terminating(p) || !p.metadata.uid) continue;
      seen.add(p.metadata.uid);
      let mine = this.read.get(p.metadata.uid);
      for (const name of named(spec)) {
        if (mine?.has(name)) continue;
        const s = store.peek({ group: '', resource: 'secrets', namespace: p.metadata.namespace ?? 'default', name });
        if (!s) continue;
        if (!mine) this.read.set(p.metadata.uid, (mine = new Map()));
        mine.set(name, { ...((s.data ?? {}) as Record<string, string>) });
      }
    }
    for (const uid of this.read.keys()) if (!seen.has(uid)) this.read.delete(uid);
  }

  /** A file of container `c` of `pod` that comes from a Secret volume, as the pod read it at start. */
  file(pod: Obj, c: Container, path: string): string | undefined {
    const at = volumeAt(pod, c, path);
    const secret = at?.volume.secret;
    if (!at || !secret?.secretName) return undefined;
    const key = secret.items ? secret.items.find((i) => i.path === at.rest)?.key : at.rest;
    return key === undefined ? undefined : this.value(pod, secret.secretName, key);
  }

  /** One value of a Secret as `pod` read it (decoded); undefined when it named none such or has not started. */
  value(pod: Obj, secret: string, key: string): string | undefined {
    const v = this.read.get(pod.metadata.uid ?? '')?.get(secret)?.[key];
    return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
  }
}
