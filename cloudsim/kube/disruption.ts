// PodDisruptionBudgets (policy/v1) and the Eviction API's check against them, as the apiserver
// and the disruption controller do it: a budget counts the healthy (Ready, not terminating) pods
// its selector matches against minAvailable or maxUnavailable (integers or percentages of the
// expected pods, rounded up), an eviction it would break is refused with 429 TooManyRequests and a
// DisruptionBudget cause, a pod under two budgets with 500, and an unhealthy pod may go while the
// budget is met (unhealthyPodEvictionPolicy IfHealthyBudget, the default) or always (AlwaysAllow).
import { labelSelectorMatches, type LabelSelector } from './selectors.js';
import { iso, KubeStatus, type Obj, type ObjectStore } from './store.js';

export const PDBS = { group: 'policy', resource: 'poddisruptionbudgets' };

interface PdbSpec {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  selector?: LabelSelector;
  unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
}

export interface Budget {
  expected: number;
  healthy: number;
  desired: number;
  allowed: number;
}

export const terminating = (p: Obj): boolean => typeof p.metadata.deletionTimestamp === 'string';

/** Ready and not on its way out: what a budget counts as healthy. */
export const podHealthy = (p: Obj): boolean =>
  !terminating(p) && ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** `n` or `n%` of `total`, percentages rounded up (intstr.GetScaledValueFromIntOrPercent with roundUp). */
function scaled(v: number | string, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) return Number(v) || 0;
  return Math.ceil((Number(m[1]) * total) / 100);
}

const specOf = (pdb: Obj): PdbSpec => (pdb.spec ?? {}) as PdbSpec;

/** The pods a budget guards (its namespace, its selector; policy/v1: an empty selector matches all). */
function guarded(store: ObjectStore, pdb: Obj): readonly Obj[] {
  const sel = specOf(pdb).selector;
  return store.peekList('', 'pods', pdb.metadata.namespace ?? 'default').filter((p) => labelSelectorMatches(sel, p.metadata.labels));
}

/** The budget's numbers now. Expected pods: those it matches that are not terminating (their replacements count instead). */
export function budgetOf(store: ObjectStore, pdb: Obj): Budget {
  const s = specOf(pdb);
  const pods = guarded(store, pdb);
  const expected = pods.filter((p) => !terminating(p)).length;
  const healthy = pods.filter(podHealthy).length;
  const desired = s.maxUnavailable !== undefined ? Math.max(0, expected - scaled(s.maxUnavailable, expected)) : scaled(s.minAvailable ?? 0, expected);
  return { expected, healthy, desired, allowed: Math.max(0, healthy - desired) };
}

/** The disruption controller: every budget's status. */
export function reconcileDisruptionBudgets(store: ObjectStore, now: number): void {
  for (const pdb of store.peekList(PDBS.group, PDBS.resource)) {
    const b = budgetOf(store, pdb);
    const old = (pdb.status ?? {}) as { conditions?: { status: string; lastTransitionTime: string }[] };
    const allowed = b.allowed > 0 ? 'True' : 'False';
    const since = old.conditions?.[0]?.status === allowed ? old.conditions[0].lastTransitionTime : iso(now);
    store.save({ ...PDBS, namespace: pdb.metadata.namespace ?? 'default', name: pdb.metadata.name }, {
      ...pdb,
      status: {
        observedGeneration: pdb.metadata.generation,
        disruptionsAllowed: b.allowed,
        currentHealthy: b.healthy,
        desiredHealthy: b.desired,
        expectedPods: b.expected,
        conditions: [{ type: 'DisruptionAllowed', status: allowed, reason: b.allowed > 0 ? 'SufficientPods' : 'InsufficientPods', message: '', observedGeneration: pdb.metadata.generation, lastTransitionTime: since }],
      },
    });
  }
}

/**
 * Whether the Eviction API may delete `pod` now: nothing (it may), or the Status the apiserver
 * answers. Pods that are not running (Pending, Succeeded, Failed) or already terminating ignore budgets.
 */
export function evictionRefusal(store: ObjectStore, pod: Obj): KubeStatus | undefined {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (terminating(pod) || phase === 'Pending' || phase === 'Succeeded' || phase === 'Failed') return undefined;
  const budgets = store.list(PDBS.group, PDBS.resource, pod.metadata.namespace ?? 'default').filter((b) => labelSelectorMatches(specOf(b).selector, pod.metadata.labels));
  if (budgets.length === 0) return undefined;
  if (budgets.length > 1) return new KubeStatus(500, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  const pdb = budgets[0]!;
  const b = budgetOf(store, pdb);
  if (!podHealthy(pod) && (specOf(pdb).unhealthyPodEvictionPolicy === 'AlwaysAllow' || b.healthy >= b.desired)) return undefined;
  if (b.allowed > 0) return undefined;
  return new KubeStatus(429, "Cannot evict pod as it would violate the pod's disruption budget.", 'TooManyRequests', {
    causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdb.metadata.name} needs ${b.desired} healthy pods and has ${b.healthy} currently` }],
  });
}
