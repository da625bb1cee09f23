// Kubernetes labels and taints a node group's Nodes register with (kubelet --node-labels, kubeadm
// nodeRegistration.taints): the group's identity, as Heat Magnum labelled its nodes, and the group's
// node_labels / node_taints (microversion 1.14). The kubelet refuses to start with a label of the
// kubernetes.io / k8s.io namespaces outside the few it may set on its own Node, so those are refused
// here, before any server boots, rather than left to fail on the node.

import { createHash } from 'node:crypto';

export interface NodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** Set by the service on every Node of a group: the group's name and role (Heat Magnum's labels). */
export const NODEGROUP_LABEL = 'magnum.openstack.org/nodegroup';
export const ROLE_LABEL = 'magnum.openstack.org/role';

/** Labels of the kubernetes.io / k8s.io namespaces the kubelet may set itself (k8s.io/kubelet KubeletLabels). */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
]);
/** Namespaces of those whose every label the kubelet may set. */
const KUBELET_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];
/** Taint namespaces the node lifecycle controller and the cloud provider own. */
const RESERVED_TAINTS = ['node.kubernetes.io', 'node.cloudprovider.kubernetes.io'];

const namespaceOf = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inKubeNamespace = (ns: string): boolean => ['kubernetes.io', 'k8s.io'].some((d) => ns === d || ns.endsWith(`.${d}`));

/** Why the kubelet cannot register its Node with a label of this key (undefined: it can). */
export function nodeLabelProblem(key: string): string | undefined {
  const ns = namespaceOf(key);
  if (!inKubeNamespace(ns) || KUBELET_LABELS.has(key) || KUBELET_NAMESPACES.some((n) => ns === n || ns.endsWith(`.${n}`))) return undefined;
  return `is in the ${ns} namespace, where a kubelet may set only ${[...KUBELET_NAMESPACES.map((n) => `${n}/*`), 'the well-known topology, os, arch and instance-type labels'].join(', ')}; use a prefix of your own (e.g. example.org/role)`;
}

/** Why a node_labels key of a user is refused: the kubelet cannot set it, or it is the service's own (undefined: accepted). */
export function userNodeLabelProblem(key: string): string | undefined {
  if (key === NODEGROUP_LABEL || key === ROLE_LABEL) return 'is set by the service on every node of the group';
  return nodeLabelProblem(key);
}

/** Why a node_taints key is not the user's to set (undefined: it is). */
export function nodeTaintProblem(key: string): string | undefined {
  const ns = namespaceOf(key);
  const owner = RESERVED_TAINTS.find((n) => ns === n);
  return owner ? `is in the ${owner} namespace, which Kubernetes' controllers manage` : undefined;
}

const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * A name as a label value (at most 63 alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric),
 * one to one: a name that is one already stays as it is; any other (too long, ending in '-', or an older group's
 * name with characters the name rule now refuses) gets a digest of the whole name after what is left of it, so
 * `a b`, `a;b` and `a-b`, or two long names that begin alike, never label their nodes the same.
 */
export function labelValue(name: string): string {
  if (LABEL_VALUE.test(name)) return name;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 10);
  const kept = name.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 52).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return kept ? `${kept}-${digest}` : digest;
}

/** A group's Node labels: its identity (names made label values), then its node_labels. */
export function groupNodeLabels(group: { name: string; role: string }, nodeLabels: Record<string, string> | null | undefined): Record<string, string> {
  return { [NODEGROUP_LABEL]: labelValue(group.name), [ROLE_LABEL]: labelValue(group.role), ...(nodeLabels ?? {}) };
}
