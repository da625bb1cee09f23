// What the portal's live views read in bulk: clusters with their node groups (the detail a cluster
// page follows), and the list's summaries with the node counts summed by PostgreSQL in one query, so
// thousands of clusters stay cheap. Never the credential columns.
import type { DataSource } from 'typeorm';
import { In } from 'typeorm';
import { ClusterEntity, type ClusterRow } from '../entities/cluster.js';
import { NodeGroupEntity, type NodeGroupRow } from '../entities/nodegroup.js';
import type { Scope } from './clusters.js';

/** Columns the live views read (never the credential). */
const COLUMNS = [
  'uuid', 'name', 'project_id', 'cluster_template_id', 'status', 'status_reason', 'health_status', 'health_status_reason', 'health_checked_at',
  'coe_version', 'api_address', 'keypair', 'labels', 'conditions', 'created_at', 'updated_at',
] as const;

/** A cluster's row as the list reads it, with its node counts summed over its groups. */
export interface ClusterSummaryRow extends Pick<ClusterRow, (typeof COLUMNS)[number]> {
  master_count: number;
  node_count: number;
}

export class ClusterViewRepo {
  constructor(private readonly ds: DataSource) {}

  /** Clusters in `scope` (all of them, or those of `uuids`), newest first, with their node groups. */
  async withGroups(scope: Scope, uuids?: string[]): Promise<{ cluster: ClusterRow; groups: NodeGroupRow[] }[]> {
    if (uuids && uuids.length === 0) return [];
    const where: Record<string, unknown> = {};
    if (!scope.all) where.project_id = scope.projectId ?? '';
    if (uuids) where.uuid = In(uuids);
    const select = Object.fromEntries(COLUMNS.map((c) => [c, true])) as Record<keyof ClusterRow, true>;
    const rows = await this.ds.getRepository(ClusterEntity).find({ select, where, order: { created_at: 'DESC' } });
    if (rows.length === 0) return [];
    const groups = await this.ds.getRepository(NodeGroupEntity).find({ where: { cluster_id: In(rows.map((r) => r.uuid)) }, order: { id: 'ASC' } });
    const by = new Map<string, NodeGroupRow[]>();
    for (const g of groups) by.set(g.cluster_id, [...(by.get(g.cluster_id) ?? []), g]);
    return rows.map((cluster) => ({ cluster, groups: by.get(cluster.uuid) ?? [] }));
  }

  /** The list's rows in one query, newest first: the clusters in `scope` (or those of `uuids`) and their node counts. */
  async summaries(scope: Scope, uuids?: string[]): Promise<ClusterSummaryRow[]> {
    if (uuids && uuids.length === 0) return [];
    const where: string[] = [];
    const params: unknown[] = [];
    if (!scope.all) {
      params.push(scope.projectId ?? '');
      where.push(`c.project_id = $${params.length}`);
    }
    if (uuids) {
      params.push(uuids);
      where.push(`c.uuid = ANY($${params.length}::uuid[])`);
    }
    const rows = (await this.ds.query(
      `SELECT ${COLUMNS.map((c) => `c.${c}`).join(', ')},
              COALESCE(sum(n.node_count) FILTER (WHERE n.role = 'master'), 0) AS master_count,
              COALESCE(sum(n.node_count) FILTER (WHERE n.role <> 'master'), 0) AS node_count
         FROM cluster c LEFT JOIN nodegroup n ON n.cluster_id = c.uuid
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        GROUP BY c.id ORDER BY c.created_at DESC`,
      params,
    )) as (Omit<ClusterSummaryRow, 'master_count' | 'node_count'> & { master_count: string; node_count: string })[];
    // PostgreSQL's sum() of integers is a bigint, which pg hands over as a string.
    return rows.map((r) => ({ ...r, master_count: Number(r.master_count), node_count: Number(r.node_count) }));
  }
}
