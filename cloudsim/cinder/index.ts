// Cinder v3 simulator (spec openstack-apis §6): volumes with a clock-driven lifecycle, metadata,
// quotas (413), an attachments stub, volume types and availability zones. The catalog URL is <listen address>/v3/%(project_id)s,
// which the Keystone emulator substitutes per token. Closing the app cancels pending transitions.
import type { FastifyInstance } from 'fastify';
import type { SimClock } from '../common/clock.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { jsonschemaMessage } from '../common/schema-messages.js';
import { createServiceApp } from '../common/service-app.js';
import { novaStyleErrors } from '../nova/errors.js';
import { invalidInput, pyRepr } from '../nova/validate.js';
import { registerCinderRoutes } from './routes.js';
import { registerCinderV3Root, registerCinderVersions } from './routes-versions.js';
import { registerVolumeTypeRoutes } from './routes-types.js';
import { CinderState, type CinderBehaviour, type CinderQuota } from './state.js';

export { CinderState } from './state.js';
export type { Attachment, CinderBehaviour, CinderQuota, Volume, VolumeType } from './state.js';

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
    // openapi/openstack/cinder.yaml's paths are relative to the catalog URL, /v3/{project_id};
    // the sim also answers without the project id, as Cinder does from microversion 3.67.
    requestSchemas: {
      document: 'cinder',
      mount: { '/v3/:project_id': '', '/v3': '' },
      // Cinder validates with the same jsonschema machinery, in the same words, as Nova.
      error: (issue) => invalidInput(issue.at.field || undefined, issue.at.value, jsonschemaMessage(issue, pyRepr)),
    },
    publicRoutes: registerCinderVersions,
    routes: (scope) => {
      registerCinderRoutes(scope, state);
      registerCinderV3Root(scope);
      registerVolumeTypeRoutes(scope, state);
    },
  });
  app.addHook('onClose', async () => state.close());
  return { app, state };
}
