// Create, update and delete of node groups, in Magnum's order of checks (spec §3.4, §5). Each
// write starts its operation through beginOperation: the group's row, the cluster's operation (the
// outbox), the cluster's status and an event in one transaction; the relay is woken after the commit.
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import type { EntityManager } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { NodeGroupRow, NodeTaint } from '../db/entities/nodegroup.js';
import type { ClusterTemplateRepo } from '../db/repos/cluster-templates.js';
import type { ClusterRepo, Scope } from '../db/repos/clusters.js';
import type { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { errors } from '../domain/errors.js';
import { applyPatch, BASE_INTERNAL, type PatchOp, type PatchRules } from '../domain/json-patch.js';
import { labelStrings } from '../domain/labels.js';
import { checkAtMost } from '../domain/limits.js';
import { zonesNamed } from '../cluster-spec/zones.js';
import type { CloudCaller } from '../openstack/caller.js';
import type { AuthContext } from '../keystone/context.js';
import { beginOperation, started, UNCHANGED, type OperationDeps } from '../operations/begin.js';
import { atLeast, type ApiVersion } from '../api/microversion.js';
import { coerceScalars } from '../api/plugins/coerce.js';
import { validationError } from '../api/plugins/envelope.js';
import { enforce } from '../domain/policy.js';
import { NInt, NODE_COUNT_RANGE } from '../api/schemas/common.js';
import { checkCounts, checkNodegroupUpdatable, checkNodeLabels, checkNodeTaints } from './nodegroup-rules.js';
import { NODE_LABELS_VERSION, type NodeGroupCreateT } from '../api/routes/v1/nodegroups/schema.js';
import { shortage, type Assessment } from '../preflight/assess.js';
import type { NewGroup } from './node-bills.js';

export interface NodeGroupDeps {
  clusters: ClusterRepo;
  nodegroups: NodeGroupRepo;
  templates: ClusterTemplateRepo;
  outbox: OperationDeps;
  /** The zones a group's labels name are the cloud's (Nova's); absent when cloud checks are off. */
  checkZones?: (who: CloudCaller, named: { label: string; zone: string }[]) => Promise<void>;
  /** What a new group adds against the project's quotas (the clusters' pre-flight, clusters/node-bills.ts). */
  bill: (who: Caller, cluster: ClusterRow, group: NewGroup) => Promise<Assessment>;
  /** MAX_NODE_COUNT: the most nodes (and min/max bounds) a group may have. */
  maxNodeCount: number;
}

export interface Caller {
  ctx: AuthContext;
  version: ApiVersion;
  /** The caller's token, for the cloud checks made as them. */
  token: string;
}

/** Reads: admins see every project (nodegroup:get_*_all_projects); everyone else their own. */
export const readScope = (ctx: AuthContext): Scope => (ctx.isAdmin ? { all: true } : { all: false, projectId: ctx.projectId });
/** Writes: Magnum has no all-projects rule for node group writes, so admins too act in their own project. */
export const writeScope = (ctx: AuthContext): Scope => ({ all: false, projectId: ctx.projectId });

export async function findCluster(deps: NodeGroupDeps, ident: string, scope: Scope): Promise<ClusterRow> {
  const found = await deps.clusters.find(ident, scope);
  if (found === 'ambiguous') throw errors.ambiguousName('clusters', 'cluster');
  if (!found) throw errors.notFound('Cluster', ident);
  return found;
}

export async function findNodegroup(
  deps: NodeGroupDeps,
  clusterUuid: string,
  ident: string,
  scope: Scope,
  em?: EntityManager,
  lock = false,
): Promise<NodeGroupRow> {
  const found = await deps.nodegroups.find(clusterUuid, ident, scope, em, lock);
  if (found === 'ambiguous') throw errors.ambiguousName('nodegroups', 'nodegroup');
  if (!found) throw errors.notFound('Nodegroup', ident);
  return found;
}

export interface Written {
  ng: NodeGroupRow;
  cluster: ClusterRow;
}

/** Labels of a new group: the cluster's when none are given, merged over them on request, else the given ones. */
function groupLabels(cluster: ClusterRow, body: NodeGroupCreateT): Record<string, string> {
  if (body.labels === undefined || body.labels === null) return { ...cluster.labels };
  const given = labelStrings(body.labels);
  return body.merge_labels === true ? { ...cluster.labels, ...given } : given;
}

/** The checks of a create against its cluster (Magnum's, in its order): before the bill, and again under the lock. */
async function createChecks(deps: NodeGroupDeps, em: EntityManager | undefined, cluster: ClusterRow, name: string, counts: Counts, role: string): Promise<void> {
  if (!cluster.api_address) throw errors.clusterApiAddressUnavailable();
  if (await deps.nodegroups.nameTaken(em ?? deps.outbox.db.manager, cluster.uuid, name)) throw errors.nodegroupExists(name, cluster.name);
  checkCounts(name, counts);
  if (role === 'master') throw errors.createMasterNodegroup();
}

type Counts = { node_count: number; min_node_count: number; max_node_count: number | null };

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

export async function planNodegroupCreate(deps: NodeGroupDeps, who: Caller, clusterIdent: string, body: NodeGroupCreateT): Promise<NodegroupCreatePlan> {
  const name = body.name;
  if (name === undefined || name === null) throw errors.invalidInput('name', 'None', 'Mandatory field missing.');
  for (const f of ['node_count', 'min_node_count', 'max_node_count'] as const) checkAtMost(f, body[f], deps.maxNodeCount);
  const late = atLeast(who.version, NODE_LABELS_VERSION);
  const nodeLabels = late ? (body.node_labels ?? null) : null;
  const nodeTaints = late ? ((body.node_taints ?? null) as NodeTaint[] | null) : null;
  if (nodeLabels) checkNodeLabels(nodeLabels);
  if (nodeTaints) checkNodeTaints(nodeTaints);
  enforce(who.ctx, 'nodegroup:create');
  const cluster = await findCluster(deps, clusterIdent, writeScope(who.ctx));
  const counts = { node_count: body.node_count ?? 1, min_node_count: body.min_node_count ?? 0, max_node_count: body.max_node_count ?? null };
  const role = body.role ?? 'worker';
  // The group's own zone, and the zones it inherits (which may have gone since the cluster was made).
  const zones = zonesNamed(groupLabels(cluster, body));
  if (deps.checkZones) await deps.checkZones({ ctx: who.ctx, token: who.token }, zones);
  await createChecks(deps, undefined, cluster, name, counts, role);
  const bill = await deps.bill(who, cluster, { name, role, node_count: counts.node_count, flavor_id: body.flavor_id ?? cluster.flavor_id, docker_volume_size: body.docker_volume_size ?? null });
  return { cluster, name, counts, role, nodeLabels, nodeTaints, bill };
}

export async function createNodegroup(deps: NodeGroupDeps, who: Caller, clusterIdent: string, body: NodeGroupCreateT): Promise<Written> {
  const { cluster: found, name, counts, role, nodeLabels, nodeTaints, bill } = await planNodegroupCreate(deps, who, clusterIdent, body);
  const short = shortage(bill);
  if (short) throw short;
  const begun = await beginOperation(deps.outbox, found.uuid, {
    kind: 'nodegroup_create',
    check: (em, cluster) => createChecks(deps, em, cluster, name, counts, role),
    change: async (em, cluster) => {
      const template = body.image_id ? null : await deps.templates.byUuid(cluster.cluster_template_id, em);
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

/** Only min_node_count and max_node_count may change (spec §5). */
const INTERNAL = [
  ...BASE_INTERNAL,
  '/name',
  '/cluster_id',
  '/project_id',
  '/docker_volume_size',
  '/labels',
  '/flavor_id',
  '/image_id',
  '/node_addresses',
  '/node_count',
  '/role',
  '/is_default',
  '/stack_id',
  '/status',
  '/status_reason',
  '/version',
];
const PATCH_RULES: PatchRules = { internal: new Set(INTERNAL), nonRemovable: new Set(), dictPaths: new Set() };
const PATCH_RULES_14: PatchRules = { ...PATCH_RULES, internal: new Set([...INTERNAL, '/node_labels', '/node_taints']) };

const Bounds = Type.Object({ min_node_count: NInt(NODE_COUNT_RANGE), max_node_count: NInt(NODE_COUNT_RANGE) });
const validateBounds = new Ajv({ coerceTypes: false, strict: false }).compile(Bounds);

/** The group's attributes as a patch sees them (its stored fields). */
function patchDocument(ng: NodeGroupRow, version: ApiVersion): Record<string, unknown> {
  const { node_labels, node_taints, ...rest } = ng;
  return atLeast(version, NODE_LABELS_VERSION) ? { ...rest, node_labels, node_taints } : { ...rest };
}

export async function updateNodegroup(deps: NodeGroupDeps, who: Caller, clusterIdent: string, ngIdent: string, ops: PatchOp[]): Promise<Written> {
  const scope = writeScope(who.ctx);
  const found = await findCluster(deps, clusterIdent, scope);
  enforce(who.ctx, 'nodegroup:update');
  const foundNg = await findNodegroup(deps, found.uuid, ngIdent, scope);
  const rules = atLeast(who.version, NODE_LABELS_VERSION) ? PATCH_RULES_14 : PATCH_RULES;
  let ng = foundNg;
  const begun = await beginOperation(deps.outbox, found.uuid, {
    kind: 'nodegroup_update',
    check: async (em, cluster) => {
      ng = await findNodegroup(deps, cluster.uuid, foundNg.uuid, scope, em, true);
      const after = applyPatch(patchDocument(ng, who.version), ops, rules);
      const bounds: Record<string, unknown> = { min_node_count: after.min_node_count, max_node_count: after.max_node_count };
      coerceScalars(bounds, Bounds);
      if (!validateBounds(bounds)) throw validationError(validateBounds.errors![0]!, bounds);
      for (const f of ['min_node_count', 'max_node_count'] as const) checkAtMost(f, bounds[f] as number | null, deps.maxNodeCount);
      // A removed minimum returns to its default; a removed maximum means no bound.
      const next = { min_node_count: (bounds.min_node_count as number | null) ?? 0, max_node_count: bounds.max_node_count as number | null };
      checkCounts(ng.name, { node_count: ng.node_count, ...next });
      if (next.min_node_count === ng.min_node_count && next.max_node_count === ng.max_node_count) return UNCHANGED;
      checkNodegroupUpdatable(ng);
      return next;
    },
    change: async (em, _cluster, next) => {
      const changes = { ...next, status: 'UPDATE_IN_PROGRESS', status_reason: null, updated_at: new Date() };
      await deps.nodegroups.update(em, ng.id, changes);
      return { ...ng, ...changes };
    },
    params: (changed) => ({ nodegroup: changed.uuid }),
    event: (changed) => ({
      reason: 'NodeGroupUpdateAccepted',
      message: `Node group ${changed.name}: min_node_count ${changed.min_node_count}, max_node_count ${changed.max_node_count ?? 'none'}.`,
    }),
  });
  if (begun.outcome === 'unchanged') return { ng, cluster: begun.cluster };
  const { value, cluster } = started(begun, () => errors.notFound('Cluster', found.uuid));
  return { ng: value, cluster };
}

export async function deleteNodegroup(deps: NodeGroupDeps, who: Caller, clusterIdent: string, ngIdent: string): Promise<void> {
  enforce(who.ctx, 'nodegroup:delete');
  const scope = writeScope(who.ctx);
  const found = await findCluster(deps, clusterIdent, scope);
  const foundNg = await findNodegroup(deps, found.uuid, ngIdent, scope);
  if (foundNg.is_default) throw errors.deleteDefaultNodegroup();
  const begun = await beginOperation(deps.outbox, found.uuid, {
    kind: 'nodegroup_delete',
    check: (em, cluster) => findNodegroup(deps, cluster.uuid, foundNg.uuid, scope, em, true),
    change: (em, _cluster, ng) => deps.nodegroups.update(em, ng.id, { status: 'DELETE_IN_PROGRESS', status_reason: null, updated_at: new Date() }),
    params: { nodegroup: foundNg.uuid },
    event: { reason: 'NodeGroupDeleteAccepted', message: `Delete of node group ${foundNg.name} accepted.` },
  });
  started(begun, () => errors.notFound('Cluster', found.uuid));
}
