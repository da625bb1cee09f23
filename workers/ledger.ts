// The resource ledger of one cluster (table cluster_resource): what was created, by which step,
// written the moment the cloud returned it; deletes mark rows, the final delete step drops them.
import type { DataSource } from 'typeorm';
import { IsNull } from 'typeorm';
import { ClusterResourceEntity, type ClusterResourceRow } from '../src/db/entities/cluster-resource.js';

export class Ledger {
  constructor(
    private readonly ds: DataSource,
    readonly clusterId: string,
  ) {}

  /** Resources not yet deleted, oldest first; of one type when given. */
  live(type?: string): Promise<ClusterResourceRow[]> {
    return this.ds.getRepository(ClusterResourceEntity).find({
      where: { cluster_id: this.clusterId, deleted_at: IsNull(), ...(type ? { type } : {}) },
      order: { id: 'ASC' },
    });
  }

  /** Records a resource (again: a no-op; a row marked deleted is revived, the resource being back). */
  async record(r: { service: string; type: string; cloudId: string; name: string | null; step: string }): Promise<void> {
    await this.ds.query(
      `INSERT INTO cluster_resource (cluster_id, service, type, cloud_id, name, step)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (cluster_id, service, type, cloud_id) DO UPDATE SET deleted_at = NULL`,
      [this.clusterId, r.service, r.type, r.cloudId, r.name, r.step],
    );
  }

  async markDeleted(service: string, type: string, cloudId: string): Promise<void> {
    await this.ds.query(
      `UPDATE cluster_resource SET deleted_at = now() WHERE cluster_id = $1 AND service = $2 AND type = $3 AND cloud_id = $4 AND deleted_at IS NULL`,
      [this.clusterId, service, type, cloudId],
    );
  }
}
