// A resize of a node group (POST /clusters/{id}/actions/resize, a cluster PATCH of node_count, the autoscaler):
// planResize checks it in Magnum's order and bills what the new size adds (what the dry-run shows); startResize
// begins it (its shortage refused); startServiceResize begins the one the service decides itself, through the
// same beginOperation, when the transition table lets the service act.
import type { EntityManager } from 'typeorm';
import type { Config } from '../config.js';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import type { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { errors } from '../domain/errors.js';
import { checkAtMost } from '../domain/limits.js';
import { atLeast, type ApiVersion } from '../domain/microversion.js';
import { enforce } from '../domain/policy.js';
import { beginOperation, started, type OperationDeps } from '../operations/begin.js';
import { assess, shortage, type Assessment } from '../preflight/assess.js';
import { groupPlans, type Preflight } from '../preflight/preflight.js';
import { zero } from '../preflight/quotas.js';
import { defaultWorker, findGroup, templateOf, type Caller, type TemplateFinder } from './lookup.js';
import { serviceOutcome } from './service-operation.js';

export interface ResizeRequest {
  node_count: number;
  nodes_to_remove?: string[] | null;
  nodegroup?: string | null;
}

export interface PlanResizeDeps {
  config: { limits: Pick<Config['limits'], 'maxNodeCount'> };
  clusters: Pick<ClusterRepo, 'nodegroups'>;
  templates: { repo: TemplateFinder };
  preflight: Pick<Preflight, 'assess' | 'clusterSpecOf'>;
}

export interface ResizeDeps {
  nodegroups: Pick<NodeGroupRepo, 'updateByUuid'>;
  outbox: OperationDeps;
}

/** A resize checked and billed, not started. */
export interface ResizePlan {
  ng: NodeGroupRow;
  count: number;
  nodesToRemove: string[];
  bill: Assessment;
}

/** Every check of POST /clusters/{id}/actions/resize and its bill (the resize and its dry-run). */
export async function planResize(s: PlanResizeDeps, who: Caller, c: ClusterRow, body: ResizeRequest, version: ApiVersion): Promise<ResizePlan> {
  checkAtMost('node_count', body.node_count, s.config.limits.maxNodeCount);
  if (body.node_count === 0 && !atLeast(version, 10)) throw errors.zeroNodesUnsupported();
  enforce(who.ctx, 'cluster:resize', c);
  const groups = await s.clusters.nodegroups([c.uuid]);
  const ident = body.nodegroup ?? undefined;
  const ng = ident === undefined ? defaultWorker(groups) : findGroup(groups, ident);
  if (!ng) throw errors.notFound('Nodegroup', ident ?? 'default-worker');
  if (ng.role === 'master') throw errors.resizeMaster();
  if (body.node_count < ng.min_node_count || (ng.max_node_count !== null && body.node_count > ng.max_node_count)) {
    throw errors.resizeOutOfRange(ng.name, ng.min_node_count, ng.max_node_count);
  }
  return { ng, count: body.node_count, nodesToRemove: body.nodes_to_remove ?? [], bill: await resizeBill(s, who, c, groups, ng, body.node_count) };
}

/** What the group's new size adds to the cluster (nothing when it shrinks: the cloud is not asked). */
export async function resizeBill(s: Pick<PlanResizeDeps, 'templates' | 'preflight'>, who: Caller, c: ClusterRow, groups: NodeGroupRow[], ng: NodeGroupRow, count: number): Promise<Assessment> {
  if (count <= ng.node_count) return assess(zero(), {});
  const t = await templateOf(s.templates.repo, c);
  const spec = await s.preflight.clusterSpecOf(who, c, t, groups);
  const before = groupPlans(c, t, groups);
  const after = before.map((g) => (g.name === ng.name ? { ...g, count } : g));
  return s.preflight.assess(who, { template: t, cluster: c, spec, bill: { kind: 'change', before, after } });
}

const resizeParams = (ng: NodeGroupRow, count: number, nodesToRemove: string[]) => ({ nodegroup: ng.uuid, node_count: count, previous_node_count: ng.node_count, nodes_to_remove: nodesToRemove });
const resizeChange = (nodegroups: ResizeDeps['nodegroups'], ng: NodeGroupRow, count: number) => (em: EntityManager) =>
  nodegroups.updateByUuid(em, ng.uuid, { node_count: count, status: 'UPDATE_IN_PROGRESS', status_reason: null, updated_at: new Date() });

/** Begins a planned resize (or a PATCH's, `kind` update); its shortage refused. The cluster as it stands after. */
export async function startResize(s: ResizeDeps, c: ClusterRow, plan: ResizePlan, kind: 'update' | 'resize' = 'resize', extra: Record<string, unknown> = {}): Promise<ClusterRow> {
  const short = shortage(plan.bill);
  if (short) throw short;
  const { ng, count, nodesToRemove } = plan;
  const begun = await beginOperation(s.outbox, c.uuid, {
    kind,
    params: { ...resizeParams(ng, count, nodesToRemove), ...extra },
    change: resizeChange(s.nodegroups, ng, count),
    event: { reason: kind === 'resize' ? 'ResizeAccepted' : 'UpdateAccepted', message: `Node group ${ng.name}: ${ng.node_count} → ${count} node(s).` },
  });
  return started(begun, () => errors.notFound('Cluster', c.uuid)).cluster;
}

/**
 * The autoscaler's resize: begun only where the transition table lets the service act (a settled cluster
 * with nothing else running), with a warning event saying why. Undefined when queued, else why not.
 */
export async function startServiceResize(s: ResizeDeps, clusterId: string, ng: NodeGroupRow, count: number, nodesToRemove: string[], why: { reason: string; message: string }, now = new Date()): Promise<string | undefined> {
  const begun = await beginOperation(s.outbox, clusterId, {
    kind: 'resize',
    origin: 'service',
    params: resizeParams(ng, count, nodesToRemove),
    change: resizeChange(s.nodegroups, ng, count),
    event: { ...why, severity: 'warning' },
    now,
  });
  return serviceOutcome(begun);
}
