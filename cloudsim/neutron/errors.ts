// Neutron's error envelope (spec openstack-apis §3.5): {"NeutronError": {type, message, detail}}.
import type { RenderedError, SimError } from '../common/errors.js';
import { renderWebobError } from '../common/webob.js';

/** The type of an error Neutron leaves to webob (pecan's abort on the extension routes): a webob page, no NeutronError. */
export const WEBOB = 'webob';

const DEFAULT_TYPES: Record<number, string> = {
  400: 'HTTPBadRequest',
  401: 'HTTPUnauthorized',
  403: 'HTTPForbidden',
  404: 'HTTPNotFound',
  405: 'HTTPMethodNotAllowed',
  409: 'HTTPConflict',
  500: 'HTTPInternalServerError',
  503: 'ServiceUnavailable',
};

export function renderNeutronError(e: SimError, accept?: string): RenderedError {
  if (e.type === WEBOB) return renderWebobError(e.status, accept, { detail: e.message });
  if (e.status === 501) return { contentType: 'application/json', body: { NotImplementedError: { type: 'NotImplementedError', message: e.message, detail: '' } } };
  const type = e.type ?? DEFAULT_TYPES[e.status] ?? 'HTTPError';
  const message = e.status === 500 && !e.type ? 'Request Failed: internal server error while processing your request.' : e.message;
  return { contentType: 'application/json', body: { NeutronError: { type, message, detail: '' } } };
}
