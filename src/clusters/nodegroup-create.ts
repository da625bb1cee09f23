// POST /v1/clusters/{cluster}/nodegroups (spec §3.4), in Magnum's order of checks: planNodegroupCreate checks
// and bills what the group adds (its nodes, their ports, floating IPs and volumes, its server group: the dry-run),
// startNodegroupCreate begins it: the group's row, the operation (outbox), the cluster's status and an event in one
// transaction, the checks made again under the cluster's lock.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { zonesNamed } from '../cluster-spec/zones.js';
import type { Config } from '../config.js';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { NodeGroupRow, NodeTaint } from '../db/entities/nodegroup.js';
import type { ClusterTemplateRepo } from '../db/repos/cluster-templates.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import type { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { errors } from '../domain/errors.js';
import { labelStrings } from '../domain/labels.js';
import { checkAtMost } from '../domain/limits.js';
import { atLeast, NODE_LABELS_VERSION, type ApiVersion } from '../domain/microversion.js';
import { enforce } from '../domain/policy.js';
import { beginOperation, started, type OperationDeps } from '../operations/begin.js';
import { shortage, type Assessment } from '../preflight/assess.js';
import { groupPlan, groupPlans, type Preflight } from '../preflight/preflight.js';
import { findCluster, ownScope, templateOf, type Caller } from './lookup.js';
import { checkCounts, checkNodeLabels, checkNodeTaints, type Counts } from './nodegroup-rules.js';

/** A node group request's caller: its version decides what a body may hold (node labels and taints from 1.14). */
export interface NodegroupCaller extends Caller {
  version: ApiVersion;
}

/** What a node group create reads of its request. */
export interface NodegroupCreateRequest {
  name?: string | null;
  docker_volume_size?: number | null;
  labels?: Record<string, unknown> | null;
  merge_labels?: boolean | null;
  flavor_id?: string | null;
  image_id?: string | null;
  node_count?: number | null;
  role?: string | null;
  min_node_count?: number | null;
  max_node_count?: number | null;
  node_labels?: Record<string, string> | null;
  node_taints?: { key: string; value?: string | null; effect: string }[] | null;
}

export interface PlanNodegroupCreateDeps {
  config: { limits: Pick<Config['limits'], 'maxNodeCount'> };
  clusters: Pick<ClusterRepo, 'find' | 'nodegroups'>;
  nodegroups: Pick<NodeGroupRepo, 'nameTaken'>;
  templates: { repo: Pick<ClusterTemplateRepo, 'find'> };
  preflight: Pick<Preflight, 'assess' | 'clusterSpecOf' | 'checkZones'>;
  outbox: OperationDeps;
}

export interface NodegroupCreateDeps {
  nodegroups: Pick<NodeGroupRepo, 'nameTaken' | 'insert'>;
  templates: { repo: Pick<ClusterTemplateRepo, 'byUuid'> };
  outbox: OperationDeps;
}

export interface Written {
  ng: NodeGroupRow;
  cluster: ClusterRow;
}

type NewGroup = Pick<NodeGroupRow, 'name' | 'role' | 'node_count' | 'flavor_id' | 'docker_volume_size'>;

/** What a new node group adds: its nodes, their ports, floating IPs and volumes, and its server group. */
async function newGroupBill(deps: PlanNodegroupCreateDeps, who: Caller, c: ClusterRow, group: NewGroup): Promise<Assessment> {
  const t = await templateOf(deps.templates.repo, c);
  const groups = await deps.clusters.nodegroups([c.uuid]);
  const spec = await deps.preflight.clusterSpecOf(who, c, t, groups);
  const before = groupPlans(c, t, groups);
  return deps.preflight.assess(who, { template: t, cluster: c, spec, bill: { kind: 'change', before, after: [...before, groupPlan(c, t, group)] } });
}

/** Labels of a new group: the cluster's when none are given, merged over them on request, else the given ones. */
function groupLabels(cluster: ClusterRow, body: NodegroupCreateRequest): Record<string, string> {
  if (body.labels === undefined || body.labels === null) return { ...cluster.labels };
  const given = labelStrings(body.labels);
  return body.merge_labels === true ? { ...cluster.labels, ...given } : given;
}

/** The checks of a create against its cluster (Magnum's, in its order): before the bill, and again under the lock. */
async function createChecks(deps: Pick<PlanNodegroupCreateDeps, 'nodegroups' | 'outbox'>, em: EntityManager | undefined, cluster: ClusterRow, name: string, counts: Counts, role: string): Promise<void> {
  if (!cluster.api_address) throw errors.clusterApiAddressUnavailable();
  if (await deps.nodegroups.nameTaken(em ?? deps.outbox.db.manager, cluster.uuid, name)) throw errors.nodegroupExists(name, cluster.name);
  checkCounts(name, counts);
  if (role === 'master') throw errors.createMasterNodegroup();
}

/** A node group create checked and billed, not written (the create and its dry-run). */
export interface NodegroupCreatePlan {
  cluster: ClusterRow;
  name: string;
  counts: Counts;
  role: string;
  nodeLabels: Record<string, string> | null;
  nodeTaints: NodeTaint[] | null;
  bill: Assessment;
}

export async function planNodegroupCreate(deps: PlanNodegroupCreateDeps, who: NodegroupCaller, clusterIdent: string, body: NodegroupCreateRequest): Promise<NodegroupCreatePlan> {
  const name = body.name;
  if (name === undefined || name === null) throw errors.invalidInput('name', 'None', 'Mandatory field missing.');
  for (const f of ['node_count', 'min_node_count', 'max_node_count'] as const) checkAtMost(f, body[f], deps.config.limits.maxNodeCount);
  const late = atLeast(who.version, NODE_LABELS_VERSION);
  const nodeLabels = late ? (body.node_labels ?? null) : null;
  const nodeTaints = late ? ((body.node_taints ?? null) as NodeTaint[] | null) : null;
  if (nodeLabels) checkNodeLabels(nodeLabels);
  if (nodeTaints) checkNodeTaints(nodeTaints);
  enforce(who.ctx, 'nodegroup:create');
  const cluster = await findCluster(deps.clusters, clusterIdent, ownScope(who.ctx));
  const counts = { node_count: body.node_count ?? 1, min_node_count: body.min_node_count ?? 0, max_node_count: body.max_node_count ?? null };
  const role = body.role ?? 'worker';
  // The group's own zone, and the zones it inherits (which may have gone since the cluster was made).
  const zones = zonesNamed(groupLabels(cluster, body));
  await deps.preflight.checkZones(who, zones);
  await createChecks(deps, undefined, cluster, name, counts, role);
  const bill = await newGroupBill(deps, who, cluster, { name, role, node_count: counts.node_count, flavor_id: body.flavor_id ?? cluster.flavor_id, docker_volume_size: body.docker_volume_size ?? null });
  return { cluster, name, counts, role, nodeLabels, nodeTaints, bill };
}

/** Begins a planned node group create (its shortage refused; the checks again under the cluster's lock). */
export async function startNodegroupCreate(deps: NodegroupCreateDeps, plan: NodegroupCreatePlan, body: NodegroupCreateRequest): Promise<Written> {
  const { cluster: found, name, counts, role, nodeLabels, nodeTaints, bill } = plan;
  const short = shortage(bill);
  if (short) throw short;
  const begun = await beginOperation(deps.outbox, found.uuid, {
    kind: 'nodegroup_create',
    check: (em, cluster) => createChecks(deps, em, cluster, name, counts, role),
    change: async (em, cluster) => {
      const template = body.image_id ? null : await deps.templates.repo.byUuid(cluster.cluster_template_id, em);
      const inserted = await deps.nodegroups.insert(em, {
        uuid: randomUUID(),
        name,
        cluster_id: cluster.uuid,
        project_id: cluster.project_id,
        docker_volume_size: body.docker_volume_size ?? null,
        labels: groupLabels(cluster, body),
        flavor_id: body.flavor_id ?? cluster.flavor_id,
        image_id: body.image_id ?? template?.image_id ?? null,
        node_addresses: [],
        ...counts,
        role,
        is_default: false,
        stack_id: null,
        status: 'CREATE_IN_PROGRESS',
        status_reason: null,
        version: null,
        node_labels: nodeLabels,
        node_taints: nodeTaints,
        created_at: new Date(),
        updated_at: null,
      });
      if (inserted === 'duplicate-name') throw errors.nodegroupExists(name, cluster.name);
      return inserted;
    },
    params: (ng) => ({ nodegroup: ng.uuid }),
    event: (ng) => ({ reason: 'NodeGroupCreateAccepted', message: `Create of node group ${ng.name} with ${ng.node_count} node(s) accepted.` }),
  });
  const { value: ng, cluster } = started(begun, () => errors.notFound('Cluster', found.uuid));
  return { ng, cluster };
}
