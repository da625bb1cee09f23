// The cluster quota (Magnum's own: `Cluster` rows of /v1/quotas, else max_clusters_per_project) checked in the
// transaction that inserts the cluster, under the project's lock: 403 when the project already has as many
// clusters as it may (see clusterQuotaReached). The bill's `clusters` line reads the same numbers unlocked.
import type { EntityManager } from 'typeorm';
import { clusterQuotaReached } from '../db/repos/quotas.js';
import { errors } from '../domain/errors.js';

export async function checkClusterQuota(em: EntityManager, projectId: string, defaultLimit: number): Promise<void> {
  const limit = await clusterQuotaReached(em, projectId, defaultLimit);
  if (limit !== undefined) throw errors.clusterQuotaExceeded(limit);
}
