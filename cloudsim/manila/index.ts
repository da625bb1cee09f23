// Manila v2 simulator (shared file systems, catalog type `sharev2`): shares with a clock-driven life, metadata
// filters, quotas and share types, enough for the Manila CSI plugin of a cluster and for the delete's sweep of its shares.
// The catalog URL is <listen address>/v2; the routes also answer under /v2/{project_id}.
import type { FastifyInstance } from 'fastify';
import type { SimClock } from '../common/clock.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { createServiceApp } from '../common/service-app.js';
import { novaStyleErrors } from '../nova/errors.js';
import { registerManilaRoutes, registerManilaVersions } from './routes.js';
import { registerShareTypeRoutes } from './routes-types.js';
import { ManilaState } from './state.js';

export { ManilaState } from './state.js';
export type { ManilaQuota, Share, ShareType } from './state.js';

export interface ManilaSimOptions {
  keystone: KeystoneAuthOptions;
  clock?: SimClock;
}

export interface ManilaSim {
  app: FastifyInstance;
  state: ManilaState;
}

export function createManilaSim(opts: ManilaSimOptions): ManilaSim {
  const state = new ManilaState(opts.clock ? { clock: opts.clock } : {});
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: novaStyleErrors({ 403: 'forbidden', 406: 'notAcceptable' }),
    publicRoutes: registerManilaVersions,
    routes: (scope) => {
      registerManilaRoutes(scope, state);
      registerShareTypeRoutes(scope, state);
    },
  });
  app.addHook('onClose', async () => state.close());
  return { app, state };
}
