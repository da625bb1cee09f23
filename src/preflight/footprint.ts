// The bill of an operation, summed from the bills the worker's steps declare beside what they ensure and
// purge (src/preflight/quotas.ts StepBill): a cluster's footprint is the sum over the create graph's steps
// (workers/cluster/create.ts, core and feature steps alike), given to the API by the composition root. A
// create bills the footprint and the Magnum cluster; a resize or a node group create the footprint after
// less the one before; an upgrade or a CA rotation the peak of its roll.
import { addUsage, PER_OBJECT, QUOTA_NAMES, zero, type Billed, type GroupShape, type Usage } from './quotas.js';
import type { ClusterSpec } from '../cluster-spec/types.js';

/** Everything the cluster holds with these node groups (not the Magnum cluster itself): its steps' bills summed. */
export function footprint(steps: readonly Billed[], spec: ClusterSpec, groups: readonly GroupShape[]): Usage {
  const u = zero();
  for (const s of steps) if (s.bill) addUsage(u, s.bill({ spec, groups }));
  return u;
}

/** The create's bill: the Magnum cluster and everything it holds once made. */
export function createBill(steps: readonly Billed[], spec: ClusterSpec, groups: readonly GroupShape[]): Usage {
  return { ...footprint(steps, spec, groups), clusters: 1 };
}

/**
 * What a change of node groups adds (resize, node group create): the footprint after less the one before,
 * never below zero. Per object: the members of the largest group that grows (or is new), the records of
 * the zone when they grow.
 */
export function changeBill(steps: readonly Billed[], spec: ClusterSpec, before: readonly GroupShape[], after: readonly GroupShape[]): Usage {
  const a = footprint(steps, spec, before);
  const b = footprint(steps, spec, after);
  const out = zero();
  for (const k of QUOTA_NAMES) out[k] = PER_OBJECT.has(k) ? (b[k] > a[k] ? b[k] : 0) : Math.max(0, b[k] - a[k]);
  const was = new Map(before.map((g) => [g.name, g.count]));
  out.server_group_members = Math.max(0, ...after.filter((g) => g.count > (was.get(g.name) ?? -1)).map((g) => g.count));
  return out;
}

/** One step of a rolling replacement: `surge` new nodes of the group join before as many old ones go. */
export interface RollPhase {
  group: string;
  surge: number;
}

/**
 * The peak of a rolling replacement (upgrade, CA rotation): the phases run one after the other
 * (control planes first, one at a time; then each worker group by its batch), so each quota's peak is
 * the largest of the phases' surges over what the cluster holds.
 */
export function rollBill(steps: readonly Billed[], spec: ClusterSpec, groups: readonly GroupShape[], phases: readonly RollPhase[]): Usage {
  const out = zero();
  for (const p of phases) {
    const surged = groups.map((g) => (g.name === p.group ? { ...g, count: g.count + p.surge } : g));
    const step = changeBill(steps, spec, groups, surged);
    for (const k of QUOTA_NAMES) out[k] = Math.max(out[k], step[k]);
  }
  return out;
}

/** The phases of a roll: the control planes one at a time, then each rolled worker group by `batch` (at most its size). */
export function rollPhases(groups: readonly GroupShape[], rolled: readonly string[], batch: number): RollPhase[] {
  const phases: RollPhase[] = [];
  for (const g of groups) {
    if (!rolled.includes(g.name) || g.count === 0) continue;
    phases.push({ group: g.name, surge: g.role === 'master' ? 1 : Math.min(Math.max(1, batch), g.count) });
  }
  return phases.sort((a, b) => Number(groups.find((g) => g.name === b.group)?.role === 'master') - Number(groups.find((g) => g.name === a.group)?.role === 'master'));
}
