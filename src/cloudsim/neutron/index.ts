// Neutron v2.0 simulator: version document, extensions, networks, subnets, ports, routers,
// security groups and rules, floating IPs, tags and quotas over in-memory state. The catalog URL to register is the bare listen address (clients append /v2.0).
import type { FastifyInstance } from 'fastify';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { createServiceApp } from '../common/service-app.js';
import { renderNeutronError } from './errors.js';
import { registerFloatingIpRoutes } from './routes-floatingips.js';
import { registerNetworkRoutes } from './routes-networks.js';
import { registerPortRoutes } from './routes-ports.js';
import { registerQuotaRoutes } from './routes-quotas.js';
import { registerRouterRoutes } from './routes-routers.js';
import { registerSecurityGroupRoutes } from './routes-security-groups.js';
import { registerSubnetRoutes } from './routes-subnets.js';
import { registerTagRoutes } from './routes-tags.js';
import { registerExtensionRoutes, registerVersionRoutes } from './routes-versions.js';
import { seedNeutron, type ProjectIds } from './seed.js';
import { NeutronState } from './state.js';

export { NeutronState } from './state.js';
export { NeutronVipAllocator } from './vip.js';
export type { FloatingIp, Network, NewNetwork, NewSubnet, Port, Router, SecurityGroup, SecurityGroupRule, Subnet } from './state.js';

export interface NeutronSimOptions {
  /** How the simulator validates tokens (a service user of the Keystone it trusts). */
  keystone: KeystoneAuthOptions;
  /** Project ids by name, for the owners of seeded networks. */
  projects?: ProjectIds;
  /** Default true: start with the built-in networks. */
  seed?: boolean;
}

export interface NeutronSim {
  app: FastifyInstance;
  state: NeutronState;
}

export function createNeutronSim(opts: NeutronSimOptions): NeutronSim {
  const state = new NeutronState();
  if (opts.seed !== false) seedNeutron(state, opts.projects);
  const app = createServiceApp({
    auth: new KeystoneAuth(opts.keystone),
    faults: state.faults,
    renderError: renderNeutronError,
    publicRoutes: registerVersionRoutes,
    routes: (scope) => {
      registerExtensionRoutes(scope);
      registerNetworkRoutes(scope, state);
      registerSubnetRoutes(scope, state);
      registerPortRoutes(scope, state);
      registerRouterRoutes(scope, state);
      registerSecurityGroupRoutes(scope, state);
      registerFloatingIpRoutes(scope, state);
      registerTagRoutes(scope, state);
      registerQuotaRoutes(scope, state);
    },
  });
  return { app, state };
}
