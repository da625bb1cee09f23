// The service-side autoscaler (labels auto_scaling_enabled, min_node_count, max_node_count; modules/auto-scaling.ts),
// run by the health pass for each settled cluster that asks for it, over the worker groups that have a
// max_node_count. Up: pods the scheduler has reported Unschedulable for 10 s or more get nodes, enough for their
// CPU and memory requests on a node of the group (at least one), in the default worker group first, within its
// max. Down: a Ready worker that has run nothing but DaemonSet and static pods for the unneeded time is removed by
// a resize naming it, one per pass, never below min_node_count; workloads are never evicted for it. Since when a
// node has been idle is kept in this process: a restarted worker starts counting again, which only delays.
import type { DataSource, EntityManager } from 'typeorm';
import type { ClusterRow } from '../../db/entities/cluster.js';
import type { NodeGroupRow } from '../../db/entities/nodegroup.js';
import { ClusterRepo } from '../../db/repos/clusters.js';
import { NodeGroupRepo } from '../../db/repos/nodegroups.js';
import { nodeReady, type KubeNode, type KubePod } from '../../kube/api-client.js';
import type { ClusterView } from '../../steps/cluster-view.js';
import { META } from '../../steps/naming.js';
import { startServiceResize } from '../../clusters/resize.js';

/** How long a pod must have been Unschedulable before nodes are added for it (scheduler retries settle first). */
export const SCALE_UP_DELAY_MS = 10_000;
/** Cluster uuid → worker server name → since when it has been idle (epoch ms). */
const idleSince = new Map<string, Map<string, number>>();

export interface ScaleOutcome {
  /** What the autoscaler did or why not (for health_status_reason); undefined when it is off. */
  note?: string;
}

/** Kubernetes quantities: CPU in millicores, memory in bytes. */
export function quantity(q: string | undefined, kind: 'cpu' | 'memory'): number {
  if (!q) return 0;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q.trim());
  if (!m) return 0;
  const n = Number(m[1]);
  const unit = m[2]!;
  if (kind === 'cpu') return unit === 'm' ? n : unit === '' ? n * 1000 : 0;
  const bin: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
  const dec: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return n * (bin[unit] ?? dec[unit] ?? 0);
}

const requests = (p: KubePod, kind: 'cpu' | 'memory') => (p.spec?.containers ?? []).reduce((a, c) => a + quantity(c.resources?.requests?.[kind], kind), 0);

/** Pending, not bound, reported Unschedulable for SCALE_UP_DELAY_MS or more. */
export function unschedulable(p: KubePod, now: number): boolean {
  if (p.status?.phase !== 'Pending' || p.spec?.nodeName) return false;
  const c = p.status.conditions?.find((x) => x.type === 'PodScheduled');
  if (c?.status !== 'False' || c.reason !== 'Unschedulable') return false;
  return !c.lastTransitionTime || now - Date.parse(c.lastTransitionTime) >= SCALE_UP_DELAY_MS;
}

/** DaemonSet and static (mirror) pods go where nodes go; finished pods hold nothing. */
function movable(p: KubePod): boolean {
  if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') return false;
  if ((p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet')) return false;
  return !p.metadata.annotations?.['kubernetes.io/config.mirror'];
}

/** Nodes of the group's size that the pods' requests need (at least one). */
export function nodesNeeded(pods: KubePod[], node: KubeNode | undefined): number {
  const cpu = quantity(node?.status?.allocatable?.cpu, 'cpu');
  const mem = quantity(node?.status?.allocatable?.memory, 'memory');
  const byCpu = cpu > 0 ? Math.ceil(pods.reduce((a, p) => a + requests(p, 'cpu'), 0) / cpu) : 1;
  const byMem = mem > 0 ? Math.ceil(pods.reduce((a, p) => a + requests(p, 'memory'), 0) / mem) : 1;
  return Math.max(1, byCpu, byMem);
}

/** The resize's dependencies on the worker's database. */
const deps = (ds: DataSource) => ({ nodegroups: new NodeGroupRepo(ds), outbox: { db: ds } });

export async function autoScale(ds: DataSource, c: ClusterRow, view: ClusterView, now: Date): Promise<ScaleOutcome> {
  const spec = view.spec?.autoScaling;
  const { kube, cloud } = view;
  if (!spec?.enabled) {
    idleSince.delete(c.uuid);
    return {};
  }
  if (!kube || !cloud) return { note: 'not run: no cluster API' };
  const groups = (await new ClusterRepo(ds).nodegroups([c.uuid]))
    .filter((g) => g.role !== 'master' && g.max_node_count !== null)
    .sort((a, b) => Number(b.is_default) - Number(a.is_default) || a.name.localeCompare(b.name));
  if (groups.length === 0) return { note: 'no worker group has a max_node_count' };
  const t = now.getTime();
  const pods = await kube.listPods();
  const nodes = new Map((await view.nodes()).map((n) => [n.metadata.name, n]));
  const servers = (await view.servers()).filter((s) => s.status === 'ACTIVE');
  const meta = (s: (typeof servers)[number]) => (s.metadata ?? {}) as Record<string, string>;
  const membersOf = (g: NodeGroupRow) => servers.filter((s) => meta(s)[META.role] === 'worker' && meta(s)[META.nodegroup] === g.uuid);

  const waiting = pods.filter((p) => unschedulable(p, t));
  if (waiting.length > 0) {
    idleSince.delete(c.uuid);
    const g = groups.find((x) => x.node_count < x.max_node_count!);
    if (!g) return { note: `${waiting.length} pod(s) unschedulable; every autoscaled group is at its max_node_count` };
    const sample = membersOf(g).map((s) => nodes.get(s.name)).find((n) => n !== undefined);
    const add = Math.min(g.max_node_count! - g.node_count, nodesNeeded(waiting, sample));
    const blocked = await startServiceResize(deps(ds), c.uuid, g, g.node_count + add, [], {
      reason: 'AutoScaling',
      message: `${waiting.length} pod(s) cannot be scheduled: node group ${g.name} ${g.node_count} → ${g.node_count + add} (max ${g.max_node_count}).`,
    }, now);
    return { note: blocked ? `not scaling ${g.name} up: ${blocked}` : `scaling ${g.name} up to ${g.node_count + add} for ${waiting.length} unschedulable pod(s)` };
  }

  const busy = new Set(pods.filter(movable).map((p) => p.spec?.nodeName).filter((n): n is string => !!n));
  const before = idleSince.get(c.uuid) ?? new Map<string, number>();
  const idle = new Map<string, number>();
  for (const g of groups) {
    for (const s of membersOf(g)) {
      const n = nodes.get(s.name);
      if (n && nodeReady(n) && !n.spec?.unschedulable && !busy.has(s.name)) idle.set(s.name, before.get(s.name) ?? t);
    }
  }
  idleSince.set(c.uuid, idle);
  for (const g of groups) {
    if (g.node_count <= g.min_node_count) continue;
    const due = membersOf(g)
      .filter((s) => idle.has(s.name) && t - idle.get(s.name)! >= spec.scaleDownUnneededSeconds * 1000)
      .sort((a, b) => idle.get(a.name)! - idle.get(b.name)! || a.name.localeCompare(b.name))[0];
    if (!due) continue;
    const blocked = await startServiceResize(deps(ds), c.uuid, g, g.node_count - 1, [due.id], {
      reason: 'AutoScaling',
      message: `Node ${due.name} has run only DaemonSet pods for ${spec.scaleDownUnneededSeconds} s or more: node group ${g.name} ${g.node_count} → ${g.node_count - 1} (min ${g.min_node_count}).`,
    }, now);
    if (!blocked) idle.delete(due.name);
    return { note: blocked ? `not removing idle ${due.name}: ${blocked}` : `removing idle node ${due.name} from ${g.name}` };
  }
  return idle.size > 0 ? { note: `${idle.size} idle worker(s) within the ${spec.scaleDownUnneededSeconds} s unneeded time or at min_node_count` } : {};
}
