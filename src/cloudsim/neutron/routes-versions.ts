// Neutron's unauthenticated version list (GET /) and its extension list (spec openstack-apis §7.6).
import type { FastifyInstance } from 'fastify';
import { hostUrl } from '../common/service-app.js';

/** Only what the simulator implements. */
const EXTENSIONS = [
  { alias: 'external-net', name: 'Neutron external network', description: 'Adds external network attribute to network resource.' },
  { alias: 'filter-validation', name: 'Filter parameters validation', description: 'Provides validation on filtering parameters.' },
  { alias: 'pagination', name: 'Pagination support', description: 'Extension that indicates that pagination is enabled.' },
  { alias: 'sorting', name: 'Sorting support', description: 'Extension that indicates that sorting is enabled.' },
  { alias: 'project-id', name: 'project_id field enabled', description: 'Extension that indicates that project_id field is enabled.' },
  { alias: 'standard-attr-tag', name: 'Tag support for resources with standard attribute: subnet, trunk, network_segment_range, router, network, policy, subnetpool, port, security_group, floatingip', description: 'Enables to set tag on resources with standard attribute.' },
];

export function registerVersionRoutes(app: FastifyInstance): void {
  app.get('/', async (request) => ({
    versions: [{ id: 'v2.0', status: 'CURRENT', links: [{ rel: 'self', href: `${hostUrl(request)}/v2.0/` }] }],
  }));
}

export function registerExtensionRoutes(scope: FastifyInstance): void {
  scope.get('/v2.0/extensions', async () => ({
    extensions: EXTENSIONS.map((e) => ({ ...e, links: [], updated: '2013-01-20T00:00:00-00:00' })),
  }));
}
