// The Fastify skeleton every simulated service shares: request ids, call counters, fault
// injection, the keystonemiddleware stage in front of the API, project scoping, and one error
// handler that renders in the service's own envelope.
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { CallCounter, operationOf } from './audit.js';
import { reason, SimError, type ErrorRenderer } from './errors.js';
import type { Faults } from './faults.js';
import { KeystoneUnavailable, type KeystoneAuth, type SimCaller } from './keystone-auth.js';
import { RequestSchemas, type BodyCheck, type RequestSchemaOptions } from './openapi-validation.js';

export interface ServiceAppOptions {
  auth: KeystoneAuth;
  faults: Faults;
  renderError: ErrorRenderer;
  /** Headers carrying the request id besides x-openstack-request-id (Nova: x-compute-request-id). */
  requestIdHeaders?: string[];
  /**
   * The service's OpenAPI document: JSON bodies of the operations it describes are checked
   * against it (after the token, before the route's own checks); a failure answers 400.
   */
  requestSchemas?: RequestSchemaOptions;
  /** Routes served without a token (version documents). */
  publicRoutes(app: FastifyInstance): void;
  /** Routes behind token validation; the caller is `callerOf(request)`. */
  routes(scope: FastifyInstance): void;
}

const callers = new WeakMap<FastifyRequest, SimCaller>();
const counters = new WeakMap<FastifyInstance, CallCounter>();
const schemas = new WeakMap<FastifyInstance, RequestSchemas>();

/** The document checks of a service app (undefined without `requestSchemas`): which operations its routes serve. */
export const requestSchemasOf = (app: FastifyInstance): RequestSchemas | undefined => schemas.get(app);

/** The calls a service app has answered, per operation (`POST /servers`); unknown routes are not counted. */
export function callCounter(app: FastifyInstance): CallCounter {
  let counter = counters.get(app);
  if (!counter) {
    counter = new CallCounter();
    counters.set(app, counter);
  }
  return counter;
}

/** Closes the client's connection without an answer; Fastify sends nothing more for this request. */
function dropConnection(request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  request.raw.socket.destroy();
}

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
  // OpenStack's services take path segments of any length (an unknown 255-character id is a 404), not Fastify's 100.
  const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true, maxParamLength: 8192 } });
  // An empty JSON body is no body: clients (designateclient) send DELETE with a JSON content type.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new SimError(400, 'Malformed request body'), undefined);
    }
  });
  const headers = ['x-openstack-request-id', ...(opts.requestIdHeaders ?? [])];
  const calls = callCounter(app);
  // Calls whose answer a `lost` fault swallows once the work is done.
  const lost = new WeakSet<FastifyRequest>();

  if (opts.requestSchemas) {
    const documented = new RequestSchemas(opts.requestSchemas);
    schemas.set(app, documented);
    // Routes are matched to the document's operations once, as they are registered.
    const checks = new Map<string, BodyCheck>();
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        const check = documented.forRoute(method, route.url);
        if (check) checks.set(`${method} ${route.url}`, check);
      }
    });
    app.addHook('preValidation', async (request) => {
      const check = checks.get(`${request.method} ${request.routeOptions.url ?? ''}`);
      const failure = check?.(request.body);
      if (failure) throw failure;
    });
  }

  app.addHook('onResponse', async () => calls.answered());
  app.addHook('onRequest', async (request, reply) => {
    const id = `req-${randomUUID()}`;
    for (const h of headers) reply.header(h, id);
    const route = request.routeOptions.url;
    const operation = route === undefined ? undefined : operationOf(request.method, route);
    if (operation !== undefined) calls.hit(operation);
    const fault = opts.faults.take(request.method, request.url, operation);
    if (!fault) return;
    if (fault.delayMs) await sleep(fault.delayMs);
    switch (fault.action) {
      case 'error': {
        const status = fault.status ?? 500;
        throw new SimError(status, fault.message ?? DEFAULT_MESSAGES[status] ?? reason(status));
      }
      case 'drop':
        dropConnection(request, reply);
        return reply;
      case 'lost':
        lost.add(request);
        return;
      case 'slow':
        return;
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (lost.has(request)) dropConnection(request, reply);
    return payload;
  });

  app.setErrorHandler((err: FastifyError | SimError, request, reply) => {
    let e: SimError;
    if (err instanceof SimError) e = err;
    else if ('validation' in err && err.validation) e = new SimError(400, err.message);
    else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) e = new SimError(err.statusCode, err.message);
    else e = new SimError(500, DEFAULT_MESSAGES[500]!);
    const rendered = opts.renderError(e, request.headers.accept, String(reply.getHeader('x-openstack-request-id') ?? ''));
    return reply.code(e.status).headers(e.headers).type(rendered.contentType).send(rendered.body);
  });

  app.setNotFoundHandler((request, reply) => {
    const requestId = String(reply.getHeader('x-openstack-request-id') ?? '');
    const rendered = opts.renderError(new SimError(404, 'The resource could not be found.'), request.headers.accept, requestId);
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
