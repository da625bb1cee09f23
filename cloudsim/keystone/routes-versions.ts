// Unauthenticated version documents: GET / (300 Multiple Choices) and GET /v3.
import type { FastifyInstance } from 'fastify';
import type { SimContext, Urls } from './context.js';

function versionDoc(urls: Urls): Record<string, unknown> {
  return {
    id: 'v3.14',
    status: 'stable',
    updated: '2020-04-07T00:00:00Z',
    links: [{ rel: 'self', href: `${urls.v3}/` }],
    'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.identity-v3+json' }],
  };
}

export function registerVersionRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.get('/', async (_request, reply) => {
    reply.code(300);
    return { versions: { values: [versionDoc(ctx.urls)] } };
  });

  app.get('/v3', async () => ({ version: versionDoc(ctx.urls) }));
}
