import { EntitySchema } from 'typeorm';

/** The cluster row as far as the foundation needs it; the cluster API extends it by migration. */
export interface ClusterRow {
  id: number;
  uuid: string;
  name: string;
  project_id: string;
  user_id: string;
  cluster_template_id: string;
  status: string;
  created_at: Date;
  updated_at: Date | null;
}

export const ClusterEntity = new EntitySchema<ClusterRow>({
  name: 'Cluster',
  tableName: 'cluster',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    uuid: { type: 'uuid', unique: true },
    name: { type: 'varchar', length: 255 },
    project_id: { type: 'varchar', length: 255 },
    user_id: { type: 'varchar', length: 255 },
    cluster_template_id: { type: 'uuid' },
    status: { type: 'varchar', length: 32 },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz', nullable: true },
  },
});
