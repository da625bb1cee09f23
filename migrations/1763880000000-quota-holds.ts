import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What accepted operations hold of the project's cloud quotas until what they make exists (issue 26 item 5):
 * one row per operation, the amounts its bill takes. A hold counts while its operation is active and until
 * `expires_at`; an operation that ends, or is deleted with its cluster, takes its hold with it.
 */
export class QuotaHolds1763880000000 implements MigrationInterface {
  name = 'QuotaHolds1763880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE quota_hold (
      operation_id uuid PRIMARY KEY REFERENCES operation(id) ON DELETE CASCADE,
      cluster_id uuid NOT NULL,
      project_id varchar(255) NOT NULL,
      amounts jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    )`);
    await q.query('CREATE INDEX quota_hold_project ON quota_hold (project_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE quota_hold');
  }
}
