// PATCH /clusters/{id} and /bays/{id} (spec §3.2, §5): a JSON patch of which only node_count (a resize of the
// default worker group, billed and begun as one) and, for clusters, the health fields may change; Magnum's
// errors for anything else. The health fields are written at once: no operation.
import type { Config } from '../config.js';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import { errors } from '../domain/errors.js';
import { applyPatch, BASE_INTERNAL, changedFields, type PatchOp } from '../domain/json-patch.js';
import { boundedMap, checkAtMost, HEALTH_REASON } from '../domain/limits.js';
import { atLeast, type ApiVersion } from '../domain/microversion.js';
import { allowed, enforce, type Rule } from '../domain/policy.js';
import type { Flavor } from './create.js';
import { defaultWorker, type Caller } from './lookup.js';
import { resizeBill, startResize, type PlanResizeDeps, type ResizeDeps } from './resize.js';

export interface UpdateDeps extends PlanResizeDeps, ResizeDeps {
  config: { limits: Pick<Config['limits'], 'maxNodeCount'> };
  clusters: Pick<ClusterRepo, 'nodegroups' | 'update'>;
}

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

/** PATCH /clusters/{id} and /bays/{id}: only node_count (and, for clusters, the health fields) may change. */
export async function startUpdate(
  s: UpdateDeps,
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
  return startResize(s, c, { ng: worker, count, nodesToRemove: [], bill: await resizeBill(s, who, c, groups, worker, count) }, 'update', { rollback });
}
