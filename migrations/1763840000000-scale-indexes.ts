import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for tens of thousands of clusters (bench/lists.ts, the soak):
 * - cluster (project_id, id): a project's page in id order (Magnum's default sort), first or deep
 *   after a marker, reads only its rows, however few of the table's they are; it serves the
 *   project-only lookups of the index it replaces too;
 * - operation (cluster_id, created_at): the cluster's latest operation (whose status the cluster
 *   shows, asked on every condition change and operation end) and the delete of a cluster's
 *   operations with it, without reading every operation of the deployment;
 * - operation (created_at) of the queued and running ones: the relay's recovery pass, every
 *   OPERATION_SWEEP_MS in every API process, reads only the active operations.
 */
export class ScaleIndexes1763840000000 implements MigrationInterface {
  name = 'ScaleIndexes1763840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX cluster_project_id_idx ON cluster (project_id, id)`);
    await q.query(`DROP INDEX cluster_project_idx`);
    await q.query(`CREATE INDEX operation_cluster_idx ON operation (cluster_id, created_at)`);
    await q.query(`CREATE INDEX operation_active_idx ON operation (created_at) WHERE state IN ('queued', 'running')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX operation_active_idx`);
    await q.query(`DROP INDEX operation_cluster_idx`);
    await q.query(`CREATE INDEX cluster_project_idx ON cluster (project_id)`);
    await q.query(`DROP INDEX cluster_project_id_idx`);
  }
}
