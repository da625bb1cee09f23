// The node group's wire shapes (spec §3.4): one source for validation, serialization, the OpenAPI
// document and the TypeScript types. node_labels / node_taints exist from microversion 1.14.
import { Type, type Static } from '@sinclair/typebox';
import { NODE_LABELS, NODE_TAINTS_MAX, STRING_MAX, VOLUME_SIZE_MAX } from '../../../../domain/limits.js';
import { Ident, LabelsIn, LabelsOut, Links, ListQuery, MapKey, NBool, NInt, NODE_COUNT_RANGE, NStr, Nullable, QueryStr, Timestamp } from '../../../schemas/common.js';

/** The microversion that adds node_labels and node_taints. */
export { NODE_LABELS_VERSION } from '../../../../domain/microversion.js';
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

const since14 = 'From 1.14 (current Magnum); an unknown attribute below.';

export const NodeTaint = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 316 }),
    value: Type.Optional(Type.String({ maxLength: 63 })),
    effect: Type.Unsafe<(typeof TAINT_EFFECTS)[number]>({ type: 'string', enum: [...TAINT_EFFECTS] }),
  },
  { additionalProperties: false },
);

export const NodeGroupCreate = Type.Partial(
  Type.Object({
    name: NStr(255),
    docker_volume_size: NInt({ minimum: 1, maximum: VOLUME_SIZE_MAX }),
    labels: LabelsIn,
    merge_labels: NBool(),
    flavor_id: NStr(255),
    image_id: NStr(255),
    node_count: NInt(NODE_COUNT_RANGE),
    role: NStr(255),
    min_node_count: NInt(NODE_COUNT_RANGE),
    max_node_count: NInt(NODE_COUNT_RANGE),
    node_labels: Nullable(
      Type.Record(Type.String(), Type.String({ maxLength: NODE_LABELS.valueLength }), {
        description: `Kubernetes labels of the group's nodes. ${since14}`,
        maxProperties: NODE_LABELS.count,
        propertyNames: MapKey(NODE_LABELS.keyLength),
      }),
    ),
    node_taints: Nullable(Type.Array(NodeTaint, { description: `Kubernetes taints of the group's nodes. ${since14}`, maxItems: NODE_TAINTS_MAX })),
  }),
  { additionalProperties: false, $id: 'NodeGroupCreate' },
);
export type NodeGroupCreateT = Static<typeof NodeGroupCreate>;

/** Attributes the views show but a create body may not set (400 "Cannot set read only field."). */
export const READ_ONLY = [
  'id',
  'uuid',
  'cluster_id',
  'project_id',
  'links',
  'node_addresses',
  'is_default',
  'stack_id',
  'status',
  'status_reason',
  'version',
  'labels_overridden',
  'labels_added',
  'labels_skipped',
  'created_at',
  'updated_at',
] as const;

const NS = Nullable(Type.String());

/** What a create answers with: the detail view without what the group does not have yet. */
const known = {
  uuid: Type.String({ format: 'uuid' }),
  name: Type.String(),
  cluster_id: Type.String({ format: 'uuid' }),
  project_id: Type.String(),
  docker_volume_size: Nullable(Type.Integer()),
  labels: LabelsOut,
  labels_overridden: LabelsOut,
  labels_added: LabelsOut,
  labels_skipped: LabelsOut,
  links: Links,
  flavor_id: NS,
  image_id: NS,
  node_count: Type.Integer(),
  role: Type.String(),
  min_node_count: Type.Integer(),
  max_node_count: Nullable(Type.Integer()),
  merge_labels: Type.Boolean({ description: 'Always false on output (an input-only flag).' }),
  node_labels: Type.Optional(Type.Record(Type.String(), Type.String(), { description: since14 })),
  node_taints: Type.Optional(Type.Array(NodeTaint, { description: since14 })),
};

/** The detail view (GET one, PATCH). labels_* are diffed against the cluster's labels. */
export const NodeGroup = Type.Object(
  {
    id: Type.Integer(),
    ...known,
    node_addresses: Type.Array(Type.String()),
    is_default: Type.Boolean(),
    stack_id: NS,
    status: NS,
    status_reason: NS,
    version: NS,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'NodeGroup' },
);
export type NodeGroupT = Static<typeof NodeGroup>;

export const NodeGroupCreated = Type.Object(known, {
  $id: 'NodeGroupCreated',
  description: 'POST answer (202): id, status, stack_id, is_default, node_addresses, version and timestamps are not known yet.',
});

/**
 * The list view: Magnum's reduced set, with the declared defaults of min_node_count,
 * max_node_count and merge_labels leaking in (always 0, null, false whatever the group has).
 */
export const NodeGroupListItem = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Type.String(),
    flavor_id: NS,
    image_id: NS,
    node_count: Type.Integer(),
    role: Type.String(),
    is_default: Type.Boolean(),
    status: NS,
    stack_id: NS,
    min_node_count: Type.Integer({ description: 'Always 0 (wsme default quirk); GET the group for its value.' }),
    max_node_count: Type.Null({ description: 'Always null (wsme default quirk); GET the group for its value.' }),
    merge_labels: Type.Boolean({ description: 'Always false.' }),
  },
  { $id: 'NodeGroupListItem' },
);

export const NodeGroupList = Type.Object(
  { nodegroups: Type.Array(Type.Ref(NodeGroupListItem)), next: Type.Optional(Type.String()) },
  { $id: 'NodeGroupList' },
);

export const ListParams = Type.Object({ cluster: Ident });
export const ItemParams = Type.Object({ cluster: Ident, nodegroup: Type.String({ description: 'Integer id, UUID or name', minLength: 1, maxLength: STRING_MAX }) });

export const NodeGroupListQuery = Type.Object(
  { ...ListQuery.properties, role: Type.Optional(QueryStr({ description: 'Only groups with this role' })) },
  { additionalProperties: false },
);
export type NodeGroupListQueryT = Static<typeof NodeGroupListQuery>;
