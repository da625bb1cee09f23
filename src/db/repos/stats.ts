// Cluster and node counts for GET /v1/stats (spec §3.8).
import type { DataSource } from 'typeorm';

export interface ClusterStats {
  clusters: number;
  /** node_count summed over every node group of those clusters, masters included. */
  nodes: number;
}

/** One project's counts, or every project's when `projectId` is undefined. */
export async function clusterStats(ds: DataSource, projectId: string | undefined): Promise<ClusterStats> {
  const [row] = (await ds.query(
    `SELECT
       (SELECT count(*) FROM cluster c WHERE $1::text IS NULL OR c.project_id = $1) AS clusters,
       (SELECT coalesce(sum(n.node_count), 0) FROM nodegroup n JOIN cluster c ON c.uuid = n.cluster_id
         WHERE $1::text IS NULL OR c.project_id = $1) AS nodes`,
    [projectId ?? null],
  )) as { clusters: string; nodes: string }[];
  return { clusters: Number(row!.clusters), nodes: Number(row!.nodes) };
}
