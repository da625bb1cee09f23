// POST /clusters/{id}/actions/upgrade: one minor at a time, never down, decided by the upgrade path
// (src/domain/upgrade-path.ts) that the planner GET /clusters/{id}/upgrades lists targets with; each
// refusal keeps Magnum's error. planUpgrade checks and bills it (the dry-run), startUpgrade begins it. Its
// bill is the roll's peak: one control plane, then max_batch_size nodes of the group, more than the cluster
// holds (src/preflight/footprint.ts rollBill).
import type { EntityManager } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterTemplateRow } from '../db/entities/cluster-template.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import type { NodeGroupRepo } from '../db/repos/nodegroups.js';
import type { Config } from '../config.js';
import { controlPlaneFixed } from '../cluster-spec/api-endpoint.js';
import { errors, type ApiError } from '../domain/errors.js';
import { checkAtMost } from '../domain/limits.js';
import { clusterVersion, upgradeVerdict, type UpgradeVerdict } from '../domain/upgrade-path.js';
import { beginOperation, started, type OperationDeps } from '../operations/begin.js';
import { atLeast, type ApiVersion } from '../domain/microversion.js';
import { enforce } from '../domain/policy.js';
import { shortage, type Assessment } from '../preflight/assess.js';
import { holdBill } from '../preflight/holds.js';
import { groupPlans, type Preflight } from '../preflight/preflight.js';
import { defaultWorker, findGroup, templateFor, type Caller, type TemplateFinder } from './lookup.js';

export interface UpgradeRequest {
  cluster_template: string;
  max_batch_size?: number | null;
  nodegroup?: string | null;
}

export interface PlanUpgradeDeps {
  config: { limits: Pick<Config['limits'], 'maxNodeCount'> };
  templates: { repo: TemplateFinder };
  clusters: Pick<ClusterRepo, 'nodegroups'>;
  preflight: Pick<Preflight, 'assess' | 'clusterSpecOf'>;
}

export interface UpgradeDeps {
  nodegroups: Pick<NodeGroupRepo, 'updateByUuid'>;
  outbox: OperationDeps;
}

export interface UpgradePlan {
  target: ClusterTemplateRow;
  ng: NodeGroupRow;
  from: string;
  to: string;
  batch: number;
  bill: Assessment;
}

/** Magnum's error for each refusal of the upgrade path. */
function refusalError(v: Extract<UpgradeVerdict, { ok: false }>, target: ClusterTemplateRow): ApiError {
  switch (v.refusal) {
    case 'bad_tag':
      return errors.invalidLabel('kube_tag', target.labels.kube_tag ?? '', v.reason);
    case 'down':
      return errors.upgradeInvalidTag('kube_tag');
    default:
      return errors.upgradeTemplateInvalid(v.reason);
  }
}

/** The version a group runs: a default group's is the cluster's; another group's its own (it follows the cluster later). */
const runningVersion = (c: ClusterRow, ng: NodeGroupRow): string | undefined => (ng.is_default ? undefined : ng.version ?? undefined) ?? clusterVersion(c);

export async function planUpgrade(s: PlanUpgradeDeps, who: Caller, c: ClusterRow, body: UpgradeRequest, version: ApiVersion): Promise<UpgradePlan> {
  if (!atLeast(version, 8)) throw errors.upgradeUnsupportedVersion();
  checkAtMost('max_batch_size', body.max_batch_size, s.config.limits.maxNodeCount);
  enforce(who.ctx, 'cluster:upgrade', c);
  const target = await templateFor(s.templates.repo, who, body.cluster_template, 'cluster_template', 404);
  const groups = await s.clusters.nodegroups([c.uuid]);
  const ng = body.nodegroup ? findGroup(groups, body.nodegroup) : defaultWorker(groups);
  if (!ng) throw errors.notFound('Nodegroup', body.nodegroup ?? 'default-worker');
  if (!ng.is_default && target.uuid !== c.cluster_template_id) {
    throw errors.upgradeTemplateInvalid(`Nodegroup ${ng.name} can be upgraded only to match cluster's template (${c.cluster_template_id}).`);
  }
  const verdict = upgradeVerdict(runningVersion(c, ng), target.labels);
  if (!verdict.ok) throw refusalError(verdict, target);
  const batch = body.max_batch_size ?? 1;
  // The new nodes are the target template's, with its Kubernetes version (workers/cluster/context.ts).
  const labels = target.labels.kube_tag === undefined ? c.labels : { ...c.labels, kube_tag: target.labels.kube_tag };
  const spec = await s.preflight.clusterSpecOf(who, c, target, groups, labels);
  // The default group's upgrade replaces the control plane: refused here when its API address could not stay.
  const fixed = ng.is_default ? controlPlaneFixed(spec) : null;
  if (fixed) throw errors.controlPlaneFixed('upgraded', fixed);
  const rolled = groups.filter((g) => g.uuid === ng.uuid || (ng.is_default && g.role === 'master')).map((g) => g.name);
  const bill = await s.preflight.assess(who, { template: target, cluster: c, spec, bill: { kind: 'roll', groups: groupPlans(c, target, groups), rolled, batch } });
  return { target, ng, from: verdict.from, to: verdict.to, batch, bill };
}

/** Who begins it: the service (a maintenance window) only on a settled cluster, saying why in its event. */
export interface UpgradeStart {
  origin: 'service';
  /** Why the service upgrades, for the event ("by its maintenance window of …"). */
  why: string;
  now: Date;
  /** Claims what the service begins it for (a window), under the cluster's lock in the start's transaction; throws to refuse. */
  claim?: (em: EntityManager) => Promise<void>;
}

/** Begins a planned upgrade (its shortage refused). */
export async function startUpgrade(s: UpgradeDeps, c: ClusterRow, plan: UpgradePlan, by?: UpgradeStart): Promise<ClusterRow> {
  const { target, ng, from, to, batch, bill } = plan;
  const short = shortage(bill);
  if (short) throw short;
  const begun = await beginOperation(s.outbox, c.uuid, {
    kind: 'upgrade',
    ...(by ? { origin: by.origin, now: by.now } : {}),
    ...(by?.claim ? { check: by.claim } : {}),
    params: { cluster_template: target.uuid, nodegroup: ng.uuid, max_batch_size: batch, from, to },
    change: (em) => s.nodegroups.updateByUuid(em, ng.uuid, { status: 'UPDATE_IN_PROGRESS', status_reason: null, updated_at: new Date() }),
    // The roll's peak: held until the upgrade ends (the surge nodes are gone again by then).
    hold: (em, op, locked) => holdBill(em, { projectId: locked.project_id, clusterId: locked.uuid, operationId: op.id, bill, createTimeoutMinutes: locked.create_timeout }),
    event: { reason: 'UpgradeAccepted', message: `Upgrade of ${ng.name} from ${from} to ${to} accepted${by ? ` (${by.why}: template ${target.name})` : ''}.` },
  });
  return started(begun, () => errors.notFound('Cluster', c.uuid)).cluster;
}
