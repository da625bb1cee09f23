// Neutron v2.0 simulator: version document, extensions, networks, subnets, ports, routers,
// security groups and rules, floating IPs, tags, quotas and availability zones over in-memory state. The catalog URL to register is the bare listen address (clients append /v2.0).
import type { FastifyInstance } from 'fastify';
import { KeystoneAuth, type KeystoneAuthOptions } from '../common/keystone-auth.js';
import { SimError } from '../common/errors.js';
import type { SchemaIssue } from '../common/openapi-validation.js';
import { createServiceApp } from '../common/service-app.js';
import { renderNeutronError } from './errors.js';
import { registerFloatingIpRoutes } from './routes-floatingips.js';
import { registerNetworkRoutes } from './routes-networks.js';
import { registerPortRoutes } from './routes-ports.js';
import { registerQuotaRoutes } from './routes-quotas.js';
import { registerRouterRoutes } from './routes-routers.js';
import { registerSecurityGroupRuleRoutes } from './routes-security-group-rules.js';
import { registerSecurityGroupRoutes } from './routes-security-groups.js';
import { registerSubnetRoutes } from './routes-subnets.js';
import { registerTagRoutes } from './routes-tags.js';
import { registerZoneRoutes } from './routes-zones.js';
import { registerExtensionRoutes, registerVersionRoutes } from './routes-versions.js';
import { seedNeutron, type ProjectIds } from './seed.js';
import { NeutronState } from './state.js';

export { NeutronState } from './state.js';
export { NeutronVipAllocator } from './vip.js';
export type { FloatingIp, Network, NewNetwork, NewSubnet, Port, Router, SecurityGroup, SecurityGroupRule, Subnet } from './state.js';

const NEUTRON_TYPE_REASONS: Record<string, string> = {
  string: 'is not a valid string',
  boolean: 'is not a valid boolean value',
  integer: 'is not an integer',
  array: 'is not a list',
  object: 'is not a dictionary',
};

/** A body the document refuses, in the words of Neutron's attribute validators. */
function neutronSchemaError(issue: SchemaIssue): SimError {
  if (issue.keyword === 'required') {
    if (issue.at.field === '') return new SimError(400, `Unable to find '${issue.field}' in request body`, 'HTTPBadRequest');
    return new SimError(400, `Failed to parse request. Required attribute '${issue.field}' not specified`, 'HTTPBadRequest');
  }
  if (issue.keyword === 'additionalProperties') return new SimError(400, `Unrecognized attribute(s) '${issue.field}'`, 'HTTPBadRequest');
  const type = issue.keyword === 'type' ? NEUTRON_TYPE_REASONS[[issue.params.type].flat()[0] as string] : undefined;
  const reason = type ? `'${String(issue.value)}' ${type}.` : `${JSON.stringify(issue.value)} ${issue.message}.`;
  return new SimError(400, `Invalid input for ${issue.field}. Reason: ${reason}`, 'HTTPBadRequest');
}

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
    // openapi/openstack/neutron.yaml's paths start with /v2.0, as the sim's routes do.
    requestSchemas: { document: 'neutron', error: neutronSchemaError },
    publicRoutes: registerVersionRoutes,
    routes: (scope) => {
      registerExtensionRoutes(scope);
      registerNetworkRoutes(scope, state);
      registerSubnetRoutes(scope, state);
      registerPortRoutes(scope, state);
      registerRouterRoutes(scope, state);
      registerSecurityGroupRoutes(scope, state);
      registerSecurityGroupRuleRoutes(scope, state);
      registerFloatingIpRoutes(scope, state);
      registerTagRoutes(scope, state);
      registerQuotaRoutes(scope, state);
      registerZoneRoutes(scope, state);
    },
  });
  return { app, state };
}
