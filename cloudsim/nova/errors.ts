// Nova's fault envelope (spec openstack-apis §2.9): {"<faultName>": {"code": N, "message": "..."}}.
// Cinder answers in the same shape.
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

/**
 * The renderer of a Nova-shaped service, with its own extra fault names; 413/429 copy
 * Retry-After into `retryAfter`, as Nova and Cinder do (spec §7.4).
 */
export function novaStyleErrors(extraNames: Record<number, string> = {}): (e: SimError) => RenderedError {
  const names = { ...FAULT_NAMES, ...extraNames };
  return (e) => {
    const fault: Record<string, unknown> = { code: e.status, message: e.message };
    const retry = e.headers['retry-after'];
    if ((e.status === 413 || e.status === 429) && retry !== undefined) fault.retryAfter = retry;
    return { contentType: 'application/json', body: { [names[e.status] ?? 'computeFault']: fault } };
  };
}

export const renderNovaError = novaStyleErrors();
