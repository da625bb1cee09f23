// PATCH /v1/certificates/{cluster}: a rotation of the cluster's CAs. planRotateCa checks it and bills the roll's
// peak (every node replaced one at a time: one control plane, then one node of each group); startRotateCa begins
// it (beginOperation: the row locked, its status re-checked, the rotate_ca operation written with the PKI
// generation it replaces, so the worker's rotation is an ensure: src/pki/store.ts rotateClusterPki).
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterTemplateRepo } from '../db/repos/cluster-templates.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import { errors } from '../domain/errors.js';
import { enforce } from '../domain/policy.js';
import { beginOperation, started, type OperationDeps } from '../operations/begin.js';
import { pkiGeneration } from '../pki/index.js';
import { shortage, type Assessment } from '../preflight/assess.js';
import { groupPlans, type Preflight } from '../preflight/preflight.js';
import { templateOf, type Caller } from './lookup.js';
import { ownCluster } from './sign-certificate.js';

export interface PlanRotateCaDeps {
  clusters: Pick<ClusterRepo, 'find' | 'nodegroups'>;
  templates: { repo: Pick<ClusterTemplateRepo, 'find' | 'byUuid'> };
  preflight: Pick<Preflight, 'assess' | 'clusterSpecOf'>;
}

export interface RotateCaPlan {
  cluster: ClusterRow;
  bill: Assessment;
}

export async function planRotateCa(deps: PlanRotateCaDeps, who: Caller, ident: string): Promise<RotateCaPlan> {
  const cluster = await ownCluster(deps.clusters, who.ctx, ident, (id) => errors.notFound('Cluster', id));
  enforce(who.ctx, 'certificate:rotate_ca', cluster);
  const template = await deps.templates.repo.byUuid(cluster.cluster_template_id);
  if (template?.tls_disabled) throw errors.rotateCaTlsDisabled();
  // Every node is replaced, one at a time: the roll's surge must fit the project's quotas.
  const t = await templateOf(deps.templates.repo, cluster);
  const groups = await deps.clusters.nodegroups([cluster.uuid]);
  const spec = await deps.preflight.clusterSpecOf(who, cluster, t, groups);
  const bill = await deps.preflight.assess(who, { template: t, cluster, spec, bill: { kind: 'roll', groups: groupPlans(cluster, t, groups), rolled: groups.map((g) => g.name), batch: 1 } });
  return { cluster, bill };
}

/** Begins a planned rotation (its shortage refused); the cluster's uuid. */
export async function startRotateCa(deps: { outbox: OperationDeps }, plan: RotateCaPlan): Promise<string> {
  const short = shortage(plan.bill);
  if (short) throw short;
  const begun = await beginOperation(deps.outbox, plan.cluster.uuid, {
    kind: 'rotate_ca',
    change: (em, locked) => pkiGeneration(em, locked.uuid),
    params: (generation) => ({ from_generation: generation }),
    event: { reason: 'RotateCaAccepted', message: 'Rotation of the cluster’s certificate authorities accepted.' },
  });
  started(begun, () => errors.notFound('Cluster', plan.cluster.uuid));
  return plan.cluster.uuid;
}
