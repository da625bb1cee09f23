import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Maintenance windows (issue 28): a cluster's weekly window and automatic upgrade, the start of the latest window
 * the worker claimed (so a restarted or a second worker never runs one twice) and what the latest window did.
 */
export class MaintenanceWindow1763905000000 implements MigrationInterface {
  name = 'MaintenanceWindow1763905000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cluster
      ADD COLUMN maintenance jsonb NULL,
      ADD COLUMN maintenance_claimed timestamptz NULL,
      ADD COLUMN maintenance_last jsonb NULL`);
    await q.query('CREATE INDEX cluster_maintenance ON cluster (id) WHERE maintenance IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX cluster_maintenance');
    await q.query('ALTER TABLE cluster DROP COLUMN maintenance, DROP COLUMN maintenance_claimed, DROP COLUMN maintenance_last');
  }
}
