// An accepted operation holds what its bill takes of the project's cloud quotas until what it makes exists
// (issue 26 item 5): in the transaction that begins it, under the project's hold lock, its bill is weighed again
// with every live hold counted, and refused with the same 403 when it no longer fits; else its hold is written
// beside its operation. What the operation makes, as its cluster's ledger records it, counts in the services'
// usage from then on and leaves the hold (a server its instance, and its share of the cores and RAM); the rest
// lapses when the operation ends, is deleted with its cluster, or outlives twice the cluster's create_timeout
// (an operation lost).
import type { EntityManager } from 'typeorm';
import { insertHold, liveHolds, lockProjectHolds, type Amounts, type LiveHold } from '../db/repos/quota-holds.js';
import type { QuotaName } from './quotas.js';
import { holdOf, shortage, withHeld, type Assessment } from './assess.js';

/** How long a hold may outlive its acceptance: twice the cluster's create_timeout (minutes), an hour at least. */
export const holdLifetimeMs = (createTimeoutMinutes: number | null): number => 2 * Math.max(createTimeoutMinutes ?? 60, 60) * 60_000;

export interface HoldRequest {
  projectId: string;
  clusterId: string;
  operationId: string;
  /** The operation's bill as its pre-flight assessed it. */
  bill: Assessment;
  createTimeoutMinutes: number | null;
  now?: Date;
}

/** Weighs the bill again with every live hold under the project's lock; throws its shortage, or writes its hold. */
export async function holdBill(em: EntityManager, r: HoldRequest): Promise<void> {
  const amounts = holdOf(r.bill);
  if (Object.keys(amounts).length === 0) return;
  const now = r.now ?? new Date();
  await lockProjectHolds(em, r.projectId);
  const short = shortage(withHeld(r.bill, heldNow(await liveHolds(em, r.projectId, now))));
  if (short) throw short;
  await insertHold(em, { operationId: r.operationId, clusterId: r.clusterId, projectId: r.projectId, amounts, expiresAt: new Date(now.getTime() + holdLifetimeMs(r.createTimeoutMinutes)) }, now);
}

/**
 * Which ledger type releases a quota's hold as it is made: one for one (`count`), or in proportion to another
 * quota's share made (`share`: a server takes its share of the cores and RAM, a volume of the gigabytes). What
 * no ledger row records (a load balancer's VIP port) stays held until the operation ends.
 */
const RELEASE: Partial<Record<QuotaName, { count: string } | { share: QuotaName }>> = {
  instances: { count: 'server' },
  cores: { share: 'instances' },
  ram: { share: 'instances' },
  server_groups: { count: 'server_group' },
  volumes: { count: 'volume' },
  gigabytes: { share: 'volumes' },
  network: { count: 'network' },
  subnet: { count: 'subnet' },
  router: { count: 'router' },
  port: { count: 'port' },
  floatingip: { count: 'floatingip' },
  security_group: { count: 'security_group' },
  security_group_rule: { share: 'security_group' },
  load_balancer: { count: 'loadbalancer' },
  health_monitor: { count: 'healthmonitor' },
  listener: { share: 'health_monitor' },
  pool: { share: 'health_monitor' },
  member: { share: 'health_monitor' },
  secrets: { count: 'secret' },
};

/** What one hold still takes: its amounts less what its operation has made. */
export function stillHeld(h: LiveHold): Amounts {
  const made = (q: QuotaName): number => {
    const r = RELEASE[q];
    if (!r) return 0;
    if ('count' in r) return Math.min(h.amounts[q] ?? 0, h.made[r.count] ?? 0);
    const base = h.amounts[r.share] ?? 0;
    return base === 0 ? 0 : (h.amounts[q] ?? 0) * Math.min(1, made(r.share) / base);
  };
  const out: Amounts = {};
  for (const [q, amount] of Object.entries(h.amounts)) out[q] = Math.max(0, Math.ceil(amount - made(q as QuotaName)));
  return out;
}

/** The sum of what the live holds still take. */
export function heldNow(holds: readonly LiveHold[]): Amounts {
  const sum: Amounts = {};
  for (const h of holds) for (const [q, v] of Object.entries(stillHeld(h))) sum[q] = (sum[q] ?? 0) + v;
  return sum;
}
