// Octavia v2 API under /v2/lbaas (and the /v2.0/lbaas alias), spec openstack-apis §4: one file a
// resource (load balancers, listeners, pools, members, health monitors, quotas), and the version
// document.
import type { FastifyInstance } from 'fastify';
import { hostUrl } from '../common/service-app.js';
import { registerHealthMonitorRoutes } from './routes-healthmonitors.js';
import { registerListenerRoutes } from './routes-listeners.js';
import { registerLoadBalancerRoutes } from './routes-loadbalancers.js';
import { registerMemberRoutes } from './routes-members.js';
import { registerPoolRoutes } from './routes-pools.js';
import { registerQuotaRoutes } from './routes-quotas.js';
import type { OctaviaState } from './state.js';

export function registerOctaviaRoutes(scope: FastifyInstance, state: OctaviaState): void {
  for (const root of ['/v2/lbaas', '/v2.0/lbaas']) {
    registerLoadBalancerRoutes(scope, state, root);
    registerListenerRoutes(scope, state, root);
    registerPoolRoutes(scope, state, root);
    registerMemberRoutes(scope, state, root);
    registerHealthMonitorRoutes(scope, state, root);
    registerQuotaRoutes(scope, state, root);
  }
}

/** GET / (unauthenticated): v2.0 … v2.30, the last CURRENT (spec §7.6). */
export function registerOctaviaVersions(app: FastifyInstance): void {
  const versions = (base: string) =>
    Array.from({ length: 31 }, (_, i) => ({
      id: `v2.${i}`,
      status: i === 30 ? 'CURRENT' : 'SUPPORTED',
      updated: '2024-01-01T00:00:00Z',
      links: [{ href: `${base}/v2`, rel: 'self' }],
    }));
  app.get('/', async (request) => ({ versions: versions(hostUrl(request)) }));
  app.get('/v2', async (request) => ({ versions: versions(hostUrl(request)) }));
}
