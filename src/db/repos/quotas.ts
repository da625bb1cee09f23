// Quotas (spec §3.6): one row per (project, resource), and the cluster quota check that the
// cluster create path runs inside its own transaction.
import type { DataSource, EntityManager } from 'typeorm';
import { ClusterEntity } from '../entities/cluster.js';
import { QuotaEntity, type QuotaRow } from '../entities/quota.js';
import { orderAndPage, type Keyset } from './keyset.js';
import { liveHolds, type LiveHold } from './quota-holds.js';

/** The only resource Magnum limits. */
export const CLUSTER_RESOURCE = 'Cluster';

const UNIQUE_VIOLATION = '23505';

export class QuotaRepo {
  constructor(private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(QuotaEntity);
  }

  /** One project's rows, or every project's (`projectId` undefined); the marker is a row id among them. */
  async list(projectId: string | undefined, page: Keyset, markerId: number | undefined): Promise<QuotaRow[] | 'bad-marker'> {
    let marker: QuotaRow | null = null;
    if (markerId) {
      // A row of a project the list does not cover is not found, not a page boundary.
      marker = await this.repo.findOneBy(projectId === undefined ? { id: markerId } : { id: markerId, project_id: projectId });
      if (!marker) return 'bad-marker';
    }
    const qb = this.repo.createQueryBuilder('q');
    if (projectId !== undefined) qb.where('q.project_id = :p', { p: projectId });
    return orderAndPage(qb, 'q', page, marker ?? undefined).getMany();
  }

  find(projectId: string, resource: string): Promise<QuotaRow | null> {
    return this.repo.findOneBy({ project_id: projectId, resource });
  }

  async insert(row: Pick<QuotaRow, 'project_id' | 'resource' | 'hard_limit'>): Promise<QuotaRow | 'duplicate'> {
    try {
      return await this.repo.save({ ...row, created_at: new Date(), updated_at: null });
    } catch (e) {
      if ((e as { code?: string }).code === UNIQUE_VIOLATION) return 'duplicate';
      throw e;
    }
  }

  /** Sets the limit of an existing row; null when there is none. */
  async setLimit(projectId: string, resource: string, hardLimit: number): Promise<QuotaRow | null> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ hard_limit: hardLimit, updated_at: new Date() })
      .where('project_id = :p AND resource = :r', { p: projectId, r: resource })
      .returning('*')
      .execute();
    return (res.raw as QuotaRow[])[0] ?? null;
  }

  /** The project's cluster limit and its clusters now (the create's bill). */
  clusterUsage(projectId: string, defaultLimit: number): Promise<{ limit: number; used: number }> {
    return clusterUsageOf(this.ds.manager, projectId, defaultLimit);
  }

  /** The project's accepted operations' live holds (read without the lock: a bill's preview). */
  holds(projectId: string): Promise<LiveHold[]> {
    return liveHolds(this.ds.manager, projectId);
  }

  /** False when there was no such row. */
  async remove(projectId: string, resource: string): Promise<boolean> {
    const res = await this.repo.delete({ project_id: projectId, resource });
    return (res.affected ?? 0) > 0;
  }
}

/** The project's cluster limit (its `Cluster` row, else `defaultLimit`) and its clusters now, for a bill (not locked). */
export async function clusterUsageOf(em: EntityManager, projectId: string, defaultLimit: number): Promise<{ limit: number; used: number }> {
  const row = await em.getRepository(QuotaEntity).findOneBy({ project_id: projectId, resource: CLUSTER_RESOURCE });
  return { limit: row?.hard_limit ?? defaultLimit, used: await em.getRepository(ClusterEntity).countBy({ project_id: projectId }) };
}

/**
 * The project's cluster limit when it already has as many clusters (its `Cluster` quota row, else
 * `defaultLimit`, max_clusters_per_project); undefined when there is room for one more. Call it
 * inside the transaction that then inserts the cluster row: a transaction-scoped advisory lock per
 * project serialises concurrent creates until commit, so two requests cannot both take the last
 * slot. Needs READ COMMITTED (PostgreSQL's default), so that the count, read after the lock is
 * granted, sees the clusters committed by whoever held it before.
 */
export async function clusterQuotaReached(em: EntityManager, projectId: string, defaultLimit: number): Promise<number | undefined> {
  await em.query(`SELECT pg_advisory_xact_lock(hashtext('cluster-quota:' || $1))`, [projectId]);
  const row = await em.getRepository(QuotaEntity).findOneBy({ project_id: projectId, resource: CLUSTER_RESOURCE });
  const limit = row?.hard_limit ?? defaultLimit;
  const count = await em.getRepository(ClusterEntity).countBy({ project_id: projectId });
  return count >= limit ? limit : undefined;
}
