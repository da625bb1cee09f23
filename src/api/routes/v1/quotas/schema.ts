// The quota's wire shapes (spec §3.6).
import { Type, type Static } from '@sinclair/typebox';
import { INT4_MAX, STRING_MAX } from '../../../../domain/limits.js';
import { QueryStr, Timestamp } from '../../../schemas/common.js';

export const QUOTA_RESOURCES = ['Cluster'] as const;

const Resource = Type.Unsafe<(typeof QUOTA_RESOURCES)[number]>({ type: 'string', enum: [...QUOTA_RESOURCES], default: 'Cluster' });
const HardLimit = Type.Integer({ minimum: 0, maximum: INT4_MAX, default: 1 });
const ProjectId = Type.String({ minLength: 1, maxLength: STRING_MAX });

export const Quota = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: 'absent when no quota is set and the default applies' })),
    project_id: Type.String(),
    resource: Type.String(),
    hard_limit: Type.Integer(),
    created_at: Type.Optional(Timestamp),
    updated_at: Type.Optional(Timestamp),
  },
  { $id: 'Quota' },
);
export type QuotaT = Static<typeof Quota>;

export const QuotaList = Type.Object({ quotas: Type.Array(Type.Ref(Quota)), next: Type.Optional(Type.String()) }, { $id: 'QuotaList' });

export const QuotaCreate = Type.Object(
  { project_id: ProjectId, resource: Type.Optional(Resource), hard_limit: Type.Optional(HardLimit) },
  { additionalProperties: false, $id: 'QuotaCreate' },
);
export type QuotaCreateT = Static<typeof QuotaCreate>;

/**
 * PATCH takes a quota object, not a JSON patch; the path names the row, and a missing hard_limit means 1. Its `id`
 * is accepted and ignored, as Magnum's Quota type declares it writable (Horizon's magnum-ui sends the row's).
 */
export const QuotaUpdate = Type.Object(
  {
    id: Type.Optional(Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'Accepted and ignored (Magnum’s; the path names the row).' })),
    project_id: Type.Optional(ProjectId),
    resource: Type.Optional(Resource),
    hard_limit: Type.Optional(HardLimit),
  },
  { additionalProperties: false, $id: 'QuotaUpdate' },
);
export type QuotaUpdateT = Static<typeof QuotaUpdate>;

export const QuotaListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer()),
    marker: Type.Optional(Type.Integer({ description: 'id of the last quota of the previous page', minimum: 0, maximum: INT4_MAX })),
    sort_key: Type.Optional(QueryStr()),
    sort_dir: Type.Optional(QueryStr()),
    all_tenants: Type.Optional(Type.Boolean({ description: 'every project’s quotas instead of the caller’s' })),
  },
  { additionalProperties: false },
);
export type QuotaListQueryT = Static<typeof QuotaListQuery>;

export const QuotaParams = Type.Object({ project_id: ProjectId, resource: Type.String({ minLength: 1, maxLength: STRING_MAX }) });

export const READ_ONLY = ['id', 'created_at', 'updated_at'] as const;
/** A PATCH body may name the row's id (ignored): only the timestamps are read-only there. */
export const UPDATE_READ_ONLY = ['created_at', 'updated_at'] as const;
