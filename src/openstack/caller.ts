// The OpenStack clients of an API caller: the caller's token and that token's catalog, so that the
// API's checks run with the caller's rights as Magnum's do. The worker's twin is workers/cloud.ts
// (the cluster's application credential); both hand out the same thin clients.
import type { AuthContext } from '../keystone/context.js';
import { findEndpoint, type EndpointFilter } from './catalog.js';
import { CinderClient } from './cinder.js';
import { DesignateClient } from './designate.js';
import { GlanceClient } from './glance.js';
import { sessionFor, type Session } from './http.js';
import { KeystoneClient } from './keystone.js';
import type { RetryPolicy } from './retry.js';
import { ManilaClient } from './manila.js';
import { NeutronClient } from './neutron.js';
import { NovaClient } from './nova.js';
import { NovaResourcesClient } from './nova-resources.js';
import { NovaServersClient } from './nova-servers.js';
import { OctaviaClient } from './octavia.js';

/** Who calls the API: the validated token's context and the token itself. */
export interface CloudCaller {
  ctx: AuthContext;
  token: string;
}

export interface CallerCloudOptions extends EndpointFilter {
  /** Per call to a service of the catalog, in milliseconds. */
  timeoutMs: number;
  /** Retries of a call that failed for a moment (reads; a write only when the service refused it before acting). */
  retry?: RetryPolicy;
  /** Keystone, as the API is configured to reach it (application credentials are made there). */
  keystone: { authUrl: string; timeoutMs: number };
}

/** One caller's clients. Each throws OpenStackError `no_endpoint` when the catalog lacks its service. */
export interface CallerCloud {
  /** Whether the caller's catalog has the service (by type or alias) at the configured interface and region. */
  offers(type: string): boolean;
  glance(): GlanceClient;
  /** Flavors. */
  nova(): NovaClient;
  /** Keypairs, server groups, limits. */
  novaResources(): NovaResourcesClient;
  /** Servers (read: the cluster's nodes as Nova has them now). */
  servers(): NovaServersClient;
  neutron(): NeutronClient;
  cinder(): CinderClient;
  octavia(): OctaviaClient;
  designate(): DesignateClient;
  manila(): ManilaClient;
  /** The caller's own Keystone: application credentials belong to the user who makes them. */
  keystone(): KeystoneClient;
}

/** Catalog URLs may still carry the project placeholder (Cinder's), which the caller's project fills. */
const PROJECT_PLACEHOLDER = /[%$]\((project_id|tenant_id)\)s/g;

export class CallerClouds {
  constructor(private readonly opts: CallerCloudOptions) {}

  /** The clients of `who`. */
  for(who: CloudCaller): CallerCloud {
    const { keystone, ...filter } = this.opts;
    const session = (type: string): Session => {
      const s = sessionFor(who.ctx.catalog, who.token, type, filter);
      return { ...s, baseUrl: s.baseUrl.replace(PROJECT_PLACEHOLDER, who.ctx.projectId ?? '') };
    };
    return {
      offers: (type) => findEndpoint(who.ctx.catalog, type, filter) !== undefined,
      glance: () => new GlanceClient(session('image')),
      nova: () => new NovaClient(session('compute')),
      novaResources: () => new NovaResourcesClient(session('compute')),
      servers: () => new NovaServersClient(session('compute')),
      neutron: () => new NeutronClient(session('network')),
      cinder: () => new CinderClient(session('block-storage')),
      octavia: () => new OctaviaClient(session('load-balancer')),
      designate: () => new DesignateClient(session('dns')),
      manila: () => new ManilaClient(session('shared-file-system')),
      keystone: () => new KeystoneClient({ service: 'identity', baseUrl: keystone.authUrl, token: who.token, timeoutMs: keystone.timeoutMs }, who.ctx.userId),
    };
  }
}
