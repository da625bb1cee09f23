// The one registry of errors that may leave the API. Each has a stable code, an HTTP
// status and Magnum's message; the error handler renders them in Magnum's envelope.

/** Magnum's `code` field: `client` for 4xx raised by the API, `server` for 5xx, `''` for framework errors. */
export type EnvelopeCode = 'client' | 'server' | '';

export class ApiError extends Error {
  constructor(
    readonly id: string,
    readonly status: number,
    message: string,
    readonly envelopeCode: EnvelopeCode = status >= 500 ? 'server' : 'client',
    /** Framework errors use a fixed title (the reason phrase) instead of the message's first sentence. */
    readonly title?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A label whose value was rejected; carries the label's name and value for the API and the worker. */
export class InvalidLabelError extends ApiError {
  constructor(readonly label: string, readonly value: string, readonly reason: string) {
    super('invalid_label', 400, `Invalid input for label ${label}. Value: '${value}'. ${reason}`);
  }
}

/** A value as an error message shows it: at most ECHO_MAX characters of it (a refused body is not sent back whole). */
const ECHO_MAX = 1024;
function q(v: unknown): string {
  let s: string;
  try {
    s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return s.length > ECHO_MAX ? `${s.slice(0, ECHO_MAX)}... (${s.length} characters)` : s;
}

export const errors = {
  // 400: input
  badJson: () => new ApiError('bad_json', 400, 'Request is not in valid JSON format.'),
  jsonTooDeep: (max: number) => new ApiError('json_too_deep', 400, `Request is not in valid JSON format: it nests more than ${max} levels deep.`),
  nulCharacter: (field: string, value: unknown) =>
    new ApiError('invalid_input', 400, `Invalid input for field/attribute ${field}. Value: '${q(value).replaceAll('\u0000', '\\u0000')}'. Value should not contain the NUL character (U+0000)`),
  bodyTooLarge: (limit: number) =>
    new ApiError('body_too_large', 413, `Request is too large: a request body may hold at most ${limit} bytes.`, '', 'Request Entity Too Large'),
  invalidInput: (field: string, value: unknown, reason: string) =>
    new ApiError('invalid_input', 400, `Invalid input for field/attribute ${field}. Value: '${q(value)}'. ${reason}`),
  unknownAttributes: (arg: string, keys: string[]) =>
    new ApiError(
      'unknown_attribute',
      400,
      `Unknown attribute${keys.length > 1 ? 's' : ''} for argument ${arg}: ${keys.join(', ')}`,
    ),
  unknownArgument: (name: string) => new ApiError('unknown_argument', 400, `Unknown argument: "${name}"`),
  limitNotPositive: () => new ApiError('invalid_limit', 400, 'Limit must be positive'),
  invalidSortKey: (key: string) =>
    new ApiError('invalid_sort_key', 400, `The sort_key value "${key}" is an invalid field for sorting`),
  invalidSortDir: (dir: string) =>
    new ApiError('invalid_sort_dir', 400, `Invalid sort direction: ${dir}. Acceptable values are 'asc' or 'desc'`),
  patchNotList: (value: unknown) =>
    new ApiError('invalid_patch', 400, `Invalid input for field/attribute patch. Value: '${q(value)}'. Value not a valid list`),
  patchFailed: (patch: unknown, reason: string) =>
    new ApiError('patch_failed', 400, `Couldn't apply patch '${q(patch)}'. Reason: ${reason}`),
  patchNeedsValue: () => new ApiError('patch_needs_value', 400, "'add' and 'replace' operations needs value"),
  patchInternal: (path: string) =>
    new ApiError('patch_internal', 400, `'${path}' is an internal attribute and can not be updated`),
  patchMandatory: (path: string) =>
    new ApiError('patch_mandatory', 400, `'${path}' is a mandatory attribute and can not be removed`),
  patchAddRoot: (path: string) =>
    new ApiError('patch_add_root', 400, `Adding a new attribute ${path} to the root of the resource is not allowed.`),
  patchAddExisting: (path: string) =>
    new ApiError('patch_add_existing', 400, `The attribute ${path} has existed, please use 'replace' operation instead.`),
  unsupportedCoe: (coe: unknown) =>
    new ApiError('unsupported_coe', 400, `Requested COE type ${coe ?? 'None'} is not supported.`),
  unsupportedNetworkDriver: (driver: string, coe: string, allowed: string[]) =>
    new ApiError(
      'unsupported_network_driver',
      400,
      `Network driver type ${driver} is not supported, expecting a ${allowed.map((a) => `'${a}'`).join(', ')} network driver for ${coe}.`,
    ),
  unsupportedVolumeDriver: (driver: string, coe: string, allowed: string[]) =>
    new ApiError(
      'unsupported_volume_driver',
      400,
      `Volume driver type ${driver} is not supported, expecting a ${allowed.map((a) => `'${a}'`).join(', ')} volume driver for ${coe}.`,
    ),
  devicemapperSize: () =>
    new ApiError(
      'docker_volume_size',
      400,
      'docker volume size 1 GB is not valid, expecting minimum value 3GB for devicemapper storage',
    ),
  dnsList: (value: string) =>
    new ApiError(
      'invalid_dns',
      400,
      `Expected a single dns address or comma separated dns list, but received ${value}.`,
    ),
  dnsSingle: (value: string) =>
    new ApiError('invalid_dns', 400, `Invalid input for field/attribute dns_nameserver. Value: '${value}'. Expected a single IPv4 address.`),
  clusterTypeUnsupported: (serverType: string, distro: string, coe: string) =>
    new ApiError('cluster_type_unsupported', 400, `Cluster type (${serverType}, ${distro}, ${coe}) not supported.`),
  /** Magnum's first sentence, then why the image cannot boot nodes (the node image contract) and which images can. */
  unsupportedNodeImage: (serverType: string, distro: string, coe: string, image: string, reason: string) =>
    new ApiError('cluster_type_unsupported', 400, `Cluster type (${serverType}, ${distro}, ${coe}) not supported. Image ${image} cannot boot Kubernetes nodes: ${reason}.`),
  imageKubeVersionMismatch: (image: string, imageVersion: string, kubeTag: string) =>
    new ApiError(
      'image_version_mismatch',
      400,
      `Image ${image} carries Kubernetes ${imageVersion} (property kube_version) but the cluster's kube_tag is ${kubeTag}: set the label kube_tag=${imageVersion} or choose an image of ${kubeTag}.`,
    ),
  imageNotFound: (id: string) => new ApiError('image_not_found', 400, `Image ${id} could not be found.`),
  imageNoDistro: (id: string) => new ApiError('image_no_distro', 400, `Image ${id} doesn't contain os_distro field.`),
  flavorNotFound: (id: string) => new ApiError('flavor_not_found', 400, `Unable to find flavor ${id}.`),
  flavorDiskTooSmall: (flavor: string, diskGb: number, image: string, neededGb: number) =>
    new ApiError('flavor_disk_too_small', 400, `Flavor ${flavor}'s disk (${diskGb} GB) is smaller than image ${image} needs (${neededGb} GB, its min_disk or its size). Choose a flavor with a larger disk, or boot the nodes from volumes (label boot_volume_size).`),
  bootVolumeTooSmall: (sizeGb: number, image: string, neededGb: number) =>
    new ApiError('boot_volume_too_small', 400, `The boot volume (label boot_volume_size=${sizeGb}) is smaller than image ${image} needs (${neededGb} GB, its min_disk or its size).`),
  externalNetworkNotFound: (id: string) =>
    new ApiError('external_network_not_found', 400, `Unable to find external network ${id}.`),
  invalidLabel: (name: string, value: string, reason: string) => new InvalidLabelError(name, value, reason),
  templateNotFoundBadRequest: (id: string) => new ApiError('template_not_found', 400, `ClusterTemplate ${id} could not be found.`),
  zeroNodesUnsupported: () =>
    new ApiError('zero_nodes', 400, 'Resizing a nodegroup to zero is not supported in the provided microversion.'),
  masterCountNeedsLb: () => new ApiError('master_count_lb', 400, 'master_count must be 1 when master_lb_enabled is False'),
  availabilityZoneNotOffered: (label: string, zone: string, offered: string[]) =>
    new ApiError(
      'availability_zone_not_offered',
      400,
      `Invalid input for label ${label}. Value: '${zone}'. The cloud offers no availability zone ${zone} (Nova's zones: ${offered.join(', ') || 'none'}).`,
    ),
  networkNotFound: (id: string) => new ApiError('network_not_found', 400, `Unable to find network ${id}.`),
  subnetNotFound: (id: string) => new ApiError('subnet_not_found', 400, `Unable to find subnet ${id}.`),
  restrictedApplicationCredential: () =>
    new ApiError(
      'restricted_application_credential',
      400,
      'The cluster needs its own application credential, and the credential you authenticated with may not create one. Authenticate with a password or an unrestricted application credential.',
    ),
  clusterPropertiesImmutable: (fields: string[]) =>
    new ApiError('cluster_immutable', 400, `cannot change cluster property(ies) ${fields.join(', ')}.`),
  resizeMaster: () => new ApiError('resize_master', 400, 'Resizing a master nodegroup is not supported.'),
  resizeOutOfRange: (ng: string, min: number, max: number | null) =>
    new ApiError('resize_range', 400, `Resizing ${ng} outside the allowed range: min_node_count = ${min}, max_node_count = ${max ?? 'None'}`),
  upgradeUnsupportedVersion: () =>
    new ApiError('upgrade_version', 400, 'Cluster upgrade is not supported in the provided microversion.'),
  upgradeInvalidTag: (label: string) => new ApiError('upgrade_tag', 400, `Received invalid tag for ${label}.`),
  clusterStateUnsupported: (action: 'Upgrading' | 'Updating', status: string) =>
    new ApiError('cluster_state', 400, `${action} a cluster when status is "${status}" is not supported.`),
  templateReferenced: (id: string) =>
    new ApiError('template_referenced', 400, `ClusterTemplate ${id} is referenced by one or multiple clusters.`),
  // certificates (spec §3.5)
  invalidCsr: (reason: string) => new ApiError('invalid_csr', 400, `Received invalid csr: ${reason}.`),
  extensionNotAllowed: (name: string) => new ApiError('extension_not_allowed', 400, `Extension '${name}' not allowed`),
  /** POST /v1/certificates names its cluster in the body: not found is a bad request there. */
  certificateClusterNotFound: (id: string) => new ApiError('cluster_not_found', 400, `Cluster ${id} could not be found.`),
  rotateCaTlsDisabled: () =>
    new ApiError('rotate_ca_tls_disabled', 400, 'Rotating the CA certificate on a non-TLS cluster is not supported.'),
  invalidStatsType: () => new ApiError('invalid_stats_type', 400, "Invalid stats type. Allowed values are 'cluster'"),

  createMasterNodegroup: () =>
    new ApiError('nodegroup_master', 400, 'Creating master nodegroups is currently not supported.'),
  deleteDefaultNodegroup: () =>
    new ApiError('nodegroup_default', 400, 'Deleting a default nodegroup is not supported.'),

  // 401, 403
  unauthorized: (authUrl: string) =>
    new ApiError('unauthorized', 401, 'The request you have made requires authentication.', 'client', 'Unauthorized', {
      'www-authenticate': `Keystone uri="${authUrl}"`,
    }),
  policyDenied: (rule: string) => new ApiError('policy', 403, `Policy doesn't allow ${rule} to be performed.`),
  /** The caller's token lacks the role the cluster's own application credential needs. */
  clusterCredentialRole: (roles: readonly string[]) =>
    new ApiError(
      'cluster_credential_role',
      403,
      `The cluster's application credential needs the role ${roles[0]} in the project (it carries only ${roles.join(', ')} of your roles), and your token does not have it.`,
    ),
  /** The caller's application credential has access rules, and none allows this request. */
  accessRuleDenied: (method: string, path: string) =>
    new ApiError('access_rule', 403, `The access rules of the application credential you authenticated with do not allow ${method} ${path}.`),
  notAuthorizedPublish: () =>
    new ApiError('publish', 403, 'Not authorized to set public or hidden flag for cluster template.'),
  notAuthorizedImage: (id: string) => new ApiError('image_forbidden', 403, `Not authorized for image ${id}.`),
  /**
   * Magnum's ResourceLimitExceeded (403, "Resource limit exceeded: ...") for the cloud's quotas: every short quota
   * with what the request needs, what the project uses and the limit.
   */
  quotaShortage: (short: { quota: string; needed: number; inUse: number; held?: number; limit: number }[]) =>
    new ApiError(
      'quota_shortage',
      403,
      `Resource limit exceeded: the project's quotas leave too little for this request; ${short.map((q) => `${q.quota}: needed ${q.needed}, in use ${q.inUse}, ${q.held ? `held by accepted operations ${q.held}, ` : ''}limit ${q.limit}`).join('; ')}. Ask for a larger quota or a smaller request.`,
    ),
  cloudForbidden: (service: string) => new ApiError('cloud_forbidden', 403, `Not authorized by the ${service} service.`),
  /** What the request asks for needs a role the user lacks in the project (the cluster's credential would lack it too). */
  cloudRoleMissing: (service: string, role: string, what: string, project: string) =>
    new ApiError(
      'cloud_role_missing',
      403,
      `Not authorized by the ${service} service: ${what} needs the role ${role} on project ${project}, which you do not have under this cloud's policy. ` +
        `The cluster's application credential keeps the roles you have when it is made: ask for the role, or ask for no ${what.replace(/^an? /, '')}.`,
    ),
  /** A credential rotation by a user whose roles would not let the new credential manage what the cluster has. */
  rotationRoleMissing: (service: string, role: string, what: string, project: string) =>
    new ApiError(
      'cloud_role_missing',
      403,
      `Not authorized by the ${service} service: ${what} needs the role ${role} on project ${project}, which you do not have under this cloud's policy. ` +
        `A credential you rotate carries only your roles, and with it the cluster could no longer manage or delete ${what.replace(/^the cluster's /, 'its ')}: ask for the role, or let a user who holds it rotate the credential.`,
    ),
  /** Another project's quota or stats asked for by a non-admin. */
  notAuthorized: () => new ApiError('not_authorized', 403, 'Not authorized.'),
  clusterQuotaExceeded: (limit: number) =>
    new ApiError(
      'quota_exceeded',
      403,
      `Resource limit exceeded: You have reached the maximum clusters per project, ${limit}. You may delete a cluster to make room for a new one.`,
    ),

  // 404, 405, 406, 409
  notFound: (kind: string, id: string) => new ApiError('not_found', 404, `${kind} ${id} could not be found.`),
  caNotFound: (cluster: string) => new ApiError('ca_not_found', 404, `The CA certificate of cluster ${cluster} could not be found.`),
  projectNotFound: (id: string) => new ApiError('project_not_found', 404, `The project_id ${id} could not be found.`),
  quotaNotFound: (projectId: string, resource: string) =>
    new ApiError('quota_not_found', 404, `Quota could not be found: project_id ${projectId} resource ${resource}.`),
  /** An unknown list marker (Magnum's wording, stray space included). */
  quotaIdNotFound: (id: number) => new ApiError('quota_not_found', 404, `Quota could not be found: quota id ${id} .`),
  routeNotFound: () =>
    new ApiError('route_not_found', 404, 'The resource could not be found.', '', 'Not Found'),
  methodNotAllowed: () =>
    new ApiError('method_not_allowed', 405, 'The server could not comply with the request since it is either malformed or otherwise incorrect.', '', 'Method Not Allowed'),
  notAcceptable: (detail: string) => new ApiError('not_acceptable', 406, detail, '', 'Not Acceptable'),
  ambiguousName: (plural: string, singular: string) =>
    new ApiError('ambiguous_name', 409, `Multiple ${plural} exist with same name. Please use the ${singular} uuid instead.`),
  quotaExists: (projectId: string, resource: string) =>
    new ApiError('quota_exists', 409, `Quota for project ${projectId} already exists for resource ${resource}.`),
  keypairNotFound: (name: string) => new ApiError('keypair_not_found', 404, `Unable to find keypair ${name}.`),
  clusterStateConflict: (cluster: string, status: string, action: string) =>
    new ApiError('cluster_state_conflict', 409, `Cluster ${cluster} is ${status}: ${action} is not possible in that state.`),
  controlPlaneFixed: (operation: 'upgraded' | 'rotated', reason: string) =>
    new ApiError('control_plane_fixed', 400, `The control plane of this cluster cannot be ${operation === 'upgraded' ? 'upgraded' : 'replaced for a CA rotation'}: ${reason}. Create a cluster with master_lb_enabled or a floating IP to replace its control plane.`),
  upgradeTemplateInvalid: (reason: string) => new ApiError('upgrade_template', 409, `Cluster Template is not valid for upgrade: ${reason}`),
  certificateTtlTooLong: (hours: number, max: number) =>
    new ApiError('certificate_ttl', 400, `Invalid input for field/attribute ttl_hours. Value: '${hours}'. A certificate lives at most ${max} hours here (CLIENT_CERT_TTL_DAYS).`),
  caRotationInProgress: (cluster: string) =>
    new ApiError('ca_rotation_in_progress', 409, `Cluster ${cluster} is rotating its certificate authorities: a certificate signed now would stop working when it ends. Ask again when the rotation has finished.`),
  clusterHibernated: (cluster: string, uuid: string, action: string) =>
    new ApiError('cluster_hibernated', 409, `Cluster ${cluster} is hibernated: ${action} is not possible while its servers are shelved. Wake it first (POST /v1/clusters/${uuid}/actions/wake).`),
  clusterAlreadyHibernated: (cluster: string) =>
    new ApiError('cluster_already_hibernated', 409, `Cluster ${cluster} is already hibernated.`),
  clusterNotHibernated: (cluster: string) =>
    new ApiError('cluster_not_hibernated', 409, `Cluster ${cluster} is not hibernated: there is nothing to wake.`),
  operationInProgress: (cluster: string, kind: string) =>
    new ApiError('operation_in_progress', 409, `Cluster ${cluster} has an operation in progress (${kind}). Try again when it has finished.`),
  multipleImages: (name: string) =>
    new ApiError('image_ambiguous', 409, `Multiple 'images' exist with same name '${name}'. Please use the resource id instead.`),
  multipleExternalNetworks: (id: string) =>
    new ApiError('external_network_ambiguous', 409, `Multiple external networks exist with same name '${id}'. Please use the external network ID instead.`),

  nodegroupExists: (name: string, cluster: string) =>
    new ApiError('nodegroup_exists', 409, `A node group with name ${name} already exists in the cluster ${cluster}.`),
  /** Node counts that contradict each other (min > max, node_count outside [min, max]). */
  nodegroupCounts: (attr: string, nodegroup: string, why: string) =>
    new ApiError('nodegroup_counts', 409, `${attr} for ${nodegroup} is invalid (${why}).`),
  noKeystoneAuth: (cluster: string) =>
    new ApiError('no_keystone_auth', 409, `Cluster ${cluster} does not run k8s-keystone-auth (label keystone_auth_enabled=false): Keystone identities cannot sign in to it; use a certificate (openstack coe cluster config).`),
  clusterApiAddressUnavailable: () => new ApiError('cluster_api_address', 409, 'Cluster API address is not available yet'),
  /** Node groups change only on a settled cluster (Magnum drops such requests silently). */
  clusterNotReadyForNodegroups: (cluster: string, status: string) =>
    new ApiError(
      'cluster_not_ready',
      409,
      `Cluster ${cluster} is ${status}. Node groups can be changed only when the cluster is in a COMPLETE state or UPDATE_FAILED.`,
    ),
  nodegroupNotReady: (nodegroup: string, status: string) =>
    new ApiError(
      'nodegroup_not_ready',
      409,
      `Node group ${nodegroup} is ${status}. It can be updated only when it is in a COMPLETE state, UPDATE_IN_PROGRESS or UPDATE_FAILED.`,
    ),

  // Portal sessions (src/api/portal): a cookie stands for X-Auth-Token only with its CSRF token.
  sessionAndToken: () =>
    new ApiError('session_and_token', 400, 'A request carries either the portal session cookie or X-Auth-Token, never both.'),
  sessionExpired: () =>
    new ApiError('session_expired', 401, 'The portal session has ended or expired; log in again.', 'client', 'Unauthorized', { 'x-portal-session': 'expired' }),
  loginRefused: () => new ApiError('login_refused', 401, 'Keystone refused these credentials.'),
  csrfRefused: (why: string) => new ApiError('csrf_refused', 403, `Cross-site request refused: ${why}.`),
  projectNotInSession: (id: string) =>
    new ApiError('project_not_in_session', 403, `Project ${id} is not one this session may scope to.`),
  loginRateLimited: (seconds: number) =>
    new ApiError('login_rate_limited', 429, `Too many login attempts; try again in ${seconds} seconds.`, 'client', undefined, { 'retry-after': String(seconds) }),
  portalNotBuilt: () =>
    new ApiError('portal_not_built', 503, 'The portal is not built: `npm start` builds it (portal/dist).'),

  // A node's first-boot fetch of its secrets (POST /bootstrap/v1/material)
  nodeMaterialRefused: () => new ApiError('node_material_refused', 401, 'This node material token is not valid.'),
  nodeMaterialUsed: () => new ApiError('node_material_used', 410, 'This node material token was already used: a node fetches its material once.'),
  nodeMaterialExpired: () => new ApiError('node_material_expired', 410, 'This node material token has expired: the node must be replaced to get a new one.'),
  nodeMaterialUnbound: () => new ApiError('node_material_unbound', 409, 'This node material token is not yet bound to its server: ask again shortly.', 'client', undefined, { 'retry-after': '2' }),
  nodeMaterialOtherServer: () => new ApiError('node_material_other_server', 403, 'This node material token belongs to another server.'),
  /** The node closed its side of the connection before the answer: the material is not sent, its token not spent. */
  nodeMaterialClientGone: () =>
    new ApiError('node_material_client_gone', 409, 'The connection was closed by the node before its answer: nothing was taken; ask again on a new connection.', 'client', undefined, { 'retry-after': '2' }),

  // 5xx
  keystoneUnavailable: () =>
    new ApiError('keystone_unavailable', 503, 'The Keystone service is temporarily unavailable.'),
  cloudUnavailable: (service: string) =>
    new ApiError('cloud_unavailable', 503, `The ${service} service is temporarily unavailable.`),
  /** PostgreSQL or Redis unreachable for a moment (a restart, a failover): worth trying again shortly. */
  backendUnavailable: () =>
    new ApiError('backend_unavailable', 503, 'The service is temporarily unavailable: its database or queue did not answer. Try again shortly.', 'server', undefined, { 'retry-after': '2' }),
  internal: () => new ApiError('internal', 500, 'An unexpected error prevented the server from fulfilling your request.'),
};

/** Raised for microversions outside 1.1…1.14: rendered in its own body shape (spec §1.4). */
export class MicroversionUnsupported extends Error {
  constructor(readonly requested: string, readonly detail: string) {
    super(detail);
  }
}

/** Magnum's title: the message up to (not including) its first period. */
export function titleOf(message: string): string {
  const i = message.indexOf('.');
  return i === -1 ? message : message.slice(0, i);
}
