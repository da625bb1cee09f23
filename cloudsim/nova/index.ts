// Nova v2.1 simulator: version documents, flavors (and their extra specs), servers with a clock-driven
// lifecycle (and their tags, metadata and volume attachments), keypairs, server groups, quotas and limits,
// availability zones with their aggregates, the hypervisors and services of the simulated hosts, and
// the projects' usage.
// The catalog URL to register is <listen address>/v2.1. Closing the app cancels pending transitions.
import type { FastifyInstance } from 'fastify';
import type { CinderState } from '../cinder/state.js';
import type { SimClock } from '../common/clock.js';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { jsonschemaMessage } from '../common/schema-messages.js';
import { createServiceApp } from '../common/service-app.js';
import type { GlanceState } from '../glance/state.js';
import type { NeutronState } from '../neutron/state.js';
import { cinderVolumes } from './backend-cinder.js';
import { glanceImages } from './backend-glance.js';
import { neutronNetworking } from './backend-neutron.js';
import type { NovaImages, NovaNetworking, NovaVolumes } from './backends.js';
import { renderNovaError } from './errors.js';
import { registerMicroversions } from './microversion.js';
import { registerFlavorExtraSpecRoutes } from './routes-flavor-extra-specs.js';
import { registerFlavorRoutes } from './routes-flavors.js';
import { registerHypervisorRoutes } from './routes-hypervisors.js';
import { registerKeypairRoutes } from './routes-keypairs.js';
import { registerQuotaRoutes } from './routes-quotas.js';
import { registerServerGroupRoutes } from './routes-server-groups.js';
import { registerServerMetadataRoutes } from './routes-server-metadata.js';
import { registerServerTagRoutes } from './routes-server-tags.js';
import { registerServerActionRoutes } from './routes-server-actions.js';
import { registerServerRoutes } from './routes-servers.js';
import { registerServiceRoutes } from './routes-services.js';
import { registerUsageRoutes } from './routes-usage.js';
import { registerVersionRoutes } from './routes-versions.js';
import { registerVolumeAttachmentRoutes } from './routes-volume-attachments.js';
import { registerZoneRoutes } from './routes-zones.js';
import { seedNova } from './seed.js';
import { invalidInput, pyRepr } from './validate.js';
import { NovaState, type NovaBehaviour } from './state.js';
import type { NovaQuota } from './quota.js';

export { NovaState } from './state.js';
export type { BuildFailure, Flavor, NewFlavor, NovaBehaviour } from './state.js';
export type { NovaImage, NovaImages, NovaNetwork, NovaNetworking, NovaPort, NovaVolume, NovaVolumes } from './backends.js';
export type { NovaQuota } from './quota.js';
export type { Server } from './servers.js';
export type { ComputeZone } from './hosts.js';
export { cinderVolumes, glanceImages, neutronNetworking };

export interface NovaSimOptions {
  /** How the simulator validates tokens (a service user of the Keystone it trusts). */
  keystone: KeystoneAuthOptions;
  /** Default true: start with the built-in flavors. */
  seed?: boolean;
  /** Timing and seeded randomness (a realistic, randomly seeded clock when absent); closed with the app. */
  clock?: SimClock;
  /** The Glance simulator's images (or any `images` source); default: any UUID is an active image. */
  glance?: GlanceState;
  images?: NovaImages;
  /** The Neutron simulator Nova creates and binds ports in (or any `networking`); default: a flat local network. */
  neutron?: NeutronState;
  networking?: NovaNetworking;
  /** The Cinder simulator for boot from volume and attachments (or any `volumes`); default: volumes are only recorded. */
  cinder?: CinderState;
  volumes?: NovaVolumes;
  /** Default per-project quota (Nova's defaults; -1 = unlimited). */
  defaultQuota?: Partial<NovaQuota>;
  behaviour?: Partial<NovaBehaviour>;
}

export interface NovaSim {
  app: FastifyInstance;
  state: NovaState;
}

export function createNovaSim(opts: NovaSimOptions): NovaSim {
  const images = opts.images ?? (opts.glance ? glanceImages(opts.glance) : undefined);
  const networking = opts.networking ?? (opts.neutron ? neutronNetworking(opts.neutron) : undefined);
  const volumes = opts.volumes ?? (opts.cinder ? cinderVolumes(opts.cinder) : undefined);
  const state = new NovaState({
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(images ? { images } : {}),
    ...(networking ? { networking } : {}),
    ...(volumes ? { volumes } : {}),
    ...(opts.defaultQuota ? { defaultQuota: opts.defaultQuota } : {}),
    ...(opts.behaviour ? { behaviour: opts.behaviour } : {}),
  });
  if (opts.seed !== false) seedNova(state);
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: renderNovaError,
    requestIdHeaders: ['x-compute-request-id'],
    // openapi/openstack/nova.yaml's paths are relative to the catalog URL, /v2.1.
    requestSchemas: {
      document: 'nova',
      mount: { '/v2.1': '' },
      error: (issue) => invalidInput(issue.at.field || undefined, issue.at.value, jsonschemaMessage(issue, pyRepr)),
    },
    publicRoutes: registerVersionRoutes,
    routes: (scope) => {
      registerMicroversions(scope);
      registerFlavorRoutes(scope, state);
      registerFlavorExtraSpecRoutes(scope, state);
      registerServerRoutes(scope, state);
      registerServerActionRoutes(scope, state);
      registerServerTagRoutes(scope, state);
      registerServerMetadataRoutes(scope, state);
      registerVolumeAttachmentRoutes(scope, state);
      registerKeypairRoutes(scope, state);
      registerServerGroupRoutes(scope, state);
      registerQuotaRoutes(scope, state);
      registerZoneRoutes(scope, state);
      registerHypervisorRoutes(scope, state);
      registerServiceRoutes(scope, state);
      registerUsageRoutes(scope, state);
    },
  });
  app.addHook('onClose', async () => state.close());
  return { app, state };
}
