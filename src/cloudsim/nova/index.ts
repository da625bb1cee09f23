// Nova v2.1 simulator: version documents and the flavor read API over in-memory state.
// The catalog URL to register is <listen address>/v2.1.
import type { FastifyInstance } from 'fastify';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { createServiceApp } from '../common/service-app.js';
import { renderNovaError } from './errors.js';
import { registerFlavorRoutes } from './routes-flavors.js';
import { registerVersionRoutes } from './routes-versions.js';
import { seedNova } from './seed.js';
import { NovaState } from './state.js';

export { NovaState } from './state.js';
export type { Flavor, NewFlavor } from './state.js';

export interface NovaSimOptions {
  /** How the simulator validates tokens (a service user of the Keystone it trusts). */
  keystone: KeystoneAuthOptions;
  /** Default true: start with the built-in flavors. */
  seed?: boolean;
}

export interface NovaSim {
  app: FastifyInstance;
  state: NovaState;
}

export function createNovaSim(opts: NovaSimOptions): NovaSim {
  const state = new NovaState();
  if (opts.seed !== false) seedNova(state);
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: renderNovaError,
    requestIdHeaders: ['x-compute-request-id'],
    publicRoutes: registerVersionRoutes,
    routes: (scope) => registerFlavorRoutes(scope, state),
  });
  return { app, state };
}
