// Designate's error envelope: {"code", "type", "message", "request_id"} at the top level, the
// `type` being the snake_case name of the exception (duplicate_zone, zone_not_found...); schema
// failures add the list of problems under `errors`.
import { SimError, type RenderedError } from '../common/errors.js';

export class DesignateError extends SimError {
  constructor(
    status: number,
    type: string,
    message: string,
    /** Schema problems (invalid_object). */
    readonly errors?: { path: string[]; message: string; validator: string }[],
  ) {
    super(status, message, type);
  }
}

export const dnsErrors = {
  duplicateZone: () => new DesignateError(409, 'duplicate_zone', 'Duplicate Zone'),
  duplicateRecordSet: () => new DesignateError(409, 'duplicate_recordset', 'Duplicate RecordSet'),
  zoneNotFound: () => new DesignateError(404, 'zone_not_found', 'Could not find Zone'),
  recordSetNotFound: () => new DesignateError(404, 'recordset_not_found', 'Could not find RecordSet'),
  invalidUuid: (param: string, value: string) => new DesignateError(400, 'invalid_uuid', `Invalid UUID ${param}: ${value}`),
  badRequest: (message: string) => new DesignateError(400, 'bad_request', message),
  valueError: (message: string) => new DesignateError(400, 'value_error', message),
  invalidZoneName: (message: string) => new DesignateError(400, 'invalid_zone_name', message),
  invalidLocation: (message: string) => new DesignateError(400, 'invalid_recordset_location', message),
  illegalChild: () => new DesignateError(403, 'illegal_child', "Unable to create subzone in another tenants zone"),
  forbidden: () => new DesignateError(403, 'forbidden', 'You are not authorized to perform the requested action.'),
  overQuota: (resource: string) => new DesignateError(413, 'over_quota', `Quota exceeded for ${resource}.`),
  /** A body that does not match the schema: one problem per field. */
  invalidObject: (path: string, message: string, validator = 'type') =>
    new DesignateError(400, 'invalid_object', 'Provided object does not match schema', [{ path: [path], message, validator }]),
};

const DEFAULT_TYPES: Record<number, string> = {
  400: 'bad_request',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'duplicate',
  413: 'over_quota',
  503: 'service_unavailable',
};

export function renderDesignateError(e: SimError, _accept: string | undefined, requestId: string): RenderedError {
  const body: Record<string, unknown> = {
    code: e.status,
    type: e.type ?? DEFAULT_TYPES[e.status] ?? 'unknown',
    message: e.message,
  };
  if (e instanceof DesignateError && e.errors) body.errors = { errors: e.errors };
  body.request_id = requestId;
  return { contentType: 'application/json', body };
}
