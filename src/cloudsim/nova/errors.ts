// Nova's fault envelope (spec openstack-apis §2.9): {"<faultName>": {"code": N, "message": "..."}}.
import type { RenderedError, SimError } from '../common/errors.js';

const FAULT_NAMES: Record<number, string> = {
  400: 'badRequest',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'itemNotFound',
  405: 'badMethod',
  409: 'conflictingRequest',
  413: 'overLimit',
  415: 'badMediaType',
  429: 'overLimit',
  501: 'notImplemented',
  503: 'serviceUnavailable',
};

export function renderNovaError(e: SimError): RenderedError {
  const name = FAULT_NAMES[e.status] ?? 'computeFault';
  return { contentType: 'application/json', body: { [name]: { code: e.status, message: e.message } } };
}
