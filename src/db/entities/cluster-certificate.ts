import { EntitySchema } from 'typeorm';

/** The cluster's CAs and its service-account key pair. */
export type CertificateKind = 'kubernetes' | 'etcd' | 'front_proxy' | 'service_account';

export interface ClusterCertificateRow {
  cluster_id: string;
  kind: CertificateKind;
  /** PEM certificate (for service_account: the PEM public key). */
  cert: string;
  /** The PEM private key sealed with the configured key (src/security/secret-box.ts); never returned. */
  key: string;
  /** Bumped by each CA rotation. */
  generation: number;
  created_at: Date;
}

export const ClusterCertificateEntity = new EntitySchema<ClusterCertificateRow>({
  name: 'ClusterCertificate',
  tableName: 'cluster_certificate',
  columns: {
    cluster_id: { type: 'uuid', primary: true },
    kind: { type: 'varchar', length: 32, primary: true },
    cert: { type: 'text' },
    key: { type: 'text' },
    generation: { type: 'int' },
    created_at: { type: 'timestamptz' },
  },
});
