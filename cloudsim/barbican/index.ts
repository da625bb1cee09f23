// Barbican v1 simulator (key manager, catalog type `key-manager`): secrets stored with a payload, listed by name,
// read and deleted. The catalog URL is the bare listen address; clients add /v1.
import type { FastifyInstance } from 'fastify';
import { REASONS, type RenderedError, type SimError } from '../common/errors.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { createServiceApp } from '../common/service-app.js';
import { registerBarbicanRoutes, registerBarbicanVersions } from './routes.js';
import { BarbicanState } from './state.js';

export { BarbicanState } from './state.js';
export type { Secret } from './state.js';

export interface BarbicanSim {
  app: FastifyInstance;
  state: BarbicanState;
}

/** Barbican's envelope: {code, title, description}. */
function renderBarbicanError(e: SimError): RenderedError {
  return { contentType: 'application/json', body: { code: e.status, title: REASONS[e.status] ?? 'Error', description: e.message } };
}

export function createBarbicanSim(opts: { keystone: KeystoneAuthOptions }): BarbicanSim {
  const state = new BarbicanState();
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: renderBarbicanError,
    publicRoutes: registerBarbicanVersions,
    routes: (scope) => registerBarbicanRoutes(scope, state),
  });
  return { app, state };
}
