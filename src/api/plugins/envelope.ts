// Renders every error in Magnum's envelope (spec §4.1), maps schema validation failures to
// wsme's messages, and answers unknown routes with 404 or 405.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, MicroversionUnsupported, errors, titleOf } from '../../domain/errors.js';
import { transientInfraError } from '../../process/transient.js';
import { format, MAX_VERSION, MIN_VERSION } from '../../domain/microversion.js';
import { routeMatcher } from './route-matcher.js';
import { validationError, type AjvError } from '../../domain/wire-values.js';

export { validationError };

/** Magnum's envelope of one error (spec §4.1). */
export function envelope(err: ApiError) {
  return {
    errors: [
      {
        request_id: '',
        code: err.envelopeCode,
        status: err.status,
        title: err.title ?? titleOf(err.message),
        detail: err.message,
        links: [],
      },
    ],
  };
}

/** The registry's error for anything a route threw (validation, bad JSON, framework 4xx); undefined for the unexpected. */
export function toApiError(err: FastifyError | Error, request: FastifyRequest): ApiError | undefined {
  if (err instanceof ApiError) return err;
  const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fe.validation && fe.validation.length > 0) {
    const ctx = fe.validationContext === 'querystring' ? request.query : fe.validationContext === 'params' ? request.params : request.body;
    return validationError(fe.validation[0]!, ctx);
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) return errors.badJson();
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.bodyTooLarge(request.server.initialConfig.bodyLimit ?? 0);
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError(fe.code ?? 'client', fe.statusCode, fe.message);
  }
  return undefined;
}

export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  reply.code(err.status).headers(err.headers).type('application/json; charset=utf-8');
  if (err.status === 401) {
    // Keystone's shape, not the envelope the route's 401 response schema describes: bypass it.
    return reply.serializer(JSON.stringify).send({ error: { code: 401, title: 'Unauthorized', message: err.message } });
  }
  return reply.send(envelope(err));
}

export function registerEnvelope(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | Error, request, reply) => {
    if (err instanceof MicroversionUnsupported) {
      // Its own shape (spec §1.4), not the envelope a route's 406 response schema describes: bypass it.
      reply.code(406).type('application/json; charset=utf-8').serializer(JSON.stringify);
      return reply.send({
        errors: [
          {
            code: 'magnum.microversion-unsupported',
            title: 'Requested microversion is unsupported',
            max_version: format(MAX_VERSION),
            min_version: format(MIN_VERSION),
            links: [{ rel: 'help', href: 'http://docs.openstack.org/api-guide/compute/microversions.html' }],
            description: err.detail,
          },
        ],
      });
    }
    const apiErr = toApiError(err, request);
    if (apiErr) {
      if (apiErr.status >= 500) request.log.error({ err: apiErr }, 'request failed');
      return sendError(reply, apiErr);
    }
    if (transientInfraError(err)) {
      request.log.warn({ reason: transientInfraError(err) }, 'database or queue unavailable');
      return sendError(reply, errors.backendUnavailable());
    }
    request.log.error({ err }, 'unexpected error');
    return sendError(reply, errors.internal());
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const err = routeMatcher(app).pathExists(path) ? errors.methodNotAllowed() : errors.routeNotFound();
    return sendError(reply, err);
  });
}
