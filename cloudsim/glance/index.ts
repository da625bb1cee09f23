// Glance v2 simulator: version and schema documents and the image read API over in-memory state.
import type { FastifyInstance } from 'fastify';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { createServiceApp } from '../common/service-app.js';
import { renderGlanceError } from './errors.js';
import { registerImageRoutes } from './routes-images.js';
import { registerSchemaRoutes } from './routes-schemas.js';
import { registerVersionRoutes } from './routes-versions.js';
import { seedGlance, type ProjectIds } from './seed.js';
import { GlanceState } from './state.js';

export { GlanceState } from './state.js';
export type { Image, NewImage, Visibility } from './state.js';

export interface GlanceSimOptions {
  /** How the simulator validates tokens (a service user of the Keystone it trusts). */
  keystone: KeystoneAuthOptions;
  /** Project ids by name, for the owners of seeded images. */
  projects?: ProjectIds;
  /** Default true: start with the built-in images. */
  seed?: boolean;
}

export interface GlanceSim {
  app: FastifyInstance;
  state: GlanceState;
}

export function createGlanceSim(opts: GlanceSimOptions): GlanceSim {
  const state = new GlanceState();
  if (opts.seed !== false) seedGlance(state, opts.projects);
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: renderGlanceError,
    publicRoutes: registerVersionRoutes,
    routes: (scope) => {
      registerSchemaRoutes(scope);
      registerImageRoutes(scope, state);
    },
  });
  return { app, state };
}
