// The resource ledger of one cluster, as a run sees it: the ledger repository bound to its cluster.
import type { DataSource, EntityManager } from 'typeorm';
import type { ClusterResourceRow } from '../db/entities/cluster-resource.js';
import { ResourceRepo, type ResourceRecord } from '../db/repos/resources.js';

export class Ledger {
  private readonly repo: ResourceRepo;

  constructor(
    ds: DataSource,
    readonly clusterId: string,
  ) {
    this.repo = new ResourceRepo(ds);
  }

  /** Resources not yet deleted, oldest first; of one type when given. */
  live(type?: string): Promise<ClusterResourceRow[]> {
    return this.repo.live(this.clusterId, type);
  }

  /** Records a resource (again: a no-op; a row marked deleted is revived, the resource being back). */
  record(r: ResourceRecord): Promise<void> {
    return this.repo.record(this.clusterId, r);
  }

  markDeleted(service: string, type: string, cloudId: string): Promise<void> {
    return this.repo.markDeleted(this.clusterId, service, type, cloudId);
  }

  /** Every live resource of `type` marked deleted (children gone with their parent). */
  markTypeDeleted(type: string): Promise<void> {
    return this.repo.markTypeDeleted(this.clusterId, type);
  }

  /** The rows the delete walked go (in the caller's transaction). */
  dropDeleted(em?: EntityManager): Promise<void> {
    return this.repo.dropDeleted(this.clusterId, em);
  }
}
