// Cinder v3 simulator (spec openstack-apis §6): volumes with a clock-driven lifecycle, metadata,
// quotas (413) and an attachments stub. The catalog URL is <listen address>/v3/%(project_id)s,
// which the Keystone emulator substitutes per token. Closing the app cancels pending transitions.
import type { FastifyInstance } from 'fastify';
import type { SimClock } from '../common/clock.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { createServiceApp } from '../common/service-app.js';
import { novaStyleErrors } from '../nova/errors.js';
import { registerCinderRoutes, registerCinderVersions } from './routes.js';
import { CinderState, type CinderBehaviour, type CinderQuota } from './state.js';

export { CinderState } from './state.js';
export type { Attachment, CinderBehaviour, CinderQuota, Volume } from './state.js';

/** Nova's envelope, which Cinder shares, naming 406 too. */
const renderCinderError = novaStyleErrors({ 406: 'notAcceptable' });

export interface CinderSimOptions {
  keystone: KeystoneAuthOptions;
  /** Timing and seeded randomness (a realistic, randomly seeded clock when absent); closed with the app. */
  clock?: SimClock;
  /** Default per-project quota (Cinder's defaults: 10 volumes, 1000 GiB; -1 = unlimited). */
  defaultQuota?: Partial<CinderQuota>;
  behaviour?: Partial<CinderBehaviour>;
}

export interface CinderSim {
  app: FastifyInstance;
  state: CinderState;
}

export function createCinderSim(opts: CinderSimOptions): CinderSim {
  const state = new CinderState({
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.defaultQuota ? { defaultQuota: opts.defaultQuota } : {}),
    ...(opts.behaviour ? { behaviour: opts.behaviour } : {}),
  });
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: renderCinderError,
    publicRoutes: registerCinderVersions,
    routes: (scope) => registerCinderRoutes(scope, state),
  });
  app.addHook('onClose', async () => state.close());
  return { app, state };
}
