// Glance answers with plain webob errors (spec openstack-apis §5.4): the page webob chooses from the Accept
// header (common/webob.ts), the message as its explanation: `404 Not Found\n\n<message>\n\n   ` as text.
import type { RenderedError, SimError } from '../common/errors.js';
import { renderWebobError } from '../common/webob.js';

export function renderGlanceError(e: SimError, accept: string | undefined): RenderedError {
  return renderWebobError(e.status, accept, { explanation: e.message });
}
