import { EntitySchema } from 'typeorm';
import type { OperationKind, OperationParams, OperationState } from '../../domain/operations.js';

export interface OperationRow {
  id: string;
  cluster_id: string;
  kind: OperationKind;
  params: OperationParams;
  state: OperationState;
  error: string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date | null;
  enqueued_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
}

export const OperationEntity = new EntitySchema<OperationRow>({
  name: 'Operation',
  tableName: 'operation',
  columns: {
    id: { type: 'uuid', primary: true },
    cluster_id: { type: 'uuid' },
    kind: { type: 'varchar', length: 32 },
    params: { type: 'jsonb' },
    state: { type: 'varchar', length: 16 },
    error: { type: 'text', nullable: true },
    attempts: { type: 'int' },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz', nullable: true },
    enqueued_at: { type: 'timestamptz', nullable: true },
    started_at: { type: 'timestamptz', nullable: true },
    finished_at: { type: 'timestamptz', nullable: true },
  },
});
