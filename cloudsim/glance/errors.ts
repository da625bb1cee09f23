// Glance answers with plain webob errors (spec openstack-apis §5.4): JSON when asked for it,
// otherwise the "404 Not Found\n\n<message>" text page.
import { reason, type RenderedError, type SimError } from '../common/errors.js';

export function renderGlanceError(e: SimError, accept: string | undefined): RenderedError {
  const status = `${e.status} ${reason(e.status)}`;
  if (accept?.includes('application/json')) {
    return {
      contentType: 'application/json; charset=UTF-8',
      body: { message: `${e.message}<br /><br />\n\n\n`, code: status, title: reason(e.status) },
    };
  }
  return { contentType: 'text/plain; charset=UTF-8', body: `${status}\n\n${e.message}\n\n   ` };
}
