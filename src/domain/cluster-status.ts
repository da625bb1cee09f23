// The one place a cluster's Magnum status is computed: from its latest operation and the
// conditions the workers observed. API and workers both write status through this function.
import type { OperationKind, OperationState } from './operations.js';

/** The conditions a cluster reports, in the order they are reached during a create. */
export const CONDITION_TYPES = ['network', 'security_groups', 'api_lb', 'control_plane', 'workers', 'addons', 'health'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

/** One observed condition of a cluster (network, api_lb, control_plane, ...), as the workers saw it. */
export interface Condition {
  status: 'True' | 'False' | 'Unknown';
  /** A stable CamelCase code, e.g. `Pending`, `Ready`, `QuotaExceeded`, `NoValidHost`. */
  reason: string;
  message: string;
  /** ISO time of the last change of `status`. */
  since: string;
}

export type Conditions = Record<string, Condition>;

/** Magnum's cluster statuses (magnum/objects/fields.py ClusterStatus). */
export const CLUSTER_STATUSES = [
  'CREATE_IN_PROGRESS',
  'CREATE_FAILED',
  'CREATE_COMPLETE',
  'UPDATE_IN_PROGRESS',
  'UPDATE_FAILED',
  'UPDATE_COMPLETE',
  'DELETE_IN_PROGRESS',
  'DELETE_FAILED',
  'DELETE_COMPLETE',
  'RESUME_COMPLETE',
  'RESUME_FAILED',
  'RESTORE_COMPLETE',
  'ROLLBACK_IN_PROGRESS',
  'ROLLBACK_FAILED',
  'ROLLBACK_COMPLETE',
  'SNAPSHOT_COMPLETE',
  'CHECK_COMPLETE',
  'ADOPT_COMPLETE',
] as const;
export type ClusterStatus = (typeof CLUSTER_STATUSES)[number];

/** Settled: every *_COMPLETE status but DELETE_COMPLETE. */
export const SETTLED_STATUSES: readonly ClusterStatus[] = CLUSTER_STATUSES.filter((s) => s.endsWith('_COMPLETE') && s !== 'DELETE_COMPLETE');
export const COMPLETE_SET: ReadonlySet<string> = new Set<string>(SETTLED_STATUSES);
/**
 * Clusters that stand and run nothing: the settled ones and those whose update failed (they still serve, and
 * their owner may try again). Updates, node group changes and credential rotations start from these; the health
 * pass checks them.
 */
export const STANDING_STATUSES: readonly ClusterStatus[] = [...SETTLED_STATUSES, 'UPDATE_FAILED'];
export const FAILED_SET: ReadonlySet<string> = new Set<string>(['CREATE_FAILED', 'UPDATE_FAILED', 'DELETE_FAILED', 'ROLLBACK_FAILED', 'RESUME_FAILED']);

/** The status as one of Magnum's; undefined for a string that is none. */
export const clusterStatus = (s: string): ClusterStatus | undefined => CLUSTER_STATUSES.find((k) => k === s);

export interface OperationView {
  kind: OperationKind;
  state: OperationState;
  error: string | null;
  params?: Record<string, unknown>;
}

const verb = (kind: OperationKind): 'CREATE' | 'UPDATE' | 'DELETE' => {
  if (kind === 'create') return 'CREATE';
  if (kind === 'delete') return 'DELETE';
  return 'UPDATE';
};

/** The first condition, in create order, that is not True (the one a cluster waits on or failed at). */
export function blockingCondition(conditions: Conditions): [ConditionType, Condition] | undefined {
  for (const t of CONDITION_TYPES) {
    if (t === 'health') continue;
    const c = conditions[t];
    if (c && c.status !== 'True') return [t, c];
  }
  return undefined;
}

/** status and status_reason for the cluster's latest operation and its conditions. */
export function deriveStatus(op: OperationView, conditions: Conditions): { status: string; status_reason: string | null } {
  const v = verb(op.kind);
  const rollback = op.params?.rollback === true;
  switch (op.state) {
    case 'pending':
    case 'queued':
    case 'running': {
      const blocking = blockingCondition(conditions);
      return { status: `${v}_IN_PROGRESS`, status_reason: blocking ? `${blocking[0]}: ${blocking[1].message}` : null };
    }
    case 'succeeded':
      return { status: `${v}_COMPLETE`, status_reason: null };
    case 'failed': {
      const failed = CONDITION_TYPES.map((t) => [t, conditions[t]] as const).find(([t, c]) => t !== 'health' && c?.status === 'False');
      const reason = op.error ?? (failed ? `${failed[0]}: ${failed[1]!.message}` : 'The operation failed.');
      // Asked to roll back: ROLLBACK_COMPLETE once the change was undone (Magnum's status after Heat's rollback), else ROLLBACK_FAILED.
      if (rollback && v === 'UPDATE') return { status: op.params?.rolled_back === true ? 'ROLLBACK_COMPLETE' : 'ROLLBACK_FAILED', status_reason: reason };
      return { status: `${v}_FAILED`, status_reason: reason };
    }
    case 'cancelled':
      return { status: `${v}_FAILED`, status_reason: op.error ?? 'The operation was cancelled.' };
  }
}

/** health_status from the `health` condition: null before the first check. */
export function deriveHealth(conditions: Conditions): string | null {
  const h = conditions.health;
  if (!h) return null;
  return h.status === 'True' ? 'HEALTHY' : h.status === 'False' ? 'UNHEALTHY' : 'UNKNOWN';
}

/** Magnum's `faults`: nodegroup name → status_reason of failed groups, plus failed conditions. */
export function deriveFaults(
  status: string,
  conditions: Conditions,
  nodegroups: { name: string; status: string | null; status_reason: string | null }[],
): Record<string, string> | undefined {
  if (!FAILED_SET.has(status)) return undefined;
  const faults: Record<string, string> = {};
  for (const ng of nodegroups) if (ng.status?.endsWith('FAILED')) faults[ng.name] = ng.status_reason ?? '';
  for (const t of CONDITION_TYPES) {
    const c = conditions[t];
    if (c?.status === 'False') faults[t] = `${c.reason}: ${c.message}`;
  }
  return faults;
}

/** The conditions of a cluster just accepted: all Unknown, waiting on their step. */
export function initialConditions(now: Date, withLoadBalancer: boolean): Conditions {
  const since = now.toISOString();
  const out: Conditions = {};
  for (const t of CONDITION_TYPES) {
    if (t === 'health') continue;
    if (t === 'api_lb' && !withLoadBalancer) continue;
    out[t] = { status: 'Unknown', reason: 'Pending', message: 'Waiting for the create to start.', since };
  }
  return out;
}
