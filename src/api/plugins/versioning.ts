// Microversion negotiation on every /v1 request: resolves request.apiVersion, gates operations
// by their minimum version, and sets the version headers on the response.
import type { FastifyInstance } from 'fastify';
import { errors, MicroversionUnsupported } from '../../domain/errors.js';
import { atLeast, format, HEADER, parseVersionHeader, versionHeaders, type ApiVersion } from '../../domain/microversion.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiVersion: ApiVersion;
    /** The version echoed in OpenStack-API-Version; unset when the header was malformed. */
    versionText: string | undefined;
  }
  interface FastifyContextConfig {
    /** Lowest 1.x minor version at which the operation exists (406 below it). */
    minVersion?: number;
    /** Highest 1.x minor version at which the operation exists (406 above it: bays and baymodels end at 1.10). */
    maxVersion?: number;
  }
}

const isV1 = (url: string): boolean => url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');

export function registerVersioning(app: FastifyInstance): void {
  app.decorateRequest('apiVersion', null, []);
  app.decorateRequest('versionText', undefined);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0] ?? '';
    if (!isV1(path) || path.startsWith('/v1/docs') || path === '/v1/openapi.json') return;
    const raw = request.headers[HEADER];
    try {
      request.apiVersion = parseVersionHeader(typeof raw === 'string' ? raw : undefined);
    } catch (e) {
      if (e instanceof MicroversionUnsupported) request.versionText = e.requested;
      throw e;
    }
    request.versionText = format(request.apiVersion);
    const min = request.routeOptions.config?.minVersion;
    const max = request.routeOptions.config?.maxVersion;
    if ((min !== undefined && !atLeast(request.apiVersion, min)) || (max !== undefined && atLeast(request.apiVersion, max + 1))) {
      throw errors.notAcceptable(
        `Version ${request.versionText} was requested but the requested API ${request.method} is not supported for this version.`,
      );
    }
  });
  app.addHook('onSend', async (request, reply) => {
    if (request.versionText !== undefined) reply.headers(versionHeaders(request.versionText));
  });
}
