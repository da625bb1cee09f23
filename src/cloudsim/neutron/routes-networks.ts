// GET /v2.0/networks and /v2.0/networks/{id}: own, shared and external networks (admins: all).
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import type { RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { listCollection, selectFields, type Attribute } from './collection.js';
import type { Network, NeutronState } from './state.js';

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function renderNetwork(n: Network, caller: SimCaller): Record<string, unknown> {
  return {
    id: n.id,
    name: n.name,
    tenant_id: n.projectId,
    project_id: n.projectId,
    admin_state_up: n.adminStateUp,
    mtu: n.mtu,
    status: n.status,
    subnets: n.subnets,
    shared: n.shared,
    availability_zone_hints: n.availabilityZoneHints,
    availability_zones: n.availabilityZones,
    ipv4_address_scope: null,
    ipv6_address_scope: null,
    'router:external': n.external,
    description: n.description,
    port_security_enabled: n.portSecurityEnabled,
    qos_policy_id: null,
    is_default: n.isDefault,
    l2_adjacency: true,
    tags: n.tags,
    created_at: iso(n.createdAt),
    updated_at: iso(n.updatedAt),
    revision_number: n.revisionNumber,
    // The provider extension's attributes are shown to admins only.
    ...(caller.isAdmin
      ? {
          'provider:network_type': n.providerNetworkType,
          'provider:physical_network': n.providerPhysicalNetwork,
          'provider:segmentation_id': n.providerSegmentationId,
        }
      : {}),
  };
}

const ATTRIBUTES: Record<string, Attribute<Network>> = {
  id: { get: (n) => n.id, kind: 'string' },
  name: { get: (n) => n.name, kind: 'string' },
  project_id: { get: (n) => n.projectId, kind: 'string' },
  tenant_id: { get: (n) => n.projectId, kind: 'string' },
  status: { get: (n) => n.status, kind: 'string' },
  admin_state_up: { get: (n) => n.adminStateUp, kind: 'bool' },
  shared: { get: (n) => n.shared, kind: 'bool' },
  'router:external': { get: (n) => n.external, kind: 'bool' },
  mtu: { get: (n) => n.mtu, kind: 'int' },
  description: { get: (n) => n.description, kind: 'string' },
  port_security_enabled: { get: (n) => n.portSecurityEnabled, kind: 'bool' },
  is_default: { get: (n) => n.isDefault, kind: 'bool' },
  revision_number: { get: (n) => n.revisionNumber, kind: 'int' },
  'provider:network_type': { get: (n) => n.providerNetworkType, kind: 'string' },
  'provider:physical_network': { get: (n) => n.providerPhysicalNetwork, kind: 'string' },
  'provider:segmentation_id': { get: (n) => n.providerSegmentationId, kind: 'int' },
};

/** get_network policy: admin, owner, shared, or external. */
const visible = (n: Network, c: SimCaller) => c.isAdmin || n.projectId === c.projectId || n.shared || n.external;

const notFound = (id: string) => new SimError(404, `Network ${id} could not be found.`, 'NetworkNotFound');

export function registerNetworkRoutes(scope: FastifyInstance, state: NeutronState): void {
  scope.get('/v2.0/networks', async (request) => {
    const caller = callerOf(request);
    return listCollection(
      request,
      {
        name: 'networks',
        attributes: ATTRIBUTES,
        id: (n) => n.id,
        visible: [...state.networks.values()].filter((n) => visible(n, caller)),
        render: (n) => renderNetwork(n, caller),
        notFound,
      },
      (n) => n.tags,
    );
  });

  scope.get<{ Params: { id: string } }>('/v2.0/networks/:id', async (request) => {
    const caller = callerOf(request);
    const network = state.networks.get(request.params.id);
    if (!network || !visible(network, caller)) throw notFound(request.params.id);
    return { network: selectFields(renderNetwork(network, caller), request.query as RawQuery) };
  });
}
