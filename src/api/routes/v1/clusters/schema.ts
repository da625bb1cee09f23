// The cluster's wire shapes (spec §3.2, §3.3, §3.7): one source for validation, serialization,
// the OpenAPI document and the TypeScript types.
import { Type, type Static } from '@sinclair/typebox';
import {
  CLUSTER_NAME_MAX,
  CREATE_TIMEOUT_MAX,
  NAME_PATTERN,
  MASTER_COUNT_CEILING,
  NODE_COUNT_CEILING,
  STRING_MAX,
  VOLUME_SIZE_MAX,
} from '../../../../domain/limits.js';
import { LabelsIn, LabelsOut, Links, NBool, NInt, NODE_COUNT_RANGE, NStr, Nullable, StringLabelsIn, Timestamp } from '../../../schemas/common.js';

const NAME = { minLength: 1, maxLength: CLUSTER_NAME_MAX, pattern: NAME_PATTERN };
/** The deployment's MAX_MASTER_COUNT may be lower than this ceiling. */
const MASTERS = { minimum: 1, maximum: MASTER_COUNT_CEILING };
const TIMEOUT = { minimum: 0, maximum: CREATE_TIMEOUT_MAX };

/** What both the cluster and the legacy bay create bodies accept. */
const shared = {
  name: Nullable(Type.String(NAME)),
  node_count: NInt(NODE_COUNT_RANGE),
  master_count: NInt(MASTERS),
  docker_volume_size: NInt({ minimum: 1, maximum: VOLUME_SIZE_MAX }),
  labels: LabelsIn,
  master_flavor_id: NStr(255),
  flavor_id: NStr(255),
  discovery_url: NStr(255, 0),
  fixed_network: NStr(255),
  fixed_subnet: NStr(255),
  floating_ip_enabled: NBool(),
  master_lb_enabled: NBool(),
};

export const ClusterCreate = Type.Partial(
  Type.Object({
    ...shared,
    cluster_template_id: NStr(255, 0),
    keypair: NStr(255),
    create_timeout: NInt(TIMEOUT),
    merge_labels: NBool(),
  }),
  { additionalProperties: false, $id: 'ClusterCreate' },
);
export type ClusterCreateT = Static<typeof ClusterCreate>;

export const BayCreate = Type.Partial(
  Type.Object({
    ...shared,
    baymodel_id: NStr(255, 0),
    bay_create_timeout: NInt(TIMEOUT),
    labels: StringLabelsIn,
  }),
  { additionalProperties: false, $id: 'BayCreate' },
);
export type BayCreateT = Static<typeof BayCreate>;

/** Either create body, as the create path reads it (each flavor's schema has refused the other's fields). */
export type CreateBodyT = Omit<ClusterCreateT, 'labels'> & Omit<BayCreateT, 'labels'> & { labels?: ClusterCreateT['labels'] };

/** Attributes a create body may not set (400 "Cannot set read only field."). */
export const READ_ONLY = [
  'uuid',
  'links',
  'stack_id',
  'status',
  'status_reason',
  'api_address',
  'coe_version',
  'container_version',
  'project_id',
  'user_id',
  'node_addresses',
  'master_addresses',
  'created_at',
  'updated_at',
] as const;

const Str = Type.String();
const NS = Nullable(Type.String());
const Addresses = Type.Array(Type.String());

/** The detail view (GET one, /detail). `faults` only for failed clusters; `cluster_id` from 1.13. */
export const Cluster = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Str,
    cluster_template_id: Str,
    keypair: NS,
    docker_volume_size: Nullable(Type.Integer()),
    labels: LabelsOut,
    labels_overridden: LabelsOut,
    labels_added: LabelsOut,
    labels_skipped: LabelsOut,
    master_flavor_id: NS,
    flavor_id: NS,
    create_timeout: Nullable(Type.Integer()),
    links: Links,
    stack_id: NS,
    status: Str,
    status_reason: NS,
    health_status: NS,
    health_status_reason: Nullable(Type.Record(Type.String(), Type.String())),
    discovery_url: NS,
    api_address: NS,
    coe_version: NS,
    container_version: NS,
    project_id: Str,
    user_id: Str,
    node_count: Type.Integer(),
    master_count: Type.Integer(),
    node_addresses: Addresses,
    master_addresses: Addresses,
    fixed_network: NS,
    fixed_subnet: NS,
    floating_ip_enabled: Type.Boolean(),
    master_lb_enabled: Type.Boolean(),
    merge_labels: Type.Boolean(),
    faults: Type.Optional(Type.Record(Type.String(), Type.String())),
    cluster_id: Type.Optional(Type.String({ description: 'From 1.13: the cluster identifier (its UUID).' })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Cluster' },
);
export type ClusterT = Static<typeof Cluster>;

/** The list view: Magnum's reduced set, with merge_labels leaking in as its default. */
export const ClusterListItem = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Str,
    cluster_template_id: Str,
    keypair: NS,
    docker_volume_size: Nullable(Type.Integer()),
    labels: LabelsOut,
    node_count: Type.Integer(),
    master_count: Type.Integer(),
    status: Str,
    health_status: NS,
    master_flavor_id: NS,
    flavor_id: NS,
    create_timeout: Nullable(Type.Integer()),
    stack_id: NS,
    links: Links,
    merge_labels: Type.Boolean(),
    cluster_id: Type.Optional(Str),
  },
  { $id: 'ClusterListItem' },
);

export const ClusterList = Type.Object({ clusters: Type.Array(Type.Ref(ClusterListItem)), next: Type.Optional(Str) }, { $id: 'ClusterList' });
export const ClusterDetailList = Type.Object({ clusters: Type.Array(Type.Ref(Cluster)), next: Type.Optional(Str) }, { $id: 'ClusterDetailList' });

export const Bay = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Str,
    baymodel_id: Str,
    node_count: Type.Integer(),
    master_count: Type.Integer(),
    docker_volume_size: Nullable(Type.Integer()),
    labels: LabelsOut,
    master_flavor_id: NS,
    flavor_id: NS,
    bay_create_timeout: Nullable(Type.Integer()),
    links: Links,
    stack_id: NS,
    status: Str,
    status_reason: NS,
    discovery_url: NS,
    api_address: NS,
    coe_version: NS,
    container_version: NS,
    node_addresses: Addresses,
    master_addresses: Addresses,
    bay_faults: Type.Optional(Type.Record(Type.String(), Type.String())),
    fixed_network: NS,
    fixed_subnet: NS,
    floating_ip_enabled: Type.Boolean(),
    master_lb_enabled: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Bay' },
);

export const BayListItem = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Str,
    baymodel_id: Str,
    docker_volume_size: Nullable(Type.Integer()),
    labels: LabelsOut,
    master_flavor_id: NS,
    flavor_id: NS,
    node_count: Type.Integer(),
    status: Str,
    bay_create_timeout: Nullable(Type.Integer()),
    master_count: Type.Integer(),
    stack_id: NS,
    links: Links,
    floating_ip_enabled: Type.Boolean(),
  },
  { $id: 'BayListItem' },
);

export const BayList = Type.Object({ bays: Type.Array(Type.Ref(BayListItem)), next: Type.Optional(Str) }, { $id: 'BayList' });
export const BayDetailList = Type.Object({ bays: Type.Array(Type.Ref(Bay)), next: Type.Optional(Str) }, { $id: 'BayDetailList' });

export const ResizeBody = Type.Object(
  {
    node_count: Type.Integer(NODE_COUNT_RANGE),
    nodes_to_remove: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: STRING_MAX }), { maxItems: NODE_COUNT_CEILING }))),
    nodegroup: Type.Optional(NStr(255)),
  },
  { additionalProperties: false, $id: 'ClusterResize' },
);
export type ResizeBodyT = Static<typeof ResizeBody>;

export const UpgradeBody = Type.Object(
  {
    cluster_template: Type.String({ minLength: 1, maxLength: STRING_MAX }),
    max_batch_size: Type.Optional(NInt({ minimum: 1, maximum: NODE_COUNT_CEILING })),
    nodegroup: Type.Optional(NStr(255)),
  },
  { additionalProperties: false, $id: 'ClusterUpgrade' },
);
export type UpgradeBodyT = Static<typeof UpgradeBody>;

/** Our extension: the cluster's conditions and event timeline (old clients never ask for it). */
export const ClusterEvents = Type.Object(
  {
    cluster_uuid: Type.String({ format: 'uuid' }),
    status: Str,
    status_reason: NS,
    conditions: Type.Record(
      Type.String(),
      Type.Object({ status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]), reason: Str, message: Str, since: Str }),
    ),
    events: Type.Array(
      Type.Object({
        id: Type.Integer(),
        at: Str,
        type: Str,
        reason: Str,
        message: Str,
        severity: Str,
        operation_id: NS,
      }),
    ),
    next: Type.Optional(Str),
  },
  { $id: 'ClusterEvents' },
);
