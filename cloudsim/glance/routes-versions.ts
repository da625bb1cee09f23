// Glance's unauthenticated version list: GET / (300 Multiple Choices) and GET /versions (200).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hostUrl } from '../common/service-app.js';

export const CURRENT_VERSION = '2.16';

function versions(request: FastifyRequest) {
  const minors = Array.from({ length: 17 }, (_, i) => 16 - i);
  return {
    versions: minors.map((m) => ({
      id: `v2.${m}`,
      status: `2.${m}` === CURRENT_VERSION ? 'CURRENT' : 'SUPPORTED',
      links: [{ rel: 'self', href: `${hostUrl(request)}/v2/` }],
    })),
  };
}

export function registerVersionRoutes(app: FastifyInstance): void {
  app.get('/', async (request, reply) => {
    reply.code(300);
    return versions(request);
  });
  app.get('/versions', async (request) => versions(request));
}
