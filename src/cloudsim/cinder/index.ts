// Cinder v3 simulator (spec openstack-apis §6): volumes with a clock-driven lifecycle, metadata,
// quotas (413) and an attachments stub. The catalog URL is <listen address>/v3/%(project_id)s,
// which the Keystone emulator substitutes per token. Closing the app cancels pending transitions.
import type { FastifyInstance } from 'fastify';
import type { SimClock } from '../common/clock.js';
import type { RenderedError, SimError } from '../common/errors.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { createServiceApp } from '../common/service-app.js';
import { registerCinderRoutes, registerCinderVersions } from './routes.js';
import { CinderState, type CinderBehaviour, type CinderQuota } from './state.js';

export { CinderState } from './state.js';
export type { Attachment, CinderBehaviour, CinderQuota, Volume } from './state.js';

const FAULT_NAMES: Record<number, string> = {
  400: 'badRequest',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'itemNotFound',
  405: 'badMethod',
  406: 'notAcceptable',
  409: 'conflictingRequest',
  413: 'overLimit',
  415: 'badMediaType',
  429: 'overLimit',
  501: 'notImplemented',
  503: 'serviceUnavailable',
};

/** Nova's envelope, which Cinder shares; 413/429 copy Retry-After into `retryAfter` (spec §7.4). */
export function renderCinderError(e: SimError): RenderedError {
  const name = FAULT_NAMES[e.status] ?? 'computeFault';
  const fault: Record<string, unknown> = { code: e.status, message: e.message };
  const retry = e.headers['retry-after'];
  if ((e.status === 413 || e.status === 429) && retry !== undefined) fault.retryAfter = retry;
  return { contentType: 'application/json', body: { [name]: fault } };
}

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
