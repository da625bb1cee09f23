// Octavia v2 API under /v2/lbaas (and the /v2.0/lbaas alias), spec openstack-apis §4: one file a
// resource (load balancers, listeners, pools, members, health monitors, quotas); the version
// documents in routes-versions.ts.
import type { FastifyInstance } from 'fastify';
import { registerHealthMonitorRoutes } from './routes-healthmonitors.js';
import { registerListenerRoutes } from './routes-listeners.js';
import { registerLoadBalancerRoutes } from './routes-loadbalancers.js';
import { registerMemberRoutes } from './routes-members.js';
import { registerPoolRoutes } from './routes-pools.js';
import { registerQuotaRoutes } from './routes-quotas.js';
import { registerOctaviaPolicy } from './policy.js';
import { registerOctaviaVersionNames } from './routes-versions.js';
import type { OctaviaState } from './state.js';

export function registerOctaviaRoutes(scope: FastifyInstance, state: OctaviaState): void {
  registerOctaviaVersionNames(scope);
  registerOctaviaPolicy(scope, () => state.behaviour.policy);
  for (const root of ['/v2/lbaas', '/v2.0/lbaas']) {
    registerLoadBalancerRoutes(scope, state, root);
    registerListenerRoutes(scope, state, root);
    registerPoolRoutes(scope, state, root);
    registerMemberRoutes(scope, state, root);
    registerHealthMonitorRoutes(scope, state, root);
    registerQuotaRoutes(scope, state, root);
  }
}
