// The Fastify skeleton every simulated service shares: request ids, fault injection, the
// keystonemiddleware stage in front of the API, project scoping, and one error handler that
// renders in the service's own envelope.
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { reason, SimError, type ErrorRenderer } from './errors.js';
import type { Faults } from './faults.js';
import { KeystoneUnavailable, type KeystoneAuth, type SimCaller } from './keystone-auth.js';

export interface ServiceAppOptions {
  auth: KeystoneAuth;
  faults: Faults;
  renderError: ErrorRenderer;
  /** Headers carrying the request id besides x-openstack-request-id (Nova: x-compute-request-id). */
  requestIdHeaders?: string[];
  /** Routes served without a token (version documents). */
  publicRoutes(app: FastifyInstance): void;
  /** Routes behind token validation; the caller is `callerOf(request)`. */
  routes(scope: FastifyInstance): void;
}

const callers = new WeakMap<FastifyRequest, SimCaller>();

/** The validated, project-scoped caller of a request under `routes`. */
export function callerOf(request: FastifyRequest): SimCaller & { projectId: string } {
  const caller = callers.get(request);
  if (!caller?.projectId) throw new SimError(500, 'no caller on an authenticated route');
  return caller as SimCaller & { projectId: string };
}

/** The scheme, host and port the client used: services build their absolute links from it. */
export const hostUrl = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

/** keystonemiddleware's own answers (401, 503) are not in the service's envelope. */
function middlewareReply(reply: FastifyReply, status: number, message: string, authUrl: string): FastifyReply {
  if (status === 401) reply.header('www-authenticate', `Keystone uri="${authUrl}"`);
  return reply.code(status).type('application/json').send({ error: { code: status, title: reason(status), message } });
}

const DEFAULT_MESSAGES: Record<number, string> = {
  500: 'An unknown exception occurred.',
  503: 'The server is currently unavailable. Please try again at a later time.',
};

export function createServiceApp(opts: ServiceAppOptions): FastifyInstance {
  const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  const headers = ['x-openstack-request-id', ...(opts.requestIdHeaders ?? [])];

  app.addHook('onRequest', async (request, reply) => {
    const id = `req-${randomUUID()}`;
    for (const h of headers) reply.header(h, id);
    const fault = opts.faults.take(request.method, request.url);
    if (fault?.delayMs) await sleep(fault.delayMs);
    if (fault?.status !== undefined) {
      throw new SimError(fault.status, fault.message ?? DEFAULT_MESSAGES[fault.status] ?? reason(fault.status));
    }
  });

  app.setErrorHandler((err: FastifyError | SimError, request, reply) => {
    let e: SimError;
    if (err instanceof SimError) e = err;
    else if ('validation' in err && err.validation) e = new SimError(400, err.message);
    else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) e = new SimError(err.statusCode, err.message);
    else e = new SimError(500, DEFAULT_MESSAGES[500]!);
    const rendered = opts.renderError(e, request.headers.accept);
    return reply.code(e.status).headers(e.headers).type(rendered.contentType).send(rendered.body);
  });

  app.setNotFoundHandler((request, reply) => {
    const rendered = opts.renderError(new SimError(404, 'The resource could not be found.'), request.headers.accept);
    return reply.code(404).type(rendered.contentType).send(rendered.body);
  });

  opts.publicRoutes(app);
  void app.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      const token = request.headers['x-auth-token'];
      let caller: SimCaller | undefined;
      try {
        caller = typeof token === 'string' ? await opts.auth.validate(token) : undefined;
      } catch (e) {
        if (e instanceof KeystoneUnavailable) {
          return middlewareReply(reply, 503, 'The Keystone service is temporarily unavailable.', opts.auth.authUrl);
        }
        throw e;
      }
      if (!caller) return middlewareReply(reply, 401, 'The request you have made requires authentication.', opts.auth.authUrl);
      // Every API of these services is project-scoped under the default policies.
      if (caller.projectId === undefined) throw new SimError(403, 'Policy does not allow this request: the token is not scoped to a project.');
      callers.set(request, caller);
    });
    opts.routes(scope);
  });
  return app;
}
