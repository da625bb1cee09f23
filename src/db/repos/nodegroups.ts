// Queries on the node groups of one cluster, scoped by who asks (admins may read every project).
import type { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { NodeGroupEntity, NODEGROUP_SORTABLE, type NodeGroupRow } from '../entities/nodegroup.js';
import { UUID_SHAPE, type Scope } from './clusters.js';
import { orderAndPage, type Keyset } from './keyset.js';

export { NODEGROUP_SORTABLE };

/** What may change in a node group's row (not its identity). */
export type NodeGroupChanges = Partial<Omit<NodeGroupRow, 'id' | 'uuid' | 'cluster_id' | 'project_id' | 'created_at'>>;

/** Columns stored as jsonb: a keyset marker compares them as JSON text, not as a driver array. */
const JSONB = new Set(
  Object.entries(NodeGroupEntity.options.columns)
    .filter(([, c]) => c?.type === 'jsonb')
    .map(([k]) => k),
);

const INT_ID = /^\d+$/;
const MAX_INT4 = 2147483647;

/** A node group is named by integer id, UUID or name (spec §2). */
export type NodeGroupIdent = { id: number } | { uuid: string } | { name: string } | 'none';

export function parseIdent(ident: string): NodeGroupIdent {
  if (INT_ID.test(ident)) {
    const id = Number(ident);
    return id >= 1 && id <= MAX_INT4 ? { id } : 'none';
  }
  if (UUID_SHAPE.test(ident)) return { uuid: ident.toLowerCase() };
  return { name: ident };
}

export class NodeGroupRepo {
  constructor(private readonly ds: DataSource) {}

  private scoped(clusterUuid: string, scope: Scope, em: EntityManager = this.ds.manager): SelectQueryBuilder<NodeGroupRow> {
    const qb = em.getRepository(NodeGroupEntity).createQueryBuilder('n').where('n.cluster_id = :c', { c: clusterUuid });
    if (!scope.all) qb.andWhere('n.project_id = :p', { p: scope.projectId ?? '' });
    return qb;
  }

  /** One page of a cluster's node groups, optionally of one role; an unknown marker → 'bad-marker'. */
  async list(
    clusterUuid: string,
    scope: Scope,
    role: string | undefined,
    page: Keyset,
    markerUuid: string | undefined,
  ): Promise<NodeGroupRow[] | 'bad-marker'> {
    let marker: Record<string, unknown> | undefined;
    if (markerUuid !== undefined) {
      const found = await this.find(clusterUuid, markerUuid, scope);
      if (found === null || found === 'ambiguous') return 'bad-marker';
      marker = { ...found };
      if (JSONB.has(page.sortKey)) marker[page.sortKey] = JSON.stringify(marker[page.sortKey]);
    }
    const qb = this.scoped(clusterUuid, scope);
    if (role !== undefined) qb.andWhere('n.role = :r', { r: role });
    return orderAndPage(qb, 'n', page, marker).getMany();
  }

  /** By integer id, UUID or name within the cluster; two rows with that name → 'ambiguous'. `lock` takes FOR UPDATE. */
  async find(clusterUuid: string, ident: string, scope: Scope, em?: EntityManager, lock = false): Promise<NodeGroupRow | 'ambiguous' | null> {
    const key = parseIdent(ident);
    if (key === 'none') return null;
    const qb = this.scoped(clusterUuid, scope, em);
    if (lock) qb.setLock('pessimistic_write');
    if ('id' in key) return qb.andWhere('n.id = :id', { id: key.id }).getOne();
    if ('uuid' in key) return qb.andWhere('n.uuid = :u', { u: key.uuid }).getOne();
    const rows = await qb.andWhere('n.name = :n', { n: key.name }).take(2).getMany();
    if (rows.length > 1) return 'ambiguous';
    return rows[0] ?? null;
  }

  async nameTaken(em: EntityManager, clusterUuid: string, name: string): Promise<boolean> {
    return em.getRepository(NodeGroupEntity).exists({ where: { cluster_id: clusterUuid, name } });
  }

  /** Inserts under the caller's transaction; a name the cluster already has → 'duplicate-name'. */
  async insert(em: EntityManager, row: Omit<NodeGroupRow, 'id'>): Promise<NodeGroupRow | 'duplicate-name'> {
    try {
      await em.query('SAVEPOINT nodegroup_insert');
      const result = await em.getRepository(NodeGroupEntity).insert(row as NodeGroupRow);
      await em.query('RELEASE SAVEPOINT nodegroup_insert');
      return { ...row, id: (result.identifiers[0] as { id: number }).id };
    } catch (e) {
      const err = e as { code?: string; constraint?: string; driverError?: { constraint?: string } };
      if (err.code === '23505' && (err.constraint ?? err.driverError?.constraint) === 'nodegroup_name_per_cluster') {
        await em.query('ROLLBACK TO SAVEPOINT nodegroup_insert');
        return 'duplicate-name';
      }
      throw e;
    }
  }

  /** A new cluster's groups, under the caller's transaction. */
  async insertMany(em: EntityManager, rows: Omit<NodeGroupRow, 'id'>[]): Promise<void> {
    await em.getRepository(NodeGroupEntity).insert(rows);
  }

  async update(em: EntityManager, id: number, changes: NodeGroupChanges): Promise<void> {
    await em.getRepository(NodeGroupEntity).update({ id }, changes);
  }

  async updateByUuid(em: EntityManager, uuid: string, changes: NodeGroupChanges): Promise<void> {
    await em.getRepository(NodeGroupEntity).update({ uuid }, changes);
  }

  /** The same change to every node group of the cluster. */
  async updateOfCluster(em: EntityManager, clusterUuid: string, changes: NodeGroupChanges): Promise<void> {
    await em.getRepository(NodeGroupEntity).update({ cluster_id: clusterUuid }, changes);
  }

  async remove(em: EntityManager, uuid: string): Promise<void> {
    await em.getRepository(NodeGroupEntity).delete({ uuid });
  }

  /** The cluster's node groups in a *_IN_PROGRESS status fail with `status` and `reason`. */
  async failInProgress(em: EntityManager, clusterUuid: string, status: string, reason: string): Promise<void> {
    await em.query(`UPDATE nodegroup SET status = $2, status_reason = $3, updated_at = now() WHERE cluster_id = $1 AND status LIKE '%\\_IN\\_PROGRESS'`, [
      clusterUuid,
      status,
      reason,
    ]);
  }
}
