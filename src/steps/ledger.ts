// The resource ledger of one cluster, as a run sees it: what the steps made, recorded the moment the cloud
// answered. The interface is what a step uses; PgLedger is the ledger repository (table cluster_resource)
// bound to its cluster, the one the runner gives every run (step tests give an in-memory one).
import type { DataSource, EntityManager } from 'typeorm';
import type { ClusterResourceRow } from '../db/entities/cluster-resource.js';
import { ResourceRepo, type ResourceRecord } from '../db/repos/resources.js';

export type { ResourceRecord };

export interface Ledger {
  readonly clusterId: string;
  /** Resources not yet deleted, oldest first; of one type when given. */
  live(type?: string): Promise<ClusterResourceRow[]>;
  /** Records a resource (again: a no-op; a row marked deleted is revived, the resource being back). */
  record(r: ResourceRecord): Promise<void>;
  markDeleted(service: string, type: string, cloudId: string): Promise<void>;
  /** Every live resource of `type` marked deleted (children gone with their parent). */
  markTypeDeleted(type: string): Promise<void>;
  /** The rows the delete walked go (in the caller's transaction); live ones stay. */
  dropDeleted(em?: EntityManager): Promise<void>;
}

/** The ledger in PostgreSQL (cluster_resource), bound to one cluster. */
export class PgLedger implements Ledger {
  private readonly repo: ResourceRepo;

  constructor(
    ds: DataSource,
    readonly clusterId: string,
  ) {
    this.repo = new ResourceRepo(ds);
  }

  live(type?: string): Promise<ClusterResourceRow[]> {
    return this.repo.live(this.clusterId, type);
  }

  record(r: ResourceRecord): Promise<void> {
    return this.repo.record(this.clusterId, r);
  }

  markDeleted(service: string, type: string, cloudId: string): Promise<void> {
    return this.repo.markDeleted(this.clusterId, service, type, cloudId);
  }

  markTypeDeleted(type: string): Promise<void> {
    return this.repo.markTypeDeleted(this.clusterId, type);
  }

  dropDeleted(em?: EntityManager): Promise<void> {
    return this.repo.dropDeleted(this.clusterId, em);
  }
}
