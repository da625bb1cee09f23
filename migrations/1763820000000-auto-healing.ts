import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Auto-healing's memory: for each of a cluster's servers the health check found unhealthy, since
 * when (server name → ISO time). A server that is healthy again, or gone, drops out; one unhealthy
 * for longer than the cluster's grace period is replaced by a `repair` operation.
 */
export class AutoHealing1763820000000 implements MigrationInterface {
  name = 'AutoHealing1763820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cluster ADD COLUMN unhealthy_since jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE cluster DROP COLUMN unhealthy_since');
  }
}
