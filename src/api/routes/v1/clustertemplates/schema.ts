// The cluster template's wire shapes (spec §3.1): one source for validation, serialization,
// the OpenAPI document and the TypeScript types.
import { Type, type Static } from '@sinclair/typebox';
import { VOLUME_SIZE_MAX } from '../../../../domain/limits.js';
import { LabelsIn, LabelsOut, Links, NBool, NEnum, NInt, NStr, Nullable, StringLabelsIn, Timestamp } from '../../../schemas/common.js';

export const COES = ['kubernetes', 'swarm', 'swarm-mode', 'mesos', 'dcos'] as const;
export const SERVER_TYPES = ['vm', 'bm'] as const;

/** Attributes a client may set, shared by templates and baymodels. */
const writable = {
  name: NStr(255),
  coe: NEnum(COES),
  image_id: NStr(255),
  flavor_id: NStr(255),
  master_flavor_id: NStr(255),
  keypair_id: NStr(255),
  dns_nameserver: NStr(255),
  external_network_id: NStr(255),
  fixed_network: NStr(255),
  fixed_subnet: NStr(255),
  network_driver: NStr(255),
  volume_driver: NStr(255),
  apiserver_port: NInt({ minimum: 1024, maximum: 65535 }),
  docker_volume_size: NInt({ minimum: 1, maximum: VOLUME_SIZE_MAX }),
  docker_storage_driver: NStr(255),
  cluster_distro: NStr(255),
  http_proxy: NStr(255),
  https_proxy: NStr(255),
  no_proxy: NStr(255),
  insecure_registry: NStr(255),
  registry_enabled: NBool(),
  tls_disabled: NBool(),
  public: NBool(),
  master_lb_enabled: NBool(),
  floating_ip_enabled: NBool(),
  hidden: NBool(),
  server_type: NEnum(SERVER_TYPES),
  labels: LabelsIn,
  tags: NStr(255, 0),
};

export const TemplateCreate = Type.Partial(Type.Object(writable), { additionalProperties: false, $id: 'ClusterTemplateCreate' });
export type TemplateCreateT = Static<typeof TemplateCreate>;

const shown = {
  uuid: Type.String({ format: 'uuid' }),
  name: Type.String(),
  coe: Type.String(),
  image_id: Type.String(),
  flavor_id: Nullable(Type.String()),
  master_flavor_id: Nullable(Type.String()),
  keypair_id: Nullable(Type.String()),
  dns_nameserver: Nullable(Type.String()),
  external_network_id: Nullable(Type.String()),
  fixed_network: Nullable(Type.String()),
  fixed_subnet: Nullable(Type.String()),
  network_driver: Nullable(Type.String()),
  volume_driver: Nullable(Type.String()),
  apiserver_port: Nullable(Type.Integer()),
  docker_volume_size: Nullable(Type.Integer()),
  docker_storage_driver: Nullable(Type.String()),
  cluster_distro: Nullable(Type.String()),
  http_proxy: Nullable(Type.String()),
  https_proxy: Nullable(Type.String()),
  no_proxy: Nullable(Type.String()),
  insecure_registry: Nullable(Type.String()),
  registry_enabled: Type.Boolean(),
  tls_disabled: Type.Boolean(),
  public: Type.Boolean(),
  master_lb_enabled: Type.Boolean(),
  floating_ip_enabled: Type.Boolean(),
  hidden: Type.Boolean(),
  server_type: Type.String(),
  labels: LabelsOut,
  tags: Nullable(Type.String()),
  links: Links,
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const ClusterTemplate = Type.Object(
  { ...shown, project_id: Type.String(), user_id: Type.String() },
  { $id: 'ClusterTemplate' },
);
export type ClusterTemplateT = Static<typeof ClusterTemplate>;

export const ClusterTemplateList = Type.Object(
  { clustertemplates: Type.Array(Type.Ref(ClusterTemplate)), next: Type.Optional(Type.String()) },
  { $id: 'ClusterTemplateList' },
);

// Legacy baymodels: the same storage without project/user, keypair_id mandatory, string labels.
export const BayModelCreate = Type.Partial(
  Type.Object({ ...writable, labels: StringLabelsIn }),
  { additionalProperties: false, $id: 'BayModelCreate' },
);
export type BayModelCreateT = Static<typeof BayModelCreate>;
/** Either create body (baymodels take string labels only). */
export type TemplateBodyT = TemplateCreateT | BayModelCreateT;
export const BayModel = Type.Object(shown, { $id: 'BayModel' });
export const BayModelList = Type.Object(
  { baymodels: Type.Array(Type.Ref(BayModel)), next: Type.Optional(Type.String()) },
  { $id: 'BayModelList' },
);

export const READ_ONLY = ['uuid', 'project_id', 'user_id', 'links', 'created_at', 'updated_at'] as const;
export type WritableKey = keyof typeof writable;
export const WRITABLE_KEYS = Object.keys(writable) as WritableKey[];
