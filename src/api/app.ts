// Builds the API as a Fastify instance; only src/main.ts listens. Layers: HTTP plumbing
// (parsers, envelope, request ids) → Keystone auth → microversions → input coercion → routes.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Config } from '../config.js';
import { errors } from '../domain/errors.js';
import { registerAuth } from './plugins/auth.js';
import { createPortalSessions, registerPortal, type PortalOptions } from './portal/index.js';
import { registerCoercion } from './plugins/coerce.js';
import { checkBody, registerInputGuard } from './plugins/input-guard.js';
import { registerEnvelope } from './plugins/envelope.js';
import { trackRoutes } from './plugins/route-matcher.js';
import { registerVersioning } from './plugins/versioning.js';
import { openapiInfo, sharedSchemas } from './openapi.js';
import { opsRoutes } from './routes/ops.js';
import { v1Routes } from './routes/v1/index.js';
import { rewriteToV1, versionRoutes } from './routes/versions.js';
import { createServices, type Services } from './services.js';
import type { Billed } from '../preflight/quotas.js';

const REDACT = ['req.headers.cookie', 'req.headers["x-csrf-token"]', 'req.headers["x-auth-token"]', 'req.headers["x-subject-token"]', 'req.headers.authorization'];

function parseJsonBody(body: string | Buffer): unknown {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw errors.badJson();
  }
  checkBody(parsed);
  return parsed;
}

interface CommonOptions {
  logger?: boolean;
  /** Where log lines go instead of stdout (e.g. a test reading them). */
  logStream?: NodeJS.WritableStream;
  /** Where the built portal is (tests); portal/dist by default. */
  portal?: PortalOptions;
}

/**
 * Services made elsewhere (closed by their owner), or the create graph's steps (their bills make the quota
 * bill) for the services the app then makes and closes itself.
 */
export type BuildOptions = CommonOptions & ({ services: Services } | { services?: undefined; steps: readonly Billed[] });

export async function buildApp(config: Config, opts: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : { level: config.logLevel, redact: { paths: REDACT, censor: '[secret]' }, ...(opts.logStream ? { stream: opts.logStream } : {}) },
    genReqId: () => `req-${randomUUID()}`,
    requestIdHeader: false,
    trustProxy: true,
    // Path parameters as long as any name may be (percent-encoded); longer ones reach the schema's maxLength (400).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    // Magnum's body size (oslo.middleware's max_request_body_size): a larger body is a 413 in the envelope.
    bodyLimit: config.limits.bodyLimit,
    rewriteUrl: (req) => rewriteToV1(req.url ?? '/'),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, strict: false } },
  });
  const services = opts.services ?? (await createServices(config, { processMetrics: true, steps: opts.steps }));
  app.decorate('services', services);
  if (!opts.services) app.addHook('onClose', () => services.close());

  trackRoutes(app);
  app.removeContentTypeParser('application/json');
  for (const type of ['application/json', 'application/octet-stream']) {
    app.addContentTypeParser(type, { parseAs: 'buffer' }, (_req, body, done) => {
      try {
        done(null, parseJsonBody(body as Buffer));
      } catch (e) {
        done(e as Error, undefined);
      }
    });
  }
  registerEnvelope(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-openstack-request-id', request.id);
  });
  const portal = createPortalSessions(services);
  registerAuth(app, services.validator, config.keystone.authUrl, (request) => portal.tokenFor(request));
  registerVersioning(app);
  registerInputGuard(app);
  registerCoercion(app);
  app.addHook('onResponse', async (request, reply) => {
    services.metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  await app.register(swagger, openapiInfo);
  for (const s of sharedSchemas) app.addSchema(s);
  await app.register(versionRoutes);
  await app.register(opsRoutes);
  await registerPortal(app, portal, opts.portal);
  await app.register(v1Routes, { prefix: '/v1' });
  await app.register(swaggerUi, { routePrefix: '/v1/docs' });
  return app;
}
