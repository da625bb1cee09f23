// Queries on clusters and their node groups, scoped by who asks (admins may see every project).
import type { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import type { Condition } from '../../domain/cluster-status.js';
import { ClusterEntity, type ClusterRow, type RetiredCredential } from '../entities/cluster.js';
import { NodeGroupEntity, type NodeGroupRow } from '../entities/nodegroup.js';
import { orderAndPage, type Keyset } from './keyset.js';
import { returnedRows } from '../returning.js';

/** Every project (admin widening) or one. */
export type Scope = { all: true } | { all: false; projectId: string | null };

export const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What may change in a cluster's row (not its identity). */
export type ClusterChanges = Partial<Omit<ClusterRow, 'id' | 'uuid' | 'project_id' | 'user_id' | 'created_at'>>;

export interface HealthRecord {
  status: string;
  reason: Record<string, string>;
  checkedAt: Date;
  condition: Condition;
  unhealthySince: Record<string, string>;
}

/** Node counts and addresses summed over a cluster's node groups (Magnum computes them so). */
export interface ClusterTotals {
  node_count: number;
  master_count: number;
  node_addresses: string[];
  master_addresses: string[];
}

export class ClusterRepo {
  constructor(private readonly ds: DataSource) {}

  private scoped(scope: Scope): SelectQueryBuilder<ClusterRow> {
    const qb = this.ds.getRepository(ClusterEntity).createQueryBuilder('c');
    if (!scope.all) qb.where('c.project_id = :p', { p: scope.projectId ?? '' });
    return qb;
  }

  async list(scope: Scope, page: Keyset, markerUuid: string | undefined): Promise<ClusterRow[] | 'bad-marker'> {
    let marker: ClusterRow | null = null;
    if (markerUuid) {
      // Only a cluster the caller may see is a page boundary: another project's is not found.
      marker = await this.scoped(scope).andWhere('c.uuid = :m', { m: markerUuid.toLowerCase() }).getOne();
      if (!marker) return 'bad-marker';
    }
    return orderAndPage(this.scoped(scope), 'c', page, marker ?? undefined).getMany();
  }

  /** By UUID when UUID-shaped, else by name; two clusters with that name → 'ambiguous'. */
  async find(ident: string, scope: Scope): Promise<ClusterRow | 'ambiguous' | null> {
    const qb = this.scoped(scope);
    if (UUID_SHAPE.test(ident)) return qb.andWhere('c.uuid = :u', { u: ident.toLowerCase() }).getOne();
    const rows = await qb.andWhere('c.name = :n', { n: ident }).take(2).getMany();
    if (rows.length > 1) return 'ambiguous';
    return rows[0] ?? null;
  }

  /** Re-reads a cluster by UUID inside a transaction, locked for update. */
  async lock(em: EntityManager, uuid: string): Promise<ClusterRow | null> {
    return em.getRepository(ClusterEntity).createQueryBuilder('c').setLock('pessimistic_write').where('c.uuid = :u', { u: uuid }).getOne();
  }

  /**
   * The current credential joins the retired ones (with its owner) and the row holds none, in one
   * statement: written before Keystone is asked to delete it, so a run killed in between leaves a
   * retired credential to delete, never a current one that no longer logs in. Undefined when the row held none.
   */
  async retireCredential(uuid: string): Promise<RetiredCredential[] | undefined> {
    const result: unknown = await this.ds.query(
      `UPDATE cluster SET
         retired_app_creds = retired_app_creds || jsonb_build_array(jsonb_build_object('id', app_cred_id, 'user_id', coalesce(app_cred_user_id, user_id))),
         app_cred_id = NULL, app_cred_secret = NULL, app_cred_user_id = NULL, updated_at = now()
       WHERE uuid = $1 AND app_cred_id IS NOT NULL
       RETURNING retired_app_creds`,
      [uuid],
    );
    const rows = returnedRows<{ retired_app_creds: RetiredCredential[] }>(result);
    return rows[0]?.retired_app_creds;
  }

  /** A retired credential is gone (deleted in Keystone): the row forgets it, whatever else the list holds now. */
  async forgetRetired(uuid: string, credentialId: string): Promise<void> {
    await this.ds.query(
      `UPDATE cluster SET retired_app_creds = (SELECT coalesce(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(retired_app_creds) e WHERE e->>'id' <> $2)
       WHERE uuid = $1`,
      [uuid, credentialId],
    );
  }

  /** The row goes (node groups, certificates, operations and events with it), in the caller's transaction. */
  async remove(em: EntityManager, uuid: string): Promise<void> {
    await em.getRepository(ClusterEntity).delete({ uuid });
  }

  /** A new cluster's row, under the caller's transaction (its id is the database's). */
  async insert(em: EntityManager, row: Omit<ClusterRow, 'id'>): Promise<void> {
    await em.getRepository(ClusterEntity).insert(row);
  }

  async update(uuid: string, changes: ClusterChanges, em: EntityManager = this.ds.manager): Promise<void> {
    await em.getRepository(ClusterEntity).update({ uuid }, changes);
  }

  /**
   * Clusters in one of `statuses` whose API has an address (the health check's), `limit` at a time
   * in id order after `afterId`: a pass over 100,000 clusters never holds them all. A hibernated cluster is
   * not among them: its API is meant to be silent (and auto-healing must not replace its shelved servers).
   */
  withApiIn(statuses: readonly string[], afterId = 0, limit = 500): Promise<ClusterRow[]> {
    return this.ds
      .getRepository(ClusterEntity)
      .createQueryBuilder('c')
      .where('c.api_address IS NOT NULL')
      .andWhere('c.status IN (:...statuses)', { statuses })
      .andWhere("c.hibernation = 'awake'")
      .andWhere('c.id > :afterId', { afterId })
      .orderBy('c.id', 'ASC')
      .take(limit)
      .getMany();
  }

  /**
   * What a health check found: only the health columns, the `health` condition and the auto-healer's
   * memory, so that an operation that started meanwhile keeps the rest.
   */
  async recordHealth(uuid: string, h: HealthRecord): Promise<void> {
    await this.ds.query(
      `UPDATE cluster SET health_status = $2, health_status_reason = $3, health_checked_at = $4,
         conditions = jsonb_set(conditions, '{health}', $5::jsonb), unhealthy_since = $6::jsonb WHERE uuid = $1`,
      [uuid, h.status, JSON.stringify(h.reason), h.checkedAt, JSON.stringify(h.condition), JSON.stringify(h.unhealthySince)],
    );
  }

  async nodegroups(clusterIds: string[], em: EntityManager = this.ds.manager): Promise<NodeGroupRow[]> {
    if (clusterIds.length === 0) return [];
    return em
      .getRepository(NodeGroupEntity)
      .createQueryBuilder('n')
      .where('n.cluster_id IN (:...ids)', { ids: clusterIds })
      .orderBy('n.id', 'ASC')
      .getMany();
  }
}

export function totals(groups: NodeGroupRow[]): ClusterTotals {
  const t: ClusterTotals = { node_count: 0, master_count: 0, node_addresses: [], master_addresses: [] };
  for (const g of groups) {
    if (g.role === 'master') {
      t.master_count += g.node_count;
      t.master_addresses.push(...g.node_addresses);
    } else {
      t.node_count += g.node_count;
      t.node_addresses.push(...g.node_addresses);
    }
  }
  return t;
}
