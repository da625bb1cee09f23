// The resource ledger (table cluster_resource): every cloud resource a worker created for a cluster,
// written the moment the cloud returned it. A delete marks rows; the cluster's delete drops them.
import type { DataSource, EntityManager } from 'typeorm';
import { IsNull } from 'typeorm';
import { ClusterResourceEntity, type ClusterResourceRow } from '../entities/cluster-resource.js';

export interface ResourceRecord {
  service: string;
  type: string;
  cloudId: string;
  name: string | null;
  step: string;
}

export class ResourceRepo {
  constructor(private readonly ds: DataSource) {}

  /** A cluster's resources not yet deleted, oldest first; of one type when given. */
  live(clusterId: string, type?: string): Promise<ClusterResourceRow[]> {
    return this.ds.getRepository(ClusterResourceEntity).find({
      where: { cluster_id: clusterId, deleted_at: IsNull(), ...(type ? { type } : {}) },
      order: { id: 'ASC' },
    });
  }

  /** Records a resource (again: a no-op; a row marked deleted is revived, the resource being back). */
  async record(clusterId: string, r: ResourceRecord): Promise<void> {
    await this.ds.query(
      `INSERT INTO cluster_resource (cluster_id, service, type, cloud_id, name, step)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (cluster_id, service, type, cloud_id) DO UPDATE SET deleted_at = NULL`,
      [clusterId, r.service, r.type, r.cloudId, r.name, r.step],
    );
  }

  async markDeleted(clusterId: string, service: string, type: string, cloudId: string): Promise<void> {
    await this.ds.query(
      `UPDATE cluster_resource SET deleted_at = now() WHERE cluster_id = $1 AND service = $2 AND type = $3 AND cloud_id = $4 AND deleted_at IS NULL`,
      [clusterId, service, type, cloudId],
    );
  }

  /** Marks every live resource of `type` deleted (those that went with their parent). */
  async markTypeDeleted(clusterId: string, type: string): Promise<void> {
    await this.ds.query(`UPDATE cluster_resource SET deleted_at = now() WHERE cluster_id = $1 AND type = $2 AND deleted_at IS NULL`, [clusterId, type]);
  }

  /** Drops the rows marked deleted (what the delete walked); live ones, unknown to it, stay. */
  async dropDeleted(clusterId: string, em: EntityManager = this.ds.manager): Promise<void> {
    await em.query('DELETE FROM cluster_resource WHERE cluster_id = $1 AND deleted_at IS NOT NULL', [clusterId]);
  }
}
