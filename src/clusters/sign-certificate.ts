// The cluster's CAs through the API (spec §3.5, §6): show a CA certificate, sign a CSR with one. Certificate
// endpoints never widen an admin's scope: every lookup is in the caller's project.
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import type { ClusterRepo } from '../db/repos/clusters.js';
import { errors, type ApiError } from '../domain/errors.js';
import { enforce } from '../domain/policy.js';
import type { AuthContext } from '../keystone/context.js';
import { loadCa, loadCaCert, signCsr, type CaKind } from '../pki/index.js';
import type { SecretBox } from '../security/secret-box.js';
import { ownScope } from './lookup.js';

/** `ca_cert_type` values: omitted or `kubernetes` is the cluster CA; both spellings of front-proxy. */
export const CA_CERT_TYPES = ['kubernetes', 'etcd', 'front_proxy', 'front-proxy'] as const;
export type CaCertType = (typeof CA_CERT_TYPES)[number];

export const caKind = (type: CaCertType | undefined): CaKind =>
  type === 'etcd' ? 'etcd' : type === 'front_proxy' || type === 'front-proxy' ? 'front_proxy' : 'kubernetes';

export interface CertificateDeps {
  db: DataSource;
  clusters: Pick<ClusterRepo, 'find'>;
  secretBox: SecretBox;
  /** Validity of signed certificates in days (Magnum's `[x509] term_of_validity`); 1825 when unset. */
  termDays?: number;
}

export interface SignRequest {
  cluster_uuid?: string;
  bay_uuid?: string;
  csr: string;
  ca_cert_type?: CaCertType;
}

/** The caller's cluster `ident` (their own project's only), or `notFound`. */
export async function ownCluster(clusters: Pick<ClusterRepo, 'find'>, ctx: AuthContext, ident: string, notFound: (id: string) => ApiError): Promise<ClusterRow> {
  const found = await clusters.find(ident, ownScope(ctx));
  if (found === 'ambiguous') throw errors.ambiguousName('clusters', 'cluster');
  if (!found) throw notFound(ident);
  return found;
}

/** The CA certificate of the cluster (its key is not even opened). */
export async function showCa(deps: CertificateDeps, ctx: AuthContext, ident: string, type: CaCertType | undefined) {
  const cluster = await ownCluster(deps.clusters, ctx, ident, (id) => errors.notFound('Cluster', id));
  // Only the cluster's creator or an admin (the rule's target is the cluster's project and user).
  enforce(ctx, 'certificate:get', cluster);
  const pem = await loadCaCert(deps.db, cluster.uuid, caKind(type));
  if (pem === null) throw errors.caNotFound(cluster.uuid);
  return { cluster, pem };
}

/** The CSR signed by the cluster's CA of `ca_cert_type`. An unknown cluster is a bad request here. */
export async function signCertificate(deps: CertificateDeps, ctx: AuthContext, body: SignRequest) {
  const ident = body.cluster_uuid ?? body.bay_uuid;
  if (ident === undefined) throw errors.invalidInput('cluster_uuid', 'None', 'Mandatory field missing.');
  const cluster = await ownCluster(deps.clusters, ctx, ident, (id) => errors.certificateClusterNotFound(id));
  enforce(ctx, 'certificate:create', cluster);
  const ca = await loadCa(deps.db, deps.secretBox, cluster.uuid, caKind(body.ca_cert_type));
  if (!ca) throw errors.caNotFound(cluster.uuid);
  const pem = await signCsr(ca, body.csr, { termDays: deps.termDays });
  return { cluster, pem };
}
