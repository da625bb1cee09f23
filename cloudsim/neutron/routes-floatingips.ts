// /v2.0/floatingips: addresses from an external network's subnets, associated with a port whose
// subnet reaches a router with its gateway on that network (404
// ExternalGatewayForFloatingIPNotFound otherwise), one floating IP per fixed IP.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import type { RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { listCollection, selectFields, type Attribute } from './collection.js';
import { parseIp } from './ip.js';
import { allocateFixedIps } from './ipam.js';
import { networkNotFound, visibleNetwork } from './routes-networks.js';
import { newMac, portNotFound } from './routes-ports.js';
import { routersOnSubnet } from './routes-routers.js';
import type { FloatingIp, NeutronState } from './state.js';
import { badRequest, bodyOf, checkQuota, checkRevision, conflict, iso, owns, policy, projectFor, str, touch, type Body, type Caller } from './writes.js';

const fipNotFound = (id: string) => new SimError(404, `Floating IP ${id} could not be found`, 'FloatingIPNotFound');
const badFip = (msg: string) => badRequest(`Bad floatingip request: ${msg}.`, 'BadRequest');
const fipStatus = (f: FloatingIp) => (f.portId ? 'ACTIVE' : 'DOWN');

const ATTRIBUTES: Record<string, Attribute<FloatingIp>> = {
  id: { get: (f) => f.id, kind: 'string' },
  project_id: { get: (f) => f.projectId, kind: 'string' },
  tenant_id: { get: (f) => f.projectId, kind: 'string' },
  floating_ip_address: { get: (f) => f.floatingIpAddress, kind: 'string' },
  floating_network_id: { get: (f) => f.floatingNetworkId, kind: 'string' },
  router_id: { get: (f) => f.routerId, kind: 'string' },
  port_id: { get: (f) => f.portId, kind: 'string' },
  fixed_ip_address: { get: (f) => f.fixedIpAddress, kind: 'string' },
  status: { get: fipStatus, kind: 'string' },
  description: { get: (f) => f.description, kind: 'string' },
  revision_number: { get: (f) => f.revisionNumber, kind: 'int' },
};

export function registerFloatingIpRoutes(scope: FastifyInstance, state: NeutronState): void {
  const render = (f: FloatingIp): Record<string, unknown> => {
    const port = f.portId ? state.ports.get(f.portId) : undefined;
    return {
      id: f.id,
      tenant_id: f.projectId,
      project_id: f.projectId,
      floating_ip_address: f.floatingIpAddress,
      floating_network_id: f.floatingNetworkId,
      router_id: f.routerId,
      port_id: f.portId,
      fixed_ip_address: f.fixedIpAddress,
      status: fipStatus(f),
      description: f.description,
      port_details: port
        ? { name: port.name, network_id: port.networkId, mac_address: port.macAddress, admin_state_up: port.adminStateUp, status: port.deviceOwner ? 'ACTIVE' : 'DOWN', device_id: port.deviceId, device_owner: port.deviceOwner }
        : null,
      tags: f.tags,
      created_at: iso(f.createdAt),
      updated_at: iso(f.updatedAt),
      revision_number: f.revisionNumber,
    };
  };
  const find = (id: string, caller: Caller) => {
    const f = state.floatingIps.get(id);
    if (!f || !owns(caller, f)) throw fipNotFound(id);
    return f;
  };

  /** Associates (port_id) or disassociates (null) after checking the port reaches the FIP network. */
  function associate(fip: FloatingIp, b: Body, caller: Caller): void {
    if (b.port_id === null) {
      Object.assign(fip, { portId: null, fixedIpAddress: null, routerId: null });
      return;
    }
    const port = state.ports.get(String(b.port_id));
    if (!port || !owns(caller, port)) throw portNotFound(String(b.port_id));
    if (port.projectId !== fip.projectId) {
      throw badFip(`Cannot create floating IP and bind it to Port ${port.id}, since that port is owned by a different tenant`);
    }
    let fixed = port.fixedIps.filter((f) => parseIp(f.ipAddress) !== undefined);
    if (b.fixed_ip_address !== undefined && b.fixed_ip_address !== null) {
      fixed = fixed.filter((f) => f.ipAddress === b.fixed_ip_address);
      if (fixed.length === 0) throw badFip(`Port ${port.id} does not have fixed ip ${String(b.fixed_ip_address)}`);
    }
    if (fixed.length === 0) throw badFip(`Port ${port.id} does not have any IPv4 address. Floating IPs need one`);
    if (fixed.length > 1) {
      throw badFip(`Port ${port.id} has multiple fixed IPv4 addresses. Must provide a specific IPv4 address when assigning a floating IP`);
    }
    const ip = fixed[0]!;
    // From the subnet's router interfaces to their routers (one pass over the ports, not one per router).
    const router = routersOnSubnet(state, ip.subnetId).find((r) => r.gateway?.networkId === fip.floatingNetworkId);
    if (!router) {
      throw new SimError(
        404,
        `External network ${fip.floatingNetworkId} is not reachable from subnet ${ip.subnetId}.  Therefore, cannot associate Port ${port.id} with a Floating IP.`,
        'ExternalGatewayForFloatingIPNotFound',
      );
    }
    const other = state.floatingIps.by('port', port.id).find((f) => f.id !== fip.id && f.fixedIpAddress === ip.ipAddress);
    if (other) {
      throw conflict(
        'FloatingIPPortAlreadyAssociated',
        `Cannot associate floating IP ${fip.floatingIpAddress} (${fip.id}) with port ${port.id} using fixed IP ${ip.ipAddress}, as that fixed IP already has a floating IP on external network ${other.floatingNetworkId}.`,
      );
    }
    Object.assign(fip, { portId: port.id, fixedIpAddress: ip.ipAddress, routerId: router.id });
  }

  scope.get('/v2.0/floatingips', async (request) => {
    const caller = callerOf(request);
    return listCollection(request, {
      name: 'floatingips',
      attributes: ATTRIBUTES,
      items: state.floatingIps,
      indexed: {
        project_id: 'project',
        tenant_id: 'project',
        floating_ip_address: 'address',
        floating_network_id: 'network',
        port_id: 'port',
        router_id: 'router',
      },
      tags: { of: (f) => f.tags, index: 'tag' },
      visible: (f) => owns(caller, f),
      scope: () => (caller.isAdmin ? state.floatingIps.values() : state.floatingIps.by('project', caller.projectId)),
      render,
      notFound: fipNotFound,
    });
  });

  scope.get<{ Params: { id: string } }>('/v2.0/floatingips/:id', async (request) => {
    return { floatingip: selectFields(render(find(request.params.id, callerOf(request))), request.query as RawQuery) };
  });

  scope.post('/v2.0/floatingips', async (request, reply) => {
    const caller = callerOf(request);
    const b = bodyOf(
      request,
      'floatingip',
      ['floating_network_id', 'port_id', 'fixed_ip_address', 'floating_ip_address', 'subnet_id', 'description', 'project_id', 'tenant_id'],
      ['router_id', 'qos_policy_id', 'port_details', 'port_forwardings'],
    );
    if (b.floating_network_id === undefined) throw badRequest("Failed to parse request. Required attribute 'floating_network_id' not specified");
    const network = state.networks.get(String(b.floating_network_id));
    if (!network || !visibleNetwork(network, caller)) throw networkNotFound(String(b.floating_network_id));
    if (!network.external) throw badFip(`Network ${network.id} is not a valid external network`);
    if (b.floating_ip_address !== undefined && !caller.isAdmin) throw policy('create_floatingip:floating_ip_address');
    const projectId = projectFor(caller, b);
    checkQuota(state, projectId, 'floatingip');
    const request_: Record<string, unknown> = {};
    if (b.subnet_id !== undefined) request_.subnet_id = b.subnet_id;
    if (b.floating_ip_address !== undefined) request_.ip_address = b.floating_ip_address;
    const ips = allocateFixedIps(state, network, Object.keys(request_).length ? [request_] : undefined);
    if (ips.length === 0) throw conflict('IpAddressGenerationFailure', `No more IP addresses available on network ${network.id}.`);
    const fip: FloatingIp = {
      ...state.newStandard(projectId),
      floatingNetworkId: network.id,
      floatingIpAddress: ips[0]!.ipAddress,
      fipPortId: '',
      portId: null,
      fixedIpAddress: null,
      routerId: null,
    };
    fip.description = str(b, 'description') ?? '';
    if (b.port_id !== undefined && b.port_id !== null) associate(fip, b, caller);
    const port = state.addPort({ networkId: network.id, macAddress: newMac(state), deviceOwner: 'network:floatingip', deviceId: fip.id, fixedIps: ips, portSecurityEnabled: false });
    fip.fipPortId = port.id;
    state.floatingIps.set(fip.id, fip);
    return reply.code(201).send({ floatingip: render(fip) });
  });

  scope.put<{ Params: { id: string } }>('/v2.0/floatingips/:id', async (request) => {
    const caller = callerOf(request);
    const fip = find(request.params.id, caller);
    checkRevision(request, fip);
    const b = bodyOf(request, 'floatingip', ['port_id', 'fixed_ip_address', 'description'], [
      'floating_network_id', 'floating_ip_address', 'subnet_id', 'project_id', 'tenant_id', 'router_id', 'qos_policy_id', 'port_details', 'port_forwardings',
    ]);
    const description = str(b, 'description');
    if (b.port_id !== undefined) associate(fip, b, caller);
    if (description !== undefined) fip.description = description;
    touch(fip);
    state.floatingIps.refile(fip.id);
    return { floatingip: render(fip) };
  });

  scope.delete<{ Params: { id: string } }>('/v2.0/floatingips/:id', async (request, reply) => {
    const fip = find(request.params.id, callerOf(request));
    checkRevision(request, fip);
    state.ports.delete(fip.fipPortId);
    state.floatingIps.delete(fip.id);
    return reply.code(204).send();
  });
}
