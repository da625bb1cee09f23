// Checks of a node group beyond its schema: node counts (spec §3.4), the group states that allow
// a change (spec §5.3; the cluster's are in src/domain/transitions.ts), and Kubernetes' syntax for
// node labels and taints (1.14).
import { COMPLETE_SET } from '../domain/cluster-status.js';
import { Ajv } from 'ajv';
import { errors } from '../domain/errors.js';
import { NODE_COUNT_CEILING } from '../domain/limits.js';
import { coerceScalars, validationError } from '../domain/wire-values.js';
import type { NodeTaint } from '../db/entities/nodegroup.js';
import { nodeTaintProblem, userNodeLabelProblem } from '../cluster-spec/node-labels.js';

export interface Counts {
  node_count: number;
  min_node_count: number;
  /** null: no upper bound. */
  max_node_count: number | null;
}

/** min ≤ node_count ≤ max (when max is set); 409 naming the attribute at fault. */
export function checkCounts(nodegroup: string, c: Counts): void {
  const { node_count: n, min_node_count: min, max_node_count: max } = c;
  if (max !== null) {
    if (max < min) throw errors.nodegroupCounts('max_node_count', nodegroup, `max_node_count ${max} is below min_node_count ${min}`);
    if (n > max) throw errors.nodegroupCounts('max_node_count', nodegroup, `node_count ${n} is above max_node_count ${max}`);
  }
  if (min > n) throw errors.nodegroupCounts('min_node_count', nodegroup, `min_node_count ${min} is above node_count ${n}`);
}

const UPDATABLE = new Set([...COMPLETE_SET, 'UPDATE_IN_PROGRESS', 'UPDATE_FAILED']);

/** Magnum's nodegroup update states (a group that failed its create cannot be resized). */
export function checkNodegroupUpdatable(ng: { name: string; status: string | null }): void {
  if (ng.status !== null && !UPDATABLE.has(ng.status)) throw errors.nodegroupNotReady(ng.name, ng.status);
}

// Kubernetes' qualified names (label and taint keys) and label values.
const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function keyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return 'has more than one "/"';
  const [prefix, name] = parts.length === 2 ? [parts[0]!, parts[1]!] : [undefined, parts[0]!];
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return 'has a prefix that is not a DNS subdomain of at most 253 characters';
  }
  if (name.length === 0 || name.length > 63 || !NAME_PART.test(name)) {
    return 'must have a name of 1 to 63 alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric';
  }
  return undefined;
}

function valueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63 || !NAME_PART.test(value)) {
    return 'must be at most 63 alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric';
  }
  return undefined;
}

export function checkNodeLabels(labels: Record<string, string>): void {
  for (const [k, v] of Object.entries(labels)) {
    const why = keyProblem(k);
    if (why) throw errors.invalidInput('node_labels', labels, `Label key '${k}' ${why}.`);
    const whyValue = valueProblem(v);
    if (whyValue) throw errors.invalidInput('node_labels', labels, `The value of label '${k}' ${whyValue}.`);
    // What the kubelet would refuse to register with never reaches a node.
    const whyKubelet = userNodeLabelProblem(k);
    if (whyKubelet) throw errors.invalidInput('node_labels', labels, `Label key '${k}' ${whyKubelet}.`);
  }
}

export function checkNodeTaints(taints: NodeTaint[]): void {
  const seen = new Set<string>();
  for (const t of taints) {
    const why = keyProblem(t.key);
    if (why) throw errors.invalidInput('node_taints', taints, `Taint key '${t.key}' ${why}.`);
    const whyValue = t.value === undefined ? undefined : valueProblem(t.value);
    if (whyValue) throw errors.invalidInput('node_taints', taints, `The value of taint '${t.key}' ${whyValue}.`);
    const reserved = nodeTaintProblem(t.key);
    if (reserved) throw errors.invalidInput('node_taints', taints, `Taint key '${t.key}' ${reserved}.`);
    const id = `${t.key}:${t.effect}`;
    if (seen.has(id)) throw errors.invalidInput('node_taints', taints, `Taint '${t.key}' with effect ${t.effect} is given twice.`);
    seen.add(id);
  }
}

const BOUND = { type: ['integer', 'null'], minimum: 0, maximum: NODE_COUNT_CEILING };
const Bounds = { type: 'object', properties: { min_node_count: BOUND, max_node_count: BOUND } };
const validateBounds = new Ajv({ coerceTypes: false, strict: false }).compile(Bounds);

/** A patched group's min_node_count and max_node_count, in place: wsme's conversions, then its errors for a bad value. */
export function checkBounds(bounds: Record<string, unknown>): void {
  coerceScalars(bounds, Bounds);
  if (!validateBounds(bounds)) throw validationError(validateBounds.errors![0]!, bounds);
}
