import { EntitySchema } from 'typeorm';

/** One cloud resource a worker created for a cluster (the resource ledger). */
export interface ClusterResourceRow {
  id: string; // bigserial, as a string
  /** The cluster's uuid; no foreign key, so the row outlives a half-deleted cluster. */
  cluster_id: string;
  /** Catalog type of the owning service: network, load-balancer, compute, block-storage. */
  service: string;
  /** e.g. network, subnet, router, router_interface, security_group, server, loadbalancer. */
  type: string;
  cloud_id: string;
  name: string | null;
  /** The worker step that created it. */
  step: string;
  created_at: Date;
  deleted_at: Date | null;
}

export const ClusterResourceEntity = new EntitySchema<ClusterResourceRow>({
  name: 'ClusterResource',
  tableName: 'cluster_resource',
  columns: {
    id: { type: 'bigint', primary: true, generated: 'increment' },
    cluster_id: { type: 'uuid' },
    service: { type: 'varchar', length: 32 },
    type: { type: 'varchar', length: 64 },
    cloud_id: { type: 'varchar', length: 255 },
    name: { type: 'varchar', length: 255, nullable: true },
    step: { type: 'varchar', length: 64 },
    created_at: { type: 'timestamptz' },
    deleted_at: { type: 'timestamptz', nullable: true },
  },
});
