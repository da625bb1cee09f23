// PATCH, resize and delete of a cluster (spec §3.2, §3.3, §5; the upgrade is upgrade.ts). Each checks
// what Magnum checks synchronously and weighs what it adds against the project's quotas (preflight.ts),
// then starts an operation (src/operations/begin.ts) — or answers the error of the transition table
// when the cluster's state forbids it, where Magnum accepted and silently dropped the request.
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterTemplateRow } from '../db/entities/cluster-template.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import { errors } from '../domain/errors.js';
import { applyPatch, BASE_INTERNAL, changedFields, type PatchOp } from '../domain/json-patch.js';
import { boundedMap, checkAtMost, HEALTH_REASON } from '../domain/limits.js';
import { beginOperation, started } from '../operations/begin.js';
import { parseBool } from '../api/plugins/coerce.js';
import { atLeast, type ApiVersion } from '../api/microversion.js';
import { allowed, enforce, type Rule } from '../domain/policy.js';
import type { Services } from '../api/services.js';
import type { Flavor } from './create.js';
import { assess, shortage, type Assessment } from '../preflight/assess.js';
import { zero } from '../preflight/footprint.js';
import { clusterSpecOf, groupPlans, preflight, type Caller } from '../preflight/preflight.js';
import type { ResizeBodyT } from '../api/routes/v1/clusters/schema.js';

const CLUSTER_INTERNAL = [
  ...BASE_INTERNAL,
  '/api_address',
  '/node_addresses',
  '/master_addresses',
  '/stack_id',
  '/ca_cert_ref',
  '/magnum_cert_ref',
  '/trust_id',
  '/trustee_user_name',
  '/trustee_password',
  '/trustee_user_id',
  '/etcd_ca_cert_ref',
  '/front_proxy_ca_cert_ref',
];
const PATCH_RULES = {
  cluster: { internal: new Set(CLUSTER_INTERNAL), nonRemovable: new Set(['/cluster_template_id']), dictPaths: new Set(['/labels', '/health_status_reason']) },
  bay: { internal: new Set(CLUSTER_INTERNAL), nonRemovable: new Set(['/baymodel_id']), dictPaths: new Set(['/labels']) },
};
const HEALTH_STATUSES = ['HEALTHY', 'UNHEALTHY', 'UNKNOWN'];

/** The attributes a patch works on: the detail view's writable-looking fields. */
function patchable(c: ClusterRow, groups: NodeGroupRow[], flavor: Flavor): Record<string, unknown> {
  const worker = defaultWorker(groups);
  const masters = groups.filter((g) => g.role === 'master').reduce((n, g) => n + g.node_count, 0);
  const doc: Record<string, unknown> = {
    name: c.name,
    node_count: worker?.node_count ?? 0,
    master_count: masters,
    docker_volume_size: c.docker_volume_size,
    labels: c.labels,
    master_flavor_id: c.master_flavor_id,
    flavor_id: c.flavor_id,
    discovery_url: c.discovery_url,
    status: c.status,
    status_reason: c.status_reason,
    coe_version: c.coe_version,
    container_version: c.container_version,
    fixed_network: c.fixed_network,
    fixed_subnet: c.fixed_subnet,
    floating_ip_enabled: c.floating_ip_enabled,
    master_lb_enabled: c.master_lb_enabled,
  };
  if (flavor === 'bay') return { ...doc, baymodel_id: c.cluster_template_id, bay_create_timeout: c.create_timeout };
  return {
    ...doc,
    cluster_template_id: c.cluster_template_id,
    keypair: c.keypair,
    create_timeout: c.create_timeout,
    health_status: c.health_status,
    health_status_reason: c.health_status_reason,
    merge_labels: false,
  };
}

export const defaultWorker = (groups: NodeGroupRow[]): NodeGroupRow | undefined =>
  groups.find((g) => g.is_default && g.role !== 'master') ?? groups.find((g) => g.role !== 'master');

/** PATCH /clusters/{id} and /bays/{id}: only node_count (and, for clusters, the health fields) may change. */
export async function updateCluster(
  s: Services,
  who: Caller,
  c: ClusterRow,
  ops: PatchOp[],
  version: ApiVersion,
  flavor: Flavor,
  rollback: boolean,
): Promise<ClusterRow> {
  // The policy is checked before the patch is even applied: a caller who may change nothing is
  // refused without the patch being evaluated. Which rule finally applies depends on what changes.
  const rules: Rule[] = flavor === 'bay' ? ['bay:update'] : ['cluster:update', 'cluster:update_health_status'];
  if (!rules.some((r) => allowed(who.ctx, r, c))) throw errors.policyDenied(rules[0]!);
  const groups = await s.clusters.nodegroups([c.uuid]);
  const before = patchable(c, groups, flavor);
  const after = applyPatch(before, ops, PATCH_RULES[flavor]);
  const changed = changedFields(before, after);
  const allowedFields = flavor === 'bay' ? ['node_count'] : ['node_count', 'health_status', 'health_status_reason'];
  const refused = changed.filter((f) => !allowedFields.includes(f));
  if (refused.length > 0) throw errors.clusterPropertiesImmutable(refused);
  const healthOnly = changed.length > 0 && !changed.includes('node_count');
  enforce(who.ctx, flavor === 'bay' ? 'bay:update' : healthOnly ? 'cluster:update_health_status' : 'cluster:update', c);
  if (changed.length === 0) return c;

  if (healthOnly) {
    const status = after.health_status;
    if (status !== null && !HEALTH_STATUSES.includes(String(status))) {
      throw errors.invalidInput('health_status', status, `Value should be one of: ${HEALTH_STATUSES.join(', ')}`);
    }
    const reason = after.health_status_reason;
    const health = {
      health_status: (status as string | null) ?? null,
      health_status_reason: reason === null || reason === undefined ? null : boundedMap('health_status_reason', reason, HEALTH_REASON),
      updated_at: new Date(),
    };
    await s.clusters.update(c.uuid, health);
    return { ...c, ...health };
  }

  const count = typeof after.node_count === 'string' && /^\d+$/.test(after.node_count) ? Number(after.node_count) : after.node_count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw errors.invalidInput('node_count', after.node_count, 'Value should be greater or equal to 0');
  }
  checkAtMost('node_count', count, s.config.limits.maxNodeCount);
  if (count === 0 && (flavor === 'bay' || !atLeast(version, 10))) throw errors.zeroNodesUnsupported();
  const worker = defaultWorker(groups);
  if (!worker) throw errors.notFound('Nodegroup', 'default-worker');
  return resizeGroup(s, c, { ng: worker, count, nodesToRemove: [], bill: await resizeBill(s, who, c, groups, worker, count) }, 'update', { rollback });
}

/** A resize checked and billed, not started. */
export interface ResizePlan {
  ng: NodeGroupRow;
  count: number;
  nodesToRemove: string[];
  bill: Assessment;
}

/** Every check of POST /clusters/{id}/actions/resize and its bill (the resize and its dry-run). */
export async function planResize(s: Services, who: Caller, c: ClusterRow, body: ResizeBodyT, version: ApiVersion): Promise<ResizePlan> {
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

/** POST /clusters/{id}/actions/resize. */
export async function resizeCluster(s: Services, who: Caller, c: ClusterRow, body: ResizeBodyT, version: ApiVersion): Promise<ClusterRow> {
  const plan = await planResize(s, who, c, body, version);
  return resizeGroup(s, c, plan, 'resize', {});
}

export function findGroup(groups: NodeGroupRow[], ident: string): NodeGroupRow | undefined {
  const byName = groups.filter((g) => g.name === ident);
  if (byName.length > 1) throw errors.ambiguousName('nodegroups', 'nodegroup');
  return groups.find((g) => g.uuid === ident.toLowerCase()) ?? byName[0] ?? groups.find((g) => String(g.id) === ident);
}

/** What the group's new size adds to the cluster (nothing when it shrinks). */
async function resizeBill(s: Services, who: Caller, c: ClusterRow, groups: NodeGroupRow[], ng: NodeGroupRow, count: number): Promise<Assessment> {
  // Shrinking adds nothing: the cloud is not asked.
  if (count <= ng.node_count) return assess(zero(), {});
  const t = await templateOf(s, c);
  const spec = await clusterSpecOf(s, who, c, t, groups);
  const before = groupPlans(c, t, groups);
  const after = before.map((g) => (g.name === ng.name ? { ...g, count } : g));
  return preflight(s, who, { template: t, cluster: c, spec, bill: { kind: 'change', before, after } });
}

async function resizeGroup(s: Services, c: ClusterRow, plan: ResizePlan, kind: 'update' | 'resize', extra: Record<string, unknown>): Promise<ClusterRow> {
  const short = shortage(plan.bill);
  if (short) throw short;
  const { ng, count, nodesToRemove } = plan;
  const begun = await beginOperation(s.outbox, c.uuid, {
    kind,
    params: { nodegroup: ng.uuid, node_count: count, previous_node_count: ng.node_count, nodes_to_remove: nodesToRemove, ...extra },
    change: (em) => s.nodegroups.updateByUuid(em, ng.uuid, { node_count: count, status: 'UPDATE_IN_PROGRESS', status_reason: null, updated_at: new Date() }),
    event: { reason: kind === 'resize' ? 'ResizeAccepted' : 'UpdateAccepted', message: `Node group ${ng.name}: ${ng.node_count} → ${count} node(s).` },
  });
  return started(begun, () => errors.notFound('Cluster', c.uuid)).cluster;
}

export async function templateOf(s: Services, c: ClusterRow): Promise<ClusterTemplateRow> {
  const t = await s.templates.repo.find(c.cluster_template_id, { all: true });
  if (!t || t === 'ambiguous') throw errors.notFound('ClusterTemplate', c.cluster_template_id);
  return t;
}

/** DELETE: allowed in any state; a second delete while one runs is the same delete (204, nothing new queued). */
export async function deleteCluster(s: Services, who: Caller, c: ClusterRow, flavor: Flavor): Promise<void> {
  enforce(who.ctx, flavor === 'bay' ? 'bay:delete' : 'cluster:delete', c);
  // Gone meanwhile, or the same delete already running: nothing more to do.
  await beginOperation(s.outbox, c.uuid, {
    kind: 'delete',
    change: (em, locked) => s.nodegroups.updateOfCluster(em, locked.uuid, { status: 'DELETE_IN_PROGRESS', updated_at: new Date() }),
    event: { reason: 'DeleteAccepted', message: 'Delete accepted; every resource of the cluster is removed, its credential last.' },
  });
}

/** `?rollback=` exists from 1.3 (below, it is an unknown argument). The query is not validated: any value arrives. */
export function rollbackArg(query: { rollback?: unknown }, version: ApiVersion): boolean {
  if (!('rollback' in query)) return false;
  if (!atLeast(version, 3)) throw errors.unknownArgument('rollback');
  const b = parseBool(query.rollback);
  if (b === undefined) throw errors.invalidInput('rollback', query.rollback, 'Invalid boolean value');
  return b;
}
