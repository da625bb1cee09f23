import { EntitySchema } from 'typeorm';

export interface ClusterEventRow {
  id: string; // bigserial, as a string
  cluster_id: string;
  operation_id: string | null;
  at: Date;
  /** A condition name (network, api_lb, ...) or `operation`. */
  type: string;
  reason: string;
  message: string;
  severity: 'info' | 'warning' | 'error';
}

export const ClusterEventEntity = new EntitySchema<ClusterEventRow>({
  name: 'ClusterEvent',
  tableName: 'cluster_event',
  columns: {
    id: { type: 'bigint', primary: true, generated: 'increment' },
    cluster_id: { type: 'uuid' },
    operation_id: { type: 'uuid', nullable: true },
    at: { type: 'timestamptz' },
    type: { type: 'varchar', length: 64 },
    reason: { type: 'varchar', length: 128 },
    message: { type: 'text' },
    severity: { type: 'varchar', length: 16 },
  },
});
