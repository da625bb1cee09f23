// Auto-healing (labels auto_healing_*; src/kube/modules/auto-healing.ts), run by the health check
// for each settled cluster that asks for it. A worker server is unhealthy when it is in ERROR or
// SHUTOFF, or ACTIVE without a Ready Node of its name; a worker group with fewer servers than its
// node_count has missing ones (deleted behind the service's back). The check remembers since when
// (cluster.unhealthy_since); a worker unhealthy for longer than the grace period is replaced by a
// `repair` operation (workers/cluster/repair.ts), written with its status in one transaction as
// the API writes any operation. Nothing is replaced when the API does not answer (the nodes cannot
// be judged), when more than maxUnhealthyPercent of the workers are unhealthy (the cause is not the
// nodes), or while another operation runs. Control planes are reported, never replaced here.
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../../db/entities/cluster.js';
import { ClusterRepo } from '../../db/repos/clusters.js';
import { nodeReady } from '../../kube/api-client.js';
import { META } from '../../steps/naming.js';
import { startRepair } from '../../clusters/repair.js';
import type { ClusterView } from '../../steps/cluster-view.js';

export interface HealOutcome {
  /** Worker server name → since when it has been unhealthy. */
  unhealthy: Record<string, string>;
  /** What auto-healing did or why not (for health_status_reason); undefined when it is off. */
  note?: string;
}

/** Judges the cluster's workers and queues a repair of those unhealthy for too long. */
export async function autoHeal(ds: DataSource, c: ClusterRow, view: ClusterView, now: Date): Promise<HealOutcome> {
  const spec = view.spec?.autoHealing;
  if (!spec?.enabled || !view.kube || !view.cloud) return { unhealthy: {} };
  const nodes = new Map((await view.nodes()).map((n) => [n.metadata.name, n]));
  const all = await view.servers();
  const role = (s: (typeof all)[number]) => ((s.metadata ?? {}) as Record<string, string>)[META.role];
  const group = (s: (typeof all)[number]) => ((s.metadata ?? {}) as Record<string, string>)[META.nodegroup];
  const servers = all.filter((s) => role(s) === 'worker');
  const sick = servers.filter((s) => {
    if (s.status === 'ERROR' || s.status === 'SHUTOFF') return true;
    if (s.status !== 'ACTIVE') return false; // booting, rebooting: not judged yet
    const n = nodes.get(s.name);
    return !n || !nodeReady(n);
  });
  // Servers lost behind the service's back: a worker group with fewer servers than its node_count.
  const groups = (await new ClusterRepo(ds).nodegroups([c.uuid])).filter((g) => g.role !== 'master');
  const missing = groups.flatMap((g) => Array.from({ length: Math.max(0, g.node_count - servers.filter((s) => group(s) === g.uuid).length) }, (_, i) => `missing:${g.name}:${i}`));
  const names = new Set(all.map((s) => s.name));
  const staleNodes = [...nodes.keys()].filter((n) => !names.has(n));
  const keys = [...sick.map((s) => s.name), ...missing];
  const unhealthy = Object.fromEntries(keys.map((k) => [k, c.unhealthy_since[k] ?? now.toISOString()]));
  const isDue = (k: string) => now.getTime() - Date.parse(unhealthy[k]!) >= spec.unhealthySeconds * 1000;
  const due = sick.filter((s) => isDue(s.name));
  const dueMissing = missing.filter(isDue);
  const expected = groups.reduce((a, g) => a + g.node_count, 0);
  if (due.length === 0 && dueMissing.length === 0) {
    return { unhealthy, ...(keys.length > 0 ? { note: `${keys.length} unhealthy or missing worker(s) within the ${spec.unhealthySeconds} s grace period` } : {}) };
  }
  if (keys.length * 100 > spec.maxUnhealthyPercent * Math.max(expected, servers.length)) {
    return { unhealthy, note: `paused: ${keys.length} of ${Math.max(expected, servers.length)} workers unhealthy or missing (more than ${spec.maxUnhealthyPercent}%)` };
  }
  const what = [...due.map((s) => s.name).sort(), ...(dueMissing.length > 0 ? [`${dueMissing.length} missing`] : [])];
  const blocked = await startRepair({ outbox: { db: ds } }, c.uuid, {
    servers: due.map((s) => s.id),
    names: what,
    staleNodes,
    message: `Replacing unhealthy worker(s): ${what.join(', ')} (for more than ${spec.unhealthySeconds} s).`,
  }, now);
  return { unhealthy, note: blocked ? `not replacing ${what.join(', ')}: ${blocked}` : `replacing ${what.join(', ')}` };
}
