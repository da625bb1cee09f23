// A cluster's event timeline (GET /v1/clusters/{id}/events): written by whoever starts, runs or
// ends an operation, or changes a condition; read in id order.
import type { DataSource, EntityManager } from 'typeorm';
import { boundedMessage } from '../../domain/limits.js';
import { ClusterEventEntity, type ClusterEventRow } from '../entities/cluster-event.js';

export type NewEvent = Omit<ClusterEventRow, 'id'>;

export class ClusterEventRepo {
  constructor(private readonly ds: DataSource) {}

  async insert(event: NewEvent, em: EntityManager = this.ds.manager): Promise<void> {
    // A message may quote what a tenant's servers answered: the list and the streams never carry more than MESSAGE_MAX of it.
    await em.getRepository(ClusterEventEntity).insert({ ...event, message: boundedMessage(event.message) });
  }

  /** Up to `limit` events of the cluster after the event id `marker`, oldest first. */
  page(clusterId: string, limit: number, marker?: number): Promise<ClusterEventRow[]> {
    const qb = this.ds.getRepository(ClusterEventEntity).createQueryBuilder('e').where('e.cluster_id = :c', { c: clusterId });
    if (marker !== undefined) qb.andWhere('e.id > :m', { m: marker });
    return qb.orderBy('e.id', 'ASC').take(limit).getMany();
  }

  /** The cluster's latest `limit` events, oldest first. */
  async latest(clusterId: string, limit: number): Promise<ClusterEventRow[]> {
    const newest = await this.ds.getRepository(ClusterEventEntity).createQueryBuilder('e').where('e.cluster_id = :c', { c: clusterId }).orderBy('e.id', 'DESC').take(limit).getMany();
    return newest.reverse();
  }
}
