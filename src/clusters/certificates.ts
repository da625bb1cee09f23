// The cluster CA through the API: show it, sign a CSR with it, queue its rotation (spec §3.5, §6).
// Certificate endpoints never widen an admin's scope: every lookup is in the caller's project.
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterTemplateRepo } from '../db/repos/cluster-templates.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import { errors, type ApiError } from '../domain/errors.js';
import type { AuthContext } from '../keystone/context.js';
import { beginOperation, started, type OperationDeps } from '../operations/begin.js';
import { loadCa, loadCaCert, pkiGeneration, signCsr, type CaKind } from '../pki/index.js';
import type { SecretBox } from '../security/secret-box.js';
import { enforce } from '../domain/policy.js';
import type { CaCertType, CertificateCreateT } from '../api/routes/v1/certificates/schema.js';
import { shortage, type Assessment } from '../preflight/assess.js';

export interface CertificateDeps {
  db: DataSource;
  clusters: ClusterRepo;
  templates: ClusterTemplateRepo;
  secretBox: SecretBox;
  outbox: OperationDeps;
  /** Validity of signed certificates in days (Magnum's `[x509] term_of_validity`); 1825 when unset. */
  termDays?: number;
}

export const caKind = (type: CaCertType | undefined): CaKind =>
  type === 'etcd' ? 'etcd' : type === 'front_proxy' || type === 'front-proxy' ? 'front_proxy' : 'kubernetes';

async function lookup(deps: CertificateDeps, ctx: AuthContext, ident: string, notFound: (id: string) => ApiError): Promise<ClusterRow> {
  const found = await deps.clusters.find(ident, { all: false, projectId: ctx.projectId });
  if (found === 'ambiguous') throw errors.ambiguousName('clusters', 'cluster');
  if (!found) throw notFound(ident);
  return found;
}

/** The CA certificate of the cluster (its key is not even opened). */
export async function showCa(deps: CertificateDeps, ctx: AuthContext, ident: string, type: CaCertType | undefined) {
  const cluster = await lookup(deps, ctx, ident, (id) => errors.notFound('Cluster', id));
  // Only the cluster's creator or an admin (the rule's target is the cluster's project and user).
  enforce(ctx, 'certificate:get', cluster);
  const pem = await loadCaCert(deps.db, cluster.uuid, caKind(type));
  if (pem === null) throw errors.caNotFound(cluster.uuid);
  return { cluster, pem };
}

/** The CSR signed by the cluster's CA of `ca_cert_type`. An unknown cluster is a bad request here. */
export async function signCertificate(deps: CertificateDeps, ctx: AuthContext, body: CertificateCreateT) {
  const ident = body.cluster_uuid ?? body.bay_uuid;
  if (ident === undefined) throw errors.invalidInput('cluster_uuid', 'None', 'Mandatory field missing.');
  const cluster = await lookup(deps, ctx, ident, (id) => errors.certificateClusterNotFound(id));
  enforce(ctx, 'certificate:create', cluster);
  const ca = await loadCa(deps.db, deps.secretBox, cluster.uuid, caKind(body.ca_cert_type));
  if (!ca) throw errors.caNotFound(cluster.uuid);
  const pem = await signCsr(ca, body.csr, { termDays: deps.termDays });
  return { cluster, pem };
}

/**
 * Queues a CA rotation (beginOperation: the cluster row locked, its status re-checked, the rotate_ca
 * operation written and the status derived from it; 409 if another is active). The operation
 * carries the PKI generation it replaces, so the worker's rotation is an ensure
 * (src/pki/store.ts rotateClusterPki).
 */
export async function rotateCa(deps: CertificateDeps, ctx: AuthContext, ident: string, bill: (cluster: ClusterRow) => Promise<Assessment>): Promise<string> {
  const cluster = await lookup(deps, ctx, ident, (id) => errors.notFound('Cluster', id));
  enforce(ctx, 'certificate:rotate_ca', cluster);
  const template = await deps.templates.byUuid(cluster.cluster_template_id);
  if (template?.tls_disabled) throw errors.rotateCaTlsDisabled();
  // Every node is replaced, one at a time: the roll's surge must fit the project's quotas.
  const short = shortage(await bill(cluster));
  if (short) throw short;
  const begun = await beginOperation(deps.outbox, cluster.uuid, {
    kind: 'rotate_ca',
    change: (em, locked) => pkiGeneration(em, locked.uuid),
    params: (generation) => ({ from_generation: generation }),
    event: { reason: 'RotateCaAccepted', message: 'Rotation of the cluster’s certificate authorities accepted.' },
  });
  started(begun, () => errors.notFound('Cluster', ident));
  return cluster.uuid;
}
