// Catalog administration views: services, endpoints, regions (read-only).
import type { FastifyInstance } from 'fastify';
import { callerToken, requireAdmin, type SimContext } from './context.js';
import { ksErrors } from './errors.js';
import { list, renderEndpoint, renderRegion, renderService } from './render.js';
import { IdParams } from './schemas.js';

type Query = Record<string, string | undefined>;

export function registerCatalogRoutes(app: FastifyInstance, ctx: SimContext): void {
  const { state, urls } = ctx;
  const { catalog } = state;

  app.get<{ Querystring: Query }>('/v3/services', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:list_services');
    const q = request.query;
    const services = catalog.services.filter(
      (s) => (q.type === undefined || s.type === q.type) && (q.name === undefined || s.name === q.name),
    );
    return list(urls, '/services', 'services', services.map((s) => renderService(urls, s)));
  });

  app.get<{ Params: IdParams }>('/v3/services/:id', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:get_service');
    const service = catalog.services.find((s) => s.id === request.params.id);
    if (!service) throw ksErrors.notFound('service', request.params.id);
    return { service: renderService(urls, service) };
  });

  app.get<{ Querystring: Query }>('/v3/endpoints', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:list_endpoints');
    const q = request.query;
    const endpoints = catalog.allEndpoints().filter(
      (e) =>
        (q.interface === undefined || e.interface === q.interface) &&
        (q.service_id === undefined || e.serviceId === q.service_id) &&
        (q.region_id === undefined || q.region_id === catalog.region),
    );
    return list(urls, '/endpoints', 'endpoints', endpoints.map((e) => renderEndpoint(urls, catalog, e)));
  });

  app.get<{ Params: IdParams }>('/v3/endpoints/:id', async (request) => {
    requireAdmin(ctx, await callerToken(ctx, request), 'identity:get_endpoint');
    const endpoint = catalog.allEndpoints().find((e) => e.id === request.params.id);
    if (!endpoint) throw ksErrors.notFound('endpoint', request.params.id);
    return { endpoint: renderEndpoint(urls, catalog, endpoint) };
  });

  // Keystone lets any authenticated user read regions.
  app.get('/v3/regions', async (request) => {
    await callerToken(ctx, request);
    return list(urls, '/regions', 'regions', [renderRegion(urls, catalog.region)]);
  });

  app.get<{ Params: IdParams }>('/v3/regions/:id', async (request) => {
    await callerToken(ctx, request);
    if (request.params.id !== catalog.region) throw ksErrors.notFound('region', request.params.id);
    return { region: renderRegion(urls, catalog.region) };
  });
}
