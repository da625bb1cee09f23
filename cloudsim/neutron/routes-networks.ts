// /v2.0/networks: list and show own, shared and external networks (admins: all); create, update
// and delete (409 NetworkInUse while ports other than DHCP-like ones remain).
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import type { RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { listCollection, selectFields, union, type Attribute } from './collection.js';
import type { Network, NeutronState } from './state.js';
import { AUTO_DELETE_OWNERS, applyNames, bodyOf, bool, checkQuota, checkRevision, conflict, int, iso, list, owns, policy, projectFor, str, touch, type Body, type Caller } from './writes.js';

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
    // Shown for external networks only (Neutron's create answer shows it for any: see the create route).
    ...(n.external ? { is_default: n.isDefault } : {}),
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
export const visibleNetwork = (n: Network, c: SimCaller) => c.isAdmin || n.projectId === c.projectId || n.shared || n.external;

export const networkNotFound = (id: string) => new SimError(404, `Network ${id} could not be found.`, 'NetworkNotFound');

export function registerNetworkRoutes(scope: FastifyInstance, state: NeutronState): void {
  scope.get('/v2.0/networks', async (request) => {
    const caller = callerOf(request);
    return listCollection(request, {
      name: 'networks',
      attributes: ATTRIBUTES,
      items: state.networks,
      indexed: { name: 'name', project_id: 'project', tenant_id: 'project' },
      tags: { of: (n) => n.tags, index: 'tag' },
      visible: (n) => visibleNetwork(n, caller),
      scope: () => (caller.isAdmin ? state.networks.values() : union(state.networks.by('project', caller.projectId), state.networks.by('open', 'yes'))),
      render: (n) => renderNetwork(n, caller),
      notFound: networkNotFound,
    });
  });

  scope.get<{ Params: { id: string } }>('/v2.0/networks/:id', async (request) => {
    const caller = callerOf(request);
    const network = state.networks.get(request.params.id);
    if (!network || !visibleNetwork(network, caller)) throw networkNotFound(request.params.id);
    return { network: selectFields(renderNetwork(network, caller), request.query as RawQuery) };
  });

  scope.post('/v2.0/networks', async (request, reply) => {
    const caller = callerOf(request);
    const b = bodyOf(request, 'network', [...UPDATABLE, 'project_id', 'tenant_id', 'provider:network_type', 'provider:physical_network', 'provider:segmentation_id', 'availability_zone_hints'], READ_ONLY);
    const projectId = projectFor(caller, b);
    for (const k of ['provider:network_type', 'provider:physical_network', 'provider:segmentation_id']) if (b[k] !== undefined && !caller.isAdmin) throw policy(`create_network:${k}`);
    const network = state.addNetwork({ ...state.newStandard(projectId), name: '', mtu: 1450 });
    try {
      checkQuota(state, projectId, 'network', 0);
      const type = str(b, 'provider:network_type');
      if (type !== undefined) network.providerNetworkType = type;
      const physnet = str(b, 'provider:physical_network');
      if (physnet !== undefined) network.providerPhysicalNetwork = physnet;
      network.providerSegmentationId = int(b, 'provider:segmentation_id', 1, 16777215) ?? (network.providerNetworkType === 'vxlan' ? 1000 + state.networks.size : null);
      const hints = list(b, 'availability_zone_hints');
      if (hints) network.availabilityZoneHints = hints.map(String);
      const unknownZone = network.availabilityZoneHints.find((z) => !state.zones.includes(z));
      if (unknownZone !== undefined) throw new SimError(404, `AvailabilityZone ${unknownZone} could not be found.`, 'AvailabilityZoneNotFound');
      update(network, b, caller, 'create');
      state.networks.refile(network.id);
    } catch (e) {
      state.networks.delete(network.id);
      throw e;
    }
    return reply.code(201).send({ network: { ...renderNetwork(network, caller), is_default: network.isDefault } });
  });

  scope.put<{ Params: { id: string } }>('/v2.0/networks/:id', async (request) => {
    const caller = callerOf(request);
    const network = owned(request.params.id, caller, 'update_network');
    checkRevision(request, network);
    const b = bodyOf(request, 'network', UPDATABLE, [...READ_ONLY, 'project_id', 'tenant_id', 'provider:network_type', 'provider:physical_network', 'provider:segmentation_id', 'availability_zone_hints']);
    if (b.shared === false && network.shared) {
      const others = state.ports.by('network', network.id).some((p) => p.projectId !== network.projectId && p.projectId !== '');
      if (others) throw conflict('InvalidSharedSetting', `Unable to reconfigure sharing settings for network ${network.id}. Multiple tenants are using it.`);
    }
    update(network, b, caller, 'update');
    touch(network);
    state.networks.refile(network.id);
    return { network: renderNetwork(network, caller) };
  });

  scope.delete<{ Params: { id: string } }>('/v2.0/networks/:id', async (request, reply) => {
    const caller = callerOf(request);
    const network = owned(request.params.id, caller, 'delete_network');
    checkRevision(request, network);
    const inUse = state.ports.by('network', network.id).filter((p) => !AUTO_DELETE_OWNERS.includes(p.deviceOwner));
    if (inUse.length > 0) {
      throw conflict(
        'NetworkInUse',
        `Unable to complete operation on network ${network.id}. There are one or more ports still in use on the network, id for these ports is: ${inUse.map((p) => p.id).join(', ')}.`,
      );
    }
    state.removeNetwork(network.id);
    return reply.code(204).send();
  });

  /** A network the caller may change: 404 when invisible, 403 when only visible (shared, external). */
  function owned(id: string, caller: Caller, rule: string): Network {
    const network = state.networks.get(id);
    if (!network || !visibleNetwork(network, caller)) throw networkNotFound(id);
    if (!owns(caller, network)) throw policy(rule);
    return network;
  }
}

const UPDATABLE = ['name', 'description', 'admin_state_up', 'shared', 'port_security_enabled', 'mtu', 'router:external', 'is_default'];
const READ_ONLY = ['subnets', 'availability_zones', 'status', 'ipv4_address_scope', 'ipv6_address_scope'];

/** The attributes of a create or update body (admins only: router:external, is_default; shared on create). */
function update(network: Network, b: Body, caller: Caller, action: 'create' | 'update'): void {
  applyNames(network, b);
  const admin = bool(b, 'admin_state_up');
  if (admin !== undefined) network.adminStateUp = admin;
  const shared = bool(b, 'shared');
  if (shared !== undefined && shared !== network.shared) {
    if (!caller.isAdmin) throw policy(`${action}_network:shared`);
    network.shared = shared;
  }
  const external = bool(b, 'router:external');
  if (external !== undefined && external !== network.external) {
    if (!caller.isAdmin) throw policy(`${action}_network:router:external`);
    network.external = external;
  }
  const isDefault = bool(b, 'is_default');
  if (isDefault !== undefined && isDefault !== network.isDefault) {
    if (!caller.isAdmin) throw policy(`${action}_network:is_default`);
    network.isDefault = isDefault;
  }
  const portSecurity = bool(b, 'port_security_enabled');
  if (portSecurity !== undefined) network.portSecurityEnabled = portSecurity;
  const mtu = int(b, 'mtu', 68, 9000);
  if (mtu !== undefined && mtu !== null) network.mtu = mtu;
}
