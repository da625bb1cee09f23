// Pods restart when a Secret they read changes: each workload whose pods read Secrets of the same
// rendering (volumes, envFrom, env) carries their checksum in its pod template (annotation
// checksum/secrets), so that applying a changed Secret (a new credential in cloud.conf) also rolls the
// pods that read it at start (OCCM, the CSI drivers, ExternalDNS, the ingress controller). Pods that
// read a Secret per request (Manila CSI's StorageClass secrets) are not concerned.
import { createHash } from 'node:crypto';
import type { K8sObject } from './framework.js';

export const SECRETS_CHECKSUM = 'checksum/secrets';

const WORKLOADS = new Set(['Deployment', 'DaemonSet', 'StatefulSet']);

type PodSpec = {
  volumes?: { secret?: { secretName?: string }; projected?: { sources?: { secret?: { name?: string } }[] } }[];
  containers?: Container[];
  initContainers?: Container[];
};
type Container = { envFrom?: { secretRef?: { name?: string } }[]; env?: { valueFrom?: { secretKeyRef?: { name?: string } } }[] };

/** The names of the Secrets a pod spec reads (its namespace's). */
export function secretsReadBy(pod: PodSpec | undefined): string[] {
  const names = new Set<string>();
  for (const v of pod?.volumes ?? []) {
    if (v.secret?.secretName) names.add(v.secret.secretName);
    for (const src of v.projected?.sources ?? []) if (src.secret?.name) names.add(src.secret.name);
  }
  for (const c of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
    for (const e of c.envFrom ?? []) if (e.secretRef?.name) names.add(e.secretRef.name);
    for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef?.name) names.add(e.valueFrom.secretKeyRef.name);
  }
  return [...names].sort();
}

type Template = { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: PodSpec };

/** A workload's pod template (undefined for other kinds). */
export function templateOf(o: K8sObject): Template | undefined {
  return WORKLOADS.has(o.kind) ? ((o.spec as { template?: Template } | undefined)?.template ?? undefined) : undefined;
}

const key = (namespace: string | undefined, name: string): string => `${namespace ?? 'default'}/${name}`;

/** The objects with each workload reading Secrets among them annotated with those Secrets' checksum. */
export function withSecretChecksums(objects: K8sObject[]): K8sObject[] {
  const secrets = new Map<string, string>();
  for (const o of objects) {
    if (o.kind !== 'Secret') continue;
    const data = Object.entries((o.data ?? {}) as Record<string, string>).sort(([a], [b]) => a.localeCompare(b));
    secrets.set(key(o.metadata.namespace, o.metadata.name), createHash('sha256').update(JSON.stringify(data)).digest('hex'));
  }
  return objects.map((o) => {
    const t = templateOf(o);
    if (!t) return o;
    const read = secretsReadBy(t.spec).map((n) => secrets.get(key(o.metadata.namespace, n))).filter((h): h is string => h !== undefined);
    if (read.length === 0) return o;
    const checksum = createHash('sha256').update(read.join(',')).digest('hex');
    const template = { ...t, metadata: { ...t.metadata, annotations: { ...t.metadata?.annotations, [SECRETS_CHECKSUM]: checksum } } };
    return { ...o, spec: { ...(o.spec as Record<string, unknown>), template } };
  });
}
