// The cluster's PKI at rest: one cluster_certificate row per CA and one for the service-account
// key, private keys sealed with the SecretBox under `cluster-ca:<cluster uuid>:<kind>`.
import type { DataSource, EntityManager } from 'typeorm';
import { ClusterCertificateEntity, type CertificateKind, type ClusterCertificateRow } from '../db/entities/cluster-certificate.js';
import type { SecretBox } from '../security/secret-box.js';
import { CA_KINDS, generateClusterPki, PKI_FIELD, type CaKind, type ControlPlanePki, type KeyPair } from './ca.js';

type Db = DataSource | EntityManager;

/** The associated data a key is sealed under: a sealed key moved to another row does not open. */
export const sealContext = (clusterUuid: string, kind: CertificateKind): string => `cluster-ca:${clusterUuid}:${kind}`;

function rows(clusterUuid: string, box: SecretBox, pki: ControlPlanePki, generation: number, now: Date): ClusterCertificateRow[] {
  const row = (kind: CertificateKind, cert: string, key: string): ClusterCertificateRow => ({
    cluster_id: clusterUuid,
    kind,
    cert,
    key: box.seal(key, sealContext(clusterUuid, kind)),
    generation,
    created_at: now,
  });
  return [
    ...CA_KINDS.map((k) => row(k, pki[PKI_FIELD[k]].cert, pki[PKI_FIELD[k]].key)),
    row('service_account', pki.serviceAccount.pub, pki.serviceAccount.key),
  ];
}

/** Inserts a new cluster's PKI (generation 1) inside the caller's transaction. */
export async function storeClusterPki(em: EntityManager, box: SecretBox, clusterUuid: string, pki: ControlPlanePki): Promise<void> {
  await em.getRepository(ClusterCertificateEntity).insert(rows(clusterUuid, box, pki, 1, new Date()));
}

/** The generation of the cluster's PKI (0 before it has one). */
export async function pkiGeneration(db: Db, clusterUuid: string): Promise<number> {
  const certs = await db.getRepository(ClusterCertificateEntity).find({ select: { generation: true }, where: { cluster_id: clusterUuid } });
  return certs.length ? Math.max(...certs.map((c) => c.generation)) : 0;
}

/** A CA's certificate only (what GET /v1/certificates returns; the key stays sealed). */
export async function loadCaCert(db: Db, clusterUuid: string, kind: CaKind): Promise<string | null> {
  const row = await db.getRepository(ClusterCertificateEntity).findOne({ select: { cert: true }, where: { cluster_id: clusterUuid, kind } });
  return row?.cert ?? null;
}

/** A CA's certificate and its opened private key, for signing. */
export async function loadCa(db: Db, box: SecretBox, clusterUuid: string, kind: CaKind): Promise<KeyPair | null> {
  const row = await db.getRepository(ClusterCertificateEntity).findOneBy({ cluster_id: clusterUuid, kind });
  return row ? { cert: row.cert, key: box.open(row.key, sealContext(clusterUuid, kind)) } : null;
}

function assemble(box: SecretBox, clusterUuid: string, found: ClusterCertificateRow[]): { pki: ControlPlanePki; generation: number } | null {
  const by = new Map(found.map((r) => [r.kind, r]));
  const open = (kind: CertificateKind): KeyPair | null => {
    const r = by.get(kind);
    return r ? { cert: r.cert, key: box.open(r.key, sealContext(clusterUuid, kind)) } : null;
  };
  const [ca, etcdCa, frontProxyCa, sa] = [open('kubernetes'), open('etcd'), open('front_proxy'), open('service_account')];
  if (!ca || !etcdCa || !frontProxyCa || !sa) return null;
  return {
    pki: { ca, etcdCa, frontProxyCa, serviceAccount: { key: sa.key, pub: sa.cert } },
    generation: Math.max(...found.map((r) => r.generation)),
  };
}

/** The whole PKI as the bootstrap renderer takes it, with its generation; null when incomplete. */
export async function loadClusterPki(db: Db, box: SecretBox, clusterUuid: string): Promise<{ pki: ControlPlanePki; generation: number } | null> {
  return assemble(box, clusterUuid, await db.getRepository(ClusterCertificateEntity).findBy({ cluster_id: clusterUuid }));
}

/**
 * New CAs and service-account key replacing the current ones at generation + 1 (run inside the
 * caller's transaction; the rows are locked). With `fromGeneration`, an ensure: when the stored
 * generation is already past it, a previous attempt rotated and its PKI is returned unchanged.
 */
export async function rotateClusterPki(
  em: EntityManager,
  box: SecretBox,
  cluster: { uuid: string; name: string | null },
  opts: { fromGeneration?: number } = {},
): Promise<{ pki: ControlPlanePki; generation: number; rotated: boolean }> {
  const repo = em.getRepository(ClusterCertificateEntity);
  const current = await repo
    .createQueryBuilder('c')
    .setLock('pessimistic_write')
    .where('c.cluster_id = :id', { id: cluster.uuid })
    .getMany();
  const generation = current.length ? Math.max(...current.map((r) => r.generation)) : 0;
  if (opts.fromGeneration !== undefined && generation > opts.fromGeneration) {
    const existing = assemble(box, cluster.uuid, current);
    if (existing) return { ...existing, rotated: false };
  }
  const pki = await generateClusterPki(cluster);
  const next = rows(cluster.uuid, box, pki, generation + 1, new Date());
  await repo.upsert(next, ['cluster_id', 'kind']);
  return { pki, generation: generation + 1, rotated: true };
}
