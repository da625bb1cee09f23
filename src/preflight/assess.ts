// The bill against the project's quotas: for each quota what the request needs (src/kube/bill.ts), what
// the project uses and its limit as the services report them, and whether it is short. The pre-flight
// of every operation and its dry-run assess the same way (preflight.ts); a shortage is one 403.
import { errors, type ApiError } from '../domain/errors.js';
import { PER_OBJECT, QUOTA_NAMES, QUOTAS, type QuotaName, type Usage } from './quotas.js';

/** What a quota leaves: `limit` −1 means unlimited; `used` what the project holds now. */
export interface Headroom {
  limit: number;
  used: number;
}

export type Headrooms = Partial<Record<QuotaName, Headroom>>;

export interface BillLine {
  quota: QuotaName;
  /** The service type that keeps the quota (container-infra for Magnum's clusters). */
  service: string;
  needed: number;
  /** null: the service does not report it (or is not in the catalog): not checked. */
  in_use: number | null;
  /** −1 unlimited; null unknown. */
  limit: number | null;
  short: boolean;
  /** A limit per object (a server group, a DNS zone) rather than a project total. */
  per?: 'server group' | 'zone';
}

export interface Assessment {
  /** False when the service was configured not to ask the cloud (CLOUD_RESOURCE_CHECKS off): no line is checked. */
  checked: boolean;
  lines: BillLine[];
}

const PER: Partial<Record<QuotaName, BillLine['per']>> = { server_group_members: 'server group', zone_recordsets: 'zone' };

/** One line per quota, in QUOTAS' order. */
export function assess(needs: Usage, headroom: Headrooms, checked = true): Assessment {
  const lines = QUOTA_NAMES.map((quota): BillLine => {
    const h = checked ? headroom[quota] : undefined;
    const needed = needs[quota];
    const short = h !== undefined && h.limit >= 0 && needed > 0 && h.used + needed > h.limit;
    const per = PER[quota];
    return { quota, service: QUOTAS[quota], needed, in_use: h?.used ?? null, limit: h?.limit ?? null, short, ...(per ? { per } : {}) };
  });
  return { checked, lines };
}

export const shortLines = (a: Assessment): BillLine[] => a.lines.filter((l) => l.short);

/**
 * The error the request gets for its shortage, or undefined when it fits: Magnum's own when only its
 * cluster quota is short, else one 403 naming every short quota with what is needed, in use and the limit.
 */
export function shortage(a: Assessment): ApiError | undefined {
  const short = shortLines(a);
  if (short.length === 0) return undefined;
  const clusters = short.find((l) => l.quota === 'clusters');
  if (clusters && short.length === 1) return errors.clusterQuotaExceeded(clusters.limit ?? 0);
  return errors.quotaShortage(short.map((l) => ({ quota: PER_OBJECT.has(l.quota) ? `${l.quota} (per ${l.per})` : l.quota, needed: l.needed, inUse: l.in_use ?? 0, limit: l.limit ?? 0 })));
}
