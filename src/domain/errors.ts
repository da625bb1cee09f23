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

const q = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

export const errors = {
  // 400: input
  badJson: () => new ApiError('bad_json', 400, 'Request is not in valid JSON format.'),
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
  imageNotFound: (id: string) => new ApiError('image_not_found', 400, `Image ${id} could not be found.`),
  imageNoDistro: (id: string) => new ApiError('image_no_distro', 400, `Image ${id} doesn't contain os_distro field.`),
  flavorNotFound: (id: string) => new ApiError('flavor_not_found', 400, `Unable to find flavor ${id}.`),
  externalNetworkNotFound: (id: string) =>
    new ApiError('external_network_not_found', 400, `Unable to find external network ${id}.`),
  invalidLabel: (name: string, value: string, reason: string) => new InvalidLabelError(name, value, reason),
  templateReferenced: (id: string) =>
    new ApiError('template_referenced', 400, `ClusterTemplate ${id} is referenced by one or multiple clusters.`),

  // 401, 403
  unauthorized: (authUrl: string) =>
    new ApiError('unauthorized', 401, 'The request you have made requires authentication.', 'client', 'Unauthorized', {
      'www-authenticate': `Keystone uri="${authUrl}"`,
    }),
  policyDenied: (rule: string) => new ApiError('policy', 403, `Policy doesn't allow ${rule} to be performed.`),
  notAuthorizedPublish: () =>
    new ApiError('publish', 403, 'Not authorized to set public or hidden flag for cluster template.'),
  notAuthorizedImage: (id: string) => new ApiError('image_forbidden', 403, `Not authorized for image ${id}.`),
  cloudForbidden: (service: string) => new ApiError('cloud_forbidden', 403, `Not authorized by the ${service} service.`),

  // 404, 405, 406, 409
  notFound: (kind: string, id: string) => new ApiError('not_found', 404, `${kind} ${id} could not be found.`),
  routeNotFound: () =>
    new ApiError('route_not_found', 404, 'The resource could not be found.', '', 'Not Found'),
  methodNotAllowed: () =>
    new ApiError('method_not_allowed', 405, 'The server could not comply with the request since it is either malformed or otherwise incorrect.', '', 'Method Not Allowed'),
  notAcceptable: (detail: string) => new ApiError('not_acceptable', 406, detail, '', 'Not Acceptable'),
  ambiguousName: (plural: string, singular: string) =>
    new ApiError('ambiguous_name', 409, `Multiple ${plural} exist with same name. Please use the ${singular} uuid instead.`),
  operationInProgress: (cluster: string, kind: string) =>
    new ApiError('operation_in_progress', 409, `Cluster ${cluster} has an operation in progress (${kind}). Try again when it has finished.`),
  multipleImages: (name: string) =>
    new ApiError('image_ambiguous', 409, `Multiple 'images' exist with same name '${name}'. Please use the resource id instead.`),
  multipleExternalNetworks: (id: string) =>
    new ApiError('external_network_ambiguous', 409, `Multiple external networks exist with same name '${id}'. Please use the external network ID instead.`),

  // 5xx
  keystoneUnavailable: () =>
    new ApiError('keystone_unavailable', 503, 'The Keystone service is temporarily unavailable.'),
  cloudUnavailable: (service: string) =>
    new ApiError('cloud_unavailable', 503, `The ${service} service is temporarily unavailable.`),
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
