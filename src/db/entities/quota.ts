import { EntitySchema } from 'typeorm';

export interface QuotaRow {
  id: number;
  project_id: string;
  resource: string;
  hard_limit: number;
  created_at: Date;
  updated_at: Date | null;
}

export const QuotaEntity = new EntitySchema<QuotaRow>({
  name: 'Quota',
  tableName: 'quota',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    project_id: { type: 'varchar', length: 255 },
    resource: { type: 'varchar', length: 255 },
    hard_limit: { type: 'int' },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz', nullable: true },
  },
});

export const QUOTA_SORTABLE = new Set(Object.keys(QuotaEntity.options.columns));
