import { EntitySchema } from 'typeorm';

/** A node's secrets until its first boot fetches them (migrations/1763870000000-node-material.ts). */
export interface NodeMaterialRow {
  /** SHA-256 (hex) of the one-time token the node's user-data carries; the token itself is never stored. */
  token_hash: string;
  cluster_id: string;
  server_name: string;
  /** Nova's id of the server, once the worker has it: only that server may fetch. */
  server_id: string | null;
  /** The material (src/bootstrap/user-data/material.ts lines) sealed with SECRET_KEYS; null once fetched. */
  material: string | null;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

export const NodeMaterialEntity = new EntitySchema<NodeMaterialRow>({
  name: 'NodeMaterial',
  tableName: 'node_material',
  columns: {
    token_hash: { type: 'char', length: 64, primary: true },
    cluster_id: { type: 'uuid' },
    server_name: { type: 'varchar', length: 255 },
    server_id: { type: 'varchar', length: 64, nullable: true },
    material: { type: 'text', nullable: true },
    expires_at: { type: 'timestamptz' },
    used_at: { type: 'timestamptz', nullable: true },
    created_at: { type: 'timestamptz' },
  },
});
