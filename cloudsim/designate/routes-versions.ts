// GET / (unauthenticated): the v2 API under its version names, every one pointing at /v2.
import type { FastifyInstance } from 'fastify';
import { hostUrl } from '../common/service-app.js';

const API_REF = 'https://docs.openstack.org/api-ref/dns/';
const VERSIONS: [id: string, status: string, updated: string][] = [
  ['v2', 'SUPPORTED', '2022-06-29T00:00:00Z'],
  ['v2.0', 'SUPPORTED', '2022-06-29T00:00:00Z'],
  ['v2.1', 'CURRENT', '2023-01-25T00:00:00Z'],
];

export function registerVersionRoutes(app: FastifyInstance): void {
  app.get('/', async (request) => ({
    versions: VERSIONS.map(([id, status, updated]) => ({
      id,
      status,
      updated,
      links: [
        { href: `${hostUrl(request)}/v2`, rel: 'self' },
        { href: API_REF, rel: 'help' },
      ],
    })),
  }));
}
