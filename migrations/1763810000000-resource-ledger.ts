import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The resource ledger: every cloud resource a worker creates for a cluster, written the moment the
 * cloud returns it, and marked deleted when the delete walks it back. No foreign key to the cluster:
 * the ledger outlives a half-deleted cluster row until the delete has finished.
 */
export class ResourceLedger1763810000000 implements MigrationInterface {
  name = 'ResourceLedger1763810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE cluster_resource (
        id bigserial PRIMARY KEY,
        cluster_id uuid NOT NULL,
        service varchar(32) NOT NULL,
        type varchar(64) NOT NULL,
        cloud_id varchar(255) NOT NULL,
        name varchar(255),
        step varchar(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        CONSTRAINT cluster_resource_once UNIQUE (cluster_id, service, type, cloud_id)
      )`);
    await q.query(`CREATE INDEX cluster_resource_live_idx ON cluster_resource (cluster_id) WHERE deleted_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE cluster_resource');
  }
}
