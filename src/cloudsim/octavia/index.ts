// Octavia v2 simulator (spec openstack-apis §4): load balancers and their children with the
// PENDING_* state machine driven by a SimClock. The catalog URL is the bare listen address
// (clients append /v2). Closing the app cancels every pending transition.
import type { FastifyInstance } from 'fastify';
import type { SimClock } from '../common/clock.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { createServiceApp } from '../common/service-app.js';
import { renderOctaviaError } from './render.js';
import { registerOctaviaRoutes, registerOctaviaVersions } from './routes.js';
import { OctaviaState, type OctaviaBehaviour, type Quota } from './state.js';
import type { VipAllocator } from './vip.js';

export { OctaviaState } from './state.js';
export type { HealthMonitor, Listener, LoadBalancer, Member, OctaviaBehaviour, Pool, Quota } from './state.js';
export { LocalVipAllocator, type SubnetInfo, type SubnetSource, type VipAllocator, type VipPort, type VipRequest } from './vip.js';

export interface OctaviaSimOptions {
  keystone: KeystoneAuthOptions;
  /** Timing and seeded randomness (a realistic, randomly seeded clock when absent); closed with the app. */
  clock?: SimClock;
  /** Where VIP ports come from (default: a local allocator on 10.0.0.0/24). */
  vip?: VipAllocator;
  /** Default per-project quota (-1 = unlimited). */
  defaultQuota?: Partial<Quota>;
  behaviour?: Partial<OctaviaBehaviour>;
}

export interface OctaviaSim {
  app: FastifyInstance;
  state: OctaviaState;
}

export function createOctaviaSim(opts: OctaviaSimOptions): OctaviaSim {
  const state = new OctaviaState({
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.vip ? { vip: opts.vip } : {}),
    ...(opts.defaultQuota ? { defaultQuota: opts.defaultQuota } : {}),
    ...(opts.behaviour ? { behaviour: opts.behaviour } : {}),
  });
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: renderOctaviaError,
    publicRoutes: registerOctaviaVersions,
    routes: (scope) => registerOctaviaRoutes(scope, state),
  });
  app.addHook('onClose', async () => state.close());
  return { app, state };
}
