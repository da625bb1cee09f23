// Cluster (and bay) create, in Magnum's order of checks (spec §3.2): planCreate checks and bills it (what the
// dry-run shows), startCreate then writes its intent: the row, its default node groups, its CAs and the queued
// create in one transaction (beginOperation), after making the cluster's application credential.
import { randomUUID } from 'node:crypto';
import { bool } from '../cluster-spec/labels/types.js';
import { parseClusterSpec } from '../cluster-spec/parse.js';
import { zonesNamed } from '../cluster-spec/zones.js';
import type { Config } from '../config.js';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterTemplateRow } from '../db/entities/cluster-template.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import type { NodeGroupRepo } from '../db/repos/nodegroups.js';
import { initialConditions } from '../domain/cluster-status.js';
import { errors } from '../domain/errors.js';
import { inheritLabels, labelStrings } from '../domain/labels.js';
import { checkAtMost } from '../domain/limits.js';
import { atLeast, type ApiVersion } from '../domain/microversion.js';
import { generateName } from '../domain/names.js';
import { enforce } from '../domain/policy.js';
import type { CallerClouds } from '../openstack/caller.js';
import { beginOperation, started, type OperationDeps } from '../operations/begin.js';
import { generateClusterPki, storeClusterPki } from '../pki/index.js';
import { shortage, type Assessment } from '../preflight/assess.js';
import { checkClusterQuota } from '../preflight/cluster-quota.js';
import { holdBill } from '../preflight/holds.js';
import { groupPlans, type Preflight } from '../preflight/preflight.js';
import type { SecretBox } from '../security/secret-box.js';
import { createClusterCredential, deleteClusterCredential, type ClusterCredential } from './credential.js';
import { labelWarningEvent } from './label-warnings.js';
import { templateFor, type Caller, type TemplateFinder } from './lookup.js';

/** What a create reads of its request: the cluster body of 1.1+ or the bay body of ≤1.10 (each schema refused the other's fields). */
export interface CreateRequest {
  name?: string | null;
  cluster_template_id?: string | null;
  baymodel_id?: string | null;
  node_count?: number | null;
  master_count?: number | null;
  docker_volume_size?: number | null;
  labels?: Record<string, unknown> | null;
  merge_labels?: boolean | null;
  master_flavor_id?: string | null;
  flavor_id?: string | null;
  discovery_url?: string | null;
  fixed_network?: string | null;
  fixed_subnet?: string | null;
  floating_ip_enabled?: boolean | null;
  master_lb_enabled?: boolean | null;
  keypair?: string | null;
  create_timeout?: number | null;
  bay_create_timeout?: number | null;
}

/** What planCreate needs. */
export interface PlanCreateDeps {
  config: { limits: Pick<Config['limits'], 'maxNodeCount' | 'maxMasterCount'> };
  templates: { repo: TemplateFinder };
  preflight: Pick<Preflight, 'assess' | 'fixedSubnetCidr' | 'checkZones'>;
}

/** What startCreate needs besides. */
export interface CreateDeps extends PlanCreateDeps {
  config: PlanCreateDeps['config'] & { maxClustersPerProject: number };
  clouds: CallerClouds;
  secretBox: SecretBox;
  clusters: Pick<ClusterRepo, 'insert'>;
  nodegroups: Pick<NodeGroupRepo, 'insertMany'>;
  outbox: OperationDeps;
}

export type Flavor = 'cluster' | 'bay';
const empty = (v: string | null | undefined): v is '' | null | undefined => v === undefined || v === null || v === '';

interface Resolved {
  row: ClusterRow;
  masterCount: number;
  nodeCount: number;
}

/** The cluster row a create body asks for, with the template's values filled in. */
function resolve(who: Caller, body: CreateRequest, t: ClusterTemplateRow, flavor: Flavor, version: ApiVersion): Resolved {
  const nodeCount = body.node_count ?? 1;
  const masterCount = body.master_count ?? 1;
  if (nodeCount === 0 && (flavor === 'bay' || !atLeast(version, 10))) throw errors.zeroNodesUnsupported();
  const merge = body.merge_labels === true;
  const given = body.labels === undefined || body.labels === null ? null : labelStrings(body.labels);
  // The template's value when the body has none (an empty string is none).
  const pick = (k: 'master_flavor_id' | 'flavor_id' | 'fixed_network' | 'fixed_subnet'): string | null => {
    const v = body[k];
    return empty(v) ? t[k] : v;
  };
  const now = new Date();
  const masterLb = body.master_lb_enabled ?? t.master_lb_enabled;
  const row: ClusterRow = {
    id: 0,
    uuid: randomUUID(),
    name: body.name ?? generateName(flavor === 'bay' ? 'bay' : 'cluster'),
    project_id: who.ctx.projectId ?? '',
    user_id: who.ctx.userId,
    cluster_template_id: t.uuid,
    keypair: flavor === 'bay' ? t.keypair_id : (body.keypair ?? t.keypair_id),
    docker_volume_size: body.docker_volume_size ?? t.docker_volume_size,
    labels: inheritLabels(t.labels, given, merge),
    master_flavor_id: pick('master_flavor_id'),
    flavor_id: pick('flavor_id'),
    create_timeout: (flavor === 'bay' ? body.bay_create_timeout : body.create_timeout) ?? 60,
    discovery_url: empty(body.discovery_url) ? null : body.discovery_url,
    stack_id: null,
    status: 'CREATE_IN_PROGRESS',
    status_reason: null,
    health_status: null,
    health_status_reason: null,
    health_checked_at: null, unhealthy_since: {},
    api_address: null,
    coe_version: null,
    container_version: null,
    fixed_network: pick('fixed_network'),
    fixed_subnet: pick('fixed_subnet'),
    floating_ip_enabled: body.floating_ip_enabled ?? t.floating_ip_enabled,
    master_lb_enabled: masterLb,
    conditions: initialConditions(now, masterLb),
    app_cred_id: null,
    app_cred_secret: null,
    app_cred_user_id: null,
    hibernation: 'awake',
    hibernated_at: null,
    hibernation_schedule: null,
    schedule_fired: {},
    maintenance: null,
    maintenance_claimed: null,
    maintenance_last: null,
    retired_app_creds: [],
    created_at: now,
    updated_at: null,
  };
  return { row, masterCount, nodeCount };
}

/** The default master and worker groups (spec §3.2). */
export function defaultNodegroups(c: ClusterRow, t: ClusterTemplateRow, masterCount: number, nodeCount: number): Omit<NodeGroupRow, 'id'>[] {
  const base = {
    cluster_id: c.uuid,
    project_id: c.project_id,
    docker_volume_size: c.docker_volume_size,
    labels: c.labels,
    image_id: t.image_id,
    node_addresses: [] as string[],
    min_node_count: Number.parseInt(c.labels.min_node_count ?? '0', 10) || 0,
    max_node_count: null,
    is_default: true,
    stack_id: null,
    status: 'CREATE_IN_PROGRESS',
    status_reason: null,
    version: null,
    node_labels: null,
    node_taints: null,
    created_at: c.created_at,
    updated_at: null,
  };
  return [
    { ...base, uuid: randomUUID(), name: 'default-master', role: 'master', node_count: masterCount, flavor_id: c.master_flavor_id ?? c.flavor_id, min_node_count: 1 },
    { ...base, uuid: randomUUID(), name: 'default-worker', role: 'worker', node_count: nodeCount, flavor_id: c.flavor_id, max_node_count: workerMax(c.labels, nodeCount) },
  ];
}

/**
 * The default worker group's max_node_count: the label max_node_count (never below the group's size), or, for an
 * autoscaled cluster without it, node_count + 1 as Magnum's autoscaler had; else none. The labels were validated.
 */
function workerMax(labels: Record<string, string>, nodeCount: number): number | null {
  if (labels.max_node_count !== undefined) return Math.max(Number.parseInt(labels.max_node_count, 10), nodeCount);
  let autoscaled = false;
  try {
    autoscaled = labels.auto_scaling_enabled !== undefined && bool.parse(labels.auto_scaling_enabled);
  } catch {
    autoscaled = false;
  }
  return autoscaled ? nodeCount + 1 : null;
}

const statusOf = (c: ClusterRow) => ({ status: c.status, status_reason: c.status_reason });

/** A create checked and billed, not written: what the create writes, its label warnings and its bill. */
export interface CreatePlan {
  row: ClusterRow;
  template: ClusterTemplateRow;
  masterCount: number;
  nodeCount: number;
  groups: Omit<NodeGroupRow, 'id'>[];
  /** Labels accepted but ignored, unknown or deprecated (the label parser's warnings). */
  warnings: string[];
  bill: Assessment;
}

/** Every check of a create, in Magnum's order, and its bill; nothing is written (the create and its dry-run). */
export async function planCreate(s: PlanCreateDeps, who: Caller, body: CreateRequest, version: ApiVersion, flavor: Flavor): Promise<CreatePlan> {
  // The deployment's maxima, as the schema's own (the ceilings) are checked: before anything else.
  checkAtMost('node_count', body.node_count, s.config.limits.maxNodeCount);
  checkAtMost('master_count', body.master_count, s.config.limits.maxMasterCount);
  const t =
    flavor === 'bay'
      ? await templateFor(s.templates.repo, who, body.baymodel_id, 'baymodel_id', 400)
      : await templateFor(s.templates.repo, who, body.cluster_template_id, 'cluster_template_id', atLeast(version, 10) ? 404 : 400);
  if (t.coe !== 'kubernetes') throw errors.clusterTypeUnsupported(t.server_type, t.cluster_distro ?? 'None', t.coe);
  const size = body.docker_volume_size ?? t.docker_volume_size;
  if (t.docker_storage_driver === 'devicemapper' && size !== null && size < 3) throw errors.devicemapperSize();
  enforce(who.ctx, flavor === 'bay' ? 'bay:create' : 'cluster:create');

  const { row, masterCount, nodeCount } = resolve(who, body, t, flavor, version);
  if (masterCount > 1 && !row.master_lb_enabled) throw errors.masterCountNeedsLb();
  // Labels are read once, here and by the workers, through the one parser.
  const subnetCidr = await s.preflight.fixedSubnetCidr(who, row.fixed_subnet);
  const { spec, warnings } = parseClusterSpec({
    template: t,
    cluster: { ...row, master_count: masterCount, node_count: nodeCount },
    labels: row.labels,
    ...(subnetCidr !== undefined ? { subnetCidr } : {}),
  });
  await s.preflight.checkZones(who, zonesNamed(row.labels));
  const groups = defaultNodegroups(row, t, masterCount, nodeCount);
  const bill = await s.preflight.assess(who, { template: t, cluster: row, spec, checkResources: true, bill: { kind: 'create', groups: groupPlans(row, t, groups as NodeGroupRow[]) } });
  return { row, template: t, masterCount, nodeCount, groups, warnings, bill };
}

/** Begins a planned create (refused with its shortage when the bill does not fit); the plan's row is the cluster accepted. */
export async function startCreate(s: CreateDeps, who: Caller, plan: CreatePlan): Promise<CreatePlan> {
  const short = shortage(plan.bill);
  if (short) throw short;
  const { row, masterCount, nodeCount, groups } = plan;
  const pki = await generateClusterPki({ uuid: row.uuid, name: row.name });
  const credential: ClusterCredential = await createClusterCredential(s.clouds, who, row.uuid);
  row.app_cred_id = credential.id;
  row.app_cred_secret = s.secretBox.seal(credential.secret, `app-cred:${row.uuid}`);
  row.app_cred_user_id = who.ctx.userId;
  try {
    const begun = await beginOperation(s.outbox, row.uuid, {
      kind: 'create',
      insert: async (em) => {
        await checkClusterQuota(em, row.project_id, s.config.maxClustersPerProject);
        const { id: _unset, ...insertable } = row;
        await s.clusters.insert(em, insertable);
        await s.nodegroups.insertMany(em, groups);
      },
      change: (em) => storeClusterPki(em, s.secretBox, row.uuid, pki),
      hold: (em, op) => holdBill(em, { projectId: row.project_id, clusterId: row.uuid, operationId: op.id, bill: plan.bill, createTimeoutMinutes: row.create_timeout }),
      event: { reason: 'CreateAccepted', message: `Create of ${masterCount} control-plane and ${nodeCount} worker node(s) accepted.` },
      notes: plan.warnings.map(labelWarningEvent),
      now: row.created_at,
    });
    Object.assign(row, statusOf(started(begun, () => errors.notFound('Cluster', row.uuid)).cluster));
  } catch (e) {
    await deleteClusterCredential(s.clouds, who, credential.id);
    throw e;
  }
  return plan;
}
