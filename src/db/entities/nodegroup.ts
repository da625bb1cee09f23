import { EntitySchema } from 'typeorm';

export interface NodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface NodeGroupRow {
  id: number;
  uuid: string;
  name: string;
  cluster_id: string;
  project_id: string;
  docker_volume_size: number | null;
  labels: Record<string, string>;
  flavor_id: string | null;
  image_id: string | null;
  node_addresses: string[];
  node_count: number;
  role: string;
  min_node_count: number;
  max_node_count: number | null;
  is_default: boolean;
  stack_id: string | null;
  status: string | null;
  status_reason: string | null;
  /** Kubernetes version the group runs (e.g. v1.35.2). */
  version: string | null;
  /** 1.14: labels and taints put on the group's Kubernetes nodes. */
  node_labels: Record<string, string> | null;
  node_taints: NodeTaint[] | null;
  created_at: Date;
  updated_at: Date | null;
}

export const NodeGroupEntity = new EntitySchema<NodeGroupRow>({
  name: 'NodeGroup',
  tableName: 'nodegroup',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    uuid: { type: 'uuid', unique: true },
    name: { type: 'varchar', length: 255 },
    cluster_id: { type: 'uuid' },
    project_id: { type: 'varchar', length: 255 },
    docker_volume_size: { type: 'int', nullable: true },
    labels: { type: 'jsonb' },
    flavor_id: { type: 'varchar', length: 255, nullable: true },
    image_id: { type: 'varchar', length: 255, nullable: true },
    node_addresses: { type: 'jsonb' },
    node_count: { type: 'int' },
    role: { type: 'varchar', length: 255 },
    min_node_count: { type: 'int' },
    max_node_count: { type: 'int', nullable: true },
    is_default: { type: 'boolean' },
    stack_id: { type: 'varchar', length: 255, nullable: true },
    status: { type: 'varchar', length: 32, nullable: true },
    status_reason: { type: 'text', nullable: true },
    version: { type: 'varchar', length: 20, nullable: true },
    node_labels: { type: 'jsonb', nullable: true },
    node_taints: { type: 'jsonb', nullable: true },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz', nullable: true },
  },
});

export const NODEGROUP_SORTABLE = new Set(Object.keys(NodeGroupEntity.options.columns));
