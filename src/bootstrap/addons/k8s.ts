// Small builders for the object shapes every add-on repeats (metadata, RBAC, containers, volumes).

import type { K8sObject } from './framework.js';

export const KUBE_SYSTEM = 'kube-system';
const MANAGED = { 'app.kubernetes.io/managed-by': 'magnum-ts' };

export function meta(name: string, namespace?: string, labels: Record<string, string> = {}): K8sObject['metadata'] {
  return { name, ...(namespace ? { namespace } : {}), labels: { ...labels, ...MANAGED } };
}

/**
 * A workload (in kube-system unless told): its pods carry `labels` (also its selector) and run `pod`; `spec` holds
 * the kind's own fields (strategy, replicas, serviceName).
 */
export function workload(
  kind: 'Deployment' | 'DaemonSet' | 'StatefulSet',
  name: string,
  labels: Record<string, string>,
  pod: Record<string, unknown>,
  spec: Record<string, unknown> = {},
  namespace = KUBE_SYSTEM,
): K8sObject {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: meta(name, namespace, labels),
    spec: { ...spec, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: pod } },
  };
}

export function serviceAccount(name: string, namespace = KUBE_SYSTEM): K8sObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(name, namespace) };
}

export interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export const rule = (apiGroups: string[], resources: string[], verbs: string[]): Rule => ({ apiGroups, resources, verbs });
export const READ = ['get', 'list', 'watch'];

export function clusterRole(name: string, rules: Rule[], labels: Record<string, string> = {}): K8sObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta(name, undefined, labels), rules };
}

export function role(name: string, namespace: string, rules: Rule[]): K8sObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(name, namespace), rules };
}

type Subject = { kind: 'ServiceAccount'; name: string; namespace: string };
export const sa = (name: string, namespace = KUBE_SYSTEM): Subject => ({ kind: 'ServiceAccount', name, namespace });

export function clusterRoleBinding(name: string, role: string, subjects: Subject[]): K8sObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects,
  };
}

export function roleBinding(name: string, namespace: string, role: { kind: 'Role' | 'ClusterRole'; name: string }, subjects: Subject[]): K8sObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta(name, namespace),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...role },
    subjects,
  };
}

export const requests = (cpu: string, memory: string) => ({ requests: { cpu, memory } });

/** An Opaque Secret holding `values` (base64 in `data`, as the API returns them). */
export function secret(metadata: K8sObject['metadata'], values: Record<string, string>): K8sObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', data: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')])) };
}

/** A ClusterIP Service in front of the pods labelled `selector`. */
export function service(name: string, namespace: string, selector: Record<string, string>, ports: { name: string; port: number; targetPort?: number }[], annotations: Record<string, string> = {}): K8sObject {
  const metadata = meta(name, namespace, selector);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: Object.keys(annotations).length > 0 ? { ...metadata, annotations } : metadata,
    spec: { type: 'ClusterIP', selector, ports: ports.map((p) => ({ name: p.name, port: p.port, targetPort: p.targetPort ?? p.port, protocol: 'TCP' })) },
  };
}

/** Containers that cannot gain privileges, with no capabilities and a read-only root. */
export const RESTRICTED = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true };

export const hostPath = (name: string, path: string, type?: string) => ({ name, hostPath: { path, ...(type ? { type } : {}) } });
export const mount = (name: string, mountPath: string, extra: Record<string, unknown> = {}) => ({ name, mountPath, ...extra });
export const fieldEnv = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });

/** Runs anywhere a node exists, whatever its taints (CNI and CSI node plugins). */
export const TOLERATE_ALL = [{ operator: 'Exists' }];

/** Control-plane nodes, including before OCCM removed the uninitialized taint. */
export const CONTROL_PLANE = {
  nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
  tolerations: [
    { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
    { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
  ],
};
