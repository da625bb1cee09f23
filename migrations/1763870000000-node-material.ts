import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A node's secrets, fetched once at its first boot instead of riding in its user-data: the material (sealed),
 * found by the SHA-256 of the one-time token the node's user-data carries, for one server of one cluster
 * (its name at once, its Nova id once the worker has it), until it is used or expires. The row goes with its
 * cluster; a used one keeps no material.
 */
export class NodeMaterial1763870000000 implements MigrationInterface {
  name = 'NodeMaterial1763870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE node_material (
      token_hash char(64) PRIMARY KEY,
      cluster_id uuid NOT NULL REFERENCES cluster(uuid) ON DELETE CASCADE,
      server_name varchar(255) NOT NULL,
      server_id varchar(64),
      material text,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL
    )`);
    await q.query('CREATE INDEX node_material_cluster ON node_material (cluster_id, server_name)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE node_material');
  }
}
