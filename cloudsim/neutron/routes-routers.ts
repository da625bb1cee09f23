// /v2.0/routers with external_gateway_info (the gateway port takes its SNAT address from the
// external network's subnet), add_router_interface / remove_router_interface by subnet or port,
// and the 409s: RouterInUse, RouterExternalGatewayInUseByFloatingIp,
// RouterInterfaceInUseByFloatingIP.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import type { RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { listCollection, selectFields, type Attribute } from './collection.js';
import { overlaps, parseCidr } from './ip.js';
import { allocateFixedIps } from './ipam.js';
import { networkNotFound, visibleNetwork } from './routes-networks.js';
import { newMac, portNotFound } from './routes-ports.js';
import { subnetNotFound } from './routes-subnets.js';
import type { NeutronState, Port, Router, Subnet } from './state.js';
import { applyNames, badRequest, bodyOf, bool, checkQuota, checkRevision, conflict, INTERFACE_OWNERS, list, owns, policy, projectFor, renderStandard, touch, type Body, type Caller } from './writes.js';

export const routerNotFound = (id: string) => new SimError(404, `Router ${id} could not be found`, 'RouterNotFound');
const badRouter = (msg: string) => badRequest(`Bad router request: ${msg}.`, 'BadRequest');

const ATTRIBUTES: Record<string, Attribute<Router>> = {
  id: { get: (r) => r.id, kind: 'string' },
  name: { get: (r) => r.name, kind: 'string' },
  project_id: { get: (r) => r.projectId, kind: 'string' },
  tenant_id: { get: (r) => r.projectId, kind: 'string' },
  status: { get: (r) => r.status, kind: 'string' },
  admin_state_up: { get: (r) => r.adminStateUp, kind: 'bool' },
  description: { get: (r) => r.description, kind: 'string' },
  revision_number: { get: (r) => r.revisionNumber, kind: 'int' },
};

/** The router's interface ports. */
export const interfacesOf = (state: NeutronState, routerId: string): Port[] =>
  state.ports.by('device', routerId).filter((p) => INTERFACE_OWNERS.includes(p.deviceOwner));

/** The routers with an interface on `subnetId`, in the order of their interface ports. */
export function routersOnSubnet(state: NeutronState, subnetId: string): Router[] {
  const found = new Set<Router>();
  for (const p of state.ports.by('subnet', subnetId)) {
    if (!INTERFACE_OWNERS.includes(p.deviceOwner)) continue;
    const r = state.routers.get(p.deviceId);
    if (r) found.add(r);
  }
  return [...found];
}

export function registerRouterRoutes(scope: FastifyInstance, state: NeutronState): void {
  const render = (r: Router, caller: Caller): Record<string, unknown> => {
    const gwPort = r.gateway ? state.ports.get(r.gateway.portId) : undefined;
    return {
      ...renderStandard(r),
      admin_state_up: r.adminStateUp,
      status: r.status,
      external_gateway_info: r.gateway
        ? {
            network_id: r.gateway.networkId,
            enable_snat: r.gateway.enableSnat,
            external_fixed_ips: (gwPort?.fixedIps ?? []).map((f) => ({ subnet_id: f.subnetId, ip_address: f.ipAddress })),
          }
        : null,
      routes: [],
      availability_zone_hints: [],
      availability_zones: [...state.zones],
      flavor_id: null,
      ...(caller.isAdmin ? { distributed: false, ha: false } : {}),
    };
  };
  const find = (id: string, caller: Caller): Router => {
    const r = state.routers.get(id);
    if (!r || !owns(caller, r)) throw routerNotFound(id);
    return r;
  };
  const fipsOf = (routerId: string) => state.floatingIps.by('router', routerId);

  /** Sets, changes or clears (`{}` / null) the gateway. */
  function setGateway(router: Router, raw: unknown, caller: Caller, action: string): void {
    if (raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) throw badRequest(`Invalid input for external_gateway_info. Reason: Invalid data format.`);
    const info = (raw ?? {}) as Body;
    const clearing = info.network_id === undefined;
    if (router.gateway && (clearing || info.network_id !== router.gateway.networkId) && fipsOf(router.id).length > 0) {
      throw conflict(
        'RouterExternalGatewayInUseByFloatingIp',
        `Gateway cannot be updated for router ${router.id}, since a gateway to external network ${router.gateway.networkId} is required by one or more floating IPs.`,
      );
    }
    if (clearing) {
      if (Object.keys(info).length > 0) throw badRequest("Invalid input for external_gateway_info. Reason: Validation of dictionary's keys failed. Expected keys: {'network_id'}.");
      if (router.gateway) state.ports.delete(router.gateway.portId);
      router.gateway = null;
      return;
    }
    const network = state.networks.get(String(info.network_id));
    if (!network || !visibleNetwork(network, caller)) throw networkNotFound(String(info.network_id));
    if (!network.external) throw badRouter(`Network ${network.id} is not an external network`);
    const snat = bool(info, 'enable_snat');
    if (snat !== undefined && !caller.isAdmin) throw policy(`${action}_router:external_gateway_info:enable_snat`);
    const fixed = list(info, 'external_fixed_ips');
    if (fixed !== undefined && !caller.isAdmin) throw policy(`${action}_router:external_gateway_info:external_fixed_ips`);
    const old = router.gateway ? state.ports.get(router.gateway.portId) : undefined;
    if (old && old.networkId === network.id && fixed === undefined) {
      router.gateway = { ...router.gateway!, enableSnat: snat ?? router.gateway!.enableSnat };
      return;
    }
    const sameNet = old && old.networkId === network.id ? old : undefined;
    const ips = allocateFixedIps(state, network, fixed, sameNet?.id, sameNet?.fixedIps ?? []);
    if (old) state.ports.delete(old.id);
    const port = state.addPort({ networkId: network.id, macAddress: newMac(state), deviceOwner: 'network:router_gateway', deviceId: router.id, fixedIps: ips, portSecurityEnabled: false });
    router.gateway = { networkId: network.id, enableSnat: snat ?? router.gateway?.enableSnat ?? true, portId: port.id };
  }

  scope.get('/v2.0/routers', async (request) => {
    const caller = callerOf(request);
    return listCollection(request, {
      name: 'routers',
      attributes: ATTRIBUTES,
      items: state.routers,
      indexed: { name: 'name', project_id: 'project', tenant_id: 'project' },
      tags: { of: (r) => r.tags, index: 'tag' },
      visible: (r) => owns(caller, r),
      scope: () => (caller.isAdmin ? state.routers.values() : state.routers.by('project', caller.projectId)),
      render: (r) => render(r, caller),
      notFound: routerNotFound,
    });
  });

  scope.get<{ Params: { id: string } }>('/v2.0/routers/:id', async (request) => {
    const caller = callerOf(request);
    return { router: selectFields(render(find(request.params.id, caller), caller), request.query as RawQuery) };
  });

  const UPDATABLE = ['name', 'description', 'admin_state_up', 'external_gateway_info'];
  const READ_ONLY = ['routes', 'distributed', 'ha', 'availability_zone_hints', 'flavor_id'];

  scope.post('/v2.0/routers', async (request, reply) => {
    const caller = callerOf(request);
    const b = bodyOf(request, 'router', [...UPDATABLE, 'project_id', 'tenant_id'], READ_ONLY);
    const projectId = projectFor(caller, b);
    checkQuota(state, projectId, 'router');
    const router: Router = { ...state.newStandard(projectId), adminStateUp: true, status: 'ACTIVE', gateway: null };
    applyNames(router, b);
    router.adminStateUp = bool(b, 'admin_state_up') ?? true;
    if (b.external_gateway_info !== undefined) setGateway(router, b.external_gateway_info, caller, 'create');
    state.routers.set(router.id, router);
    return reply.code(201).send({ router: render(router, caller) });
  });

  scope.put<{ Params: { id: string } }>('/v2.0/routers/:id', async (request) => {
    const caller = callerOf(request);
    const router = find(request.params.id, caller);
    checkRevision(request, router);
    const b = bodyOf(request, 'router', UPDATABLE, [...READ_ONLY, 'project_id', 'tenant_id']);
    const admin = bool(b, 'admin_state_up');
    if (b.external_gateway_info !== undefined) setGateway(router, b.external_gateway_info, caller, 'update');
    applyNames(router, b);
    if (admin !== undefined) router.adminStateUp = admin;
    touch(router);
    state.routers.refile(router.id);
    return { router: render(router, caller) };
  });

  scope.delete<{ Params: { id: string } }>('/v2.0/routers/:id', async (request, reply) => {
    const caller = callerOf(request);
    const router = find(request.params.id, caller);
    checkRevision(request, router);
    const attached = interfacesOf(state, router.id);
    if (attached.length > 0) {
      throw conflict('RouterInUse', `Router ${router.id} has ports still attached: ${attached.map((p) => p.id).join(', ')}`);
    }
    if (router.gateway) state.ports.delete(router.gateway.portId);
    state.routers.delete(router.id);
    return reply.code(204).send();
  });

  const interfaceInfo = (router: Router, port: Port, subnetId: string) => ({
    id: router.id,
    tenant_id: router.projectId,
    subnet_id: subnetId,
    subnet_ids: port.fixedIps.map((f) => f.subnetId),
    port_id: port.id,
    network_id: port.networkId,
  });

  function interfaceBody(request: { body: unknown }): { subnetId?: string; portId?: string } {
    const b = (request.body ?? {}) as Body;
    if (typeof b !== 'object' || Array.isArray(b)) throw badRequest('Body contains invalid data');
    const subnetId = b.subnet_id === undefined ? undefined : String(b.subnet_id);
    const portId = b.port_id === undefined ? undefined : String(b.port_id);
    return { subnetId, portId };
  }

  scope.put<{ Params: { id: string } }>('/v2.0/routers/:id/add_router_interface', async (request) => {
    const caller = callerOf(request);
    const router = find(request.params.id, caller);
    const { subnetId, portId } = interfaceBody(request);
    if (subnetId && portId) throw badRouter('Cannot specify both subnet-id and port-id');
    if (!subnetId && !portId) throw badRouter('Either subnet_id or port_id must be specified');
    const existing = interfacesOf(state, router.id).flatMap((p) => p.fixedIps.map((f) => state.subnets.get(f.subnetId)!)).filter(Boolean);
    const checkSubnet = (subnet: Subnet) => {
      if (existing.some((s) => s.id === subnet.id)) throw badRouter(`Router already has a port on subnet ${subnet.id}`);
      const clash = existing.find((s) => overlaps(parseCidr(s.cidr)!, parseCidr(subnet.cidr)!));
      if (clash) throw badRouter(`Cidr ${subnet.cidr} of subnet ${subnet.id} overlaps with cidr ${clash.cidr} of subnet ${clash.id}`);
    };
    if (portId) {
      const port = state.ports.get(portId);
      if (!port || !owns(caller, port)) throw portNotFound(portId);
      if (port.deviceId !== '' || port.deviceOwner !== '') {
        throw conflict('PortInUse', `Unable to complete operation on port ${port.id} for network ${port.networkId}. Port already has an attached device ${port.deviceId}.`);
      }
      if (port.fixedIps.length === 0) throw badRouter('Router port must have at least one fixed IP');
      if (new Set(port.fixedIps.map((f) => f.subnetId)).size > 1) throw badRouter('Cannot have multiple IPv4 subnets on router port');
      const subnet = state.subnets.get(port.fixedIps[0]!.subnetId)!;
      checkSubnet(subnet);
      Object.assign(port, { deviceId: router.id, deviceOwner: 'network:router_interface' });
      touch(port);
      state.ports.refile(port.id);
      touch(router);
      return interfaceInfo(router, port, subnet.id);
    }
    const subnet = state.subnets.get(subnetId!);
    if (!subnet || !(owns(caller, subnet) || state.networks.get(subnet.networkId)?.shared)) throw subnetNotFound(subnetId!);
    if (subnet.gatewayIp === null) throw badRouter('Subnet for router interface must have a gateway IP');
    checkSubnet(subnet);
    const network = state.networks.get(subnet.networkId)!;
    const fixedIps = allocateFixedIps(state, network, [{ subnet_id: subnet.id, ip_address: subnet.gatewayIp }]);
    const port = state.addPort({
      ...state.newStandard(router.projectId),
      networkId: network.id,
      macAddress: newMac(state),
      deviceOwner: 'network:router_interface',
      deviceId: router.id,
      fixedIps,
      portSecurityEnabled: false,
    });
    touch(router);
    return interfaceInfo(router, port, subnet.id);
  });

  scope.put<{ Params: { id: string } }>('/v2.0/routers/:id/remove_router_interface', async (request) => {
    const caller = callerOf(request);
    const router = find(request.params.id, caller);
    const { subnetId, portId } = interfaceBody(request);
    if (!subnetId && !portId) throw badRouter('Either subnet_id or port_id must be specified');
    const interfaces = interfacesOf(state, router.id);
    let port: Port | undefined;
    if (portId) {
      port = interfaces.find((p) => p.id === portId);
      if (!port) throw new SimError(404, `Router ${router.id} does not have an interface with id ${portId}`, 'RouterInterfaceNotFound');
      if (subnetId && !port.fixedIps.some((f) => f.subnetId === subnetId)) {
        throw badRequest(`Subnet ${subnetId} is not associated with port ${portId}`, 'SubnetMismatchForPort');
      }
    } else {
      port = interfaces.find((p) => p.fixedIps.some((f) => f.subnetId === subnetId));
      if (!port) throw new SimError(404, `Router ${router.id} has no interface on subnet ${subnetId}`, 'RouterInterfaceNotFoundForSubnet');
    }
    const subnetIds = port.fixedIps.map((f) => f.subnetId);
    for (const fip of state.floatingIps.by('router', router.id)) {
      const inner = fip.portId ? state.ports.get(fip.portId) : undefined;
      const behind = inner?.fixedIps.find((f) => f.ipAddress === fip.fixedIpAddress && subnetIds.includes(f.subnetId));
      if (behind) {
        throw conflict(
          'RouterInterfaceInUseByFloatingIP',
          `Router interface for subnet ${behind.subnetId} on router ${router.id} cannot be deleted, as it is required by one or more floating IPs.`,
        );
      }
    }
    state.ports.delete(port.id);
    touch(router);
    return interfaceInfo(router, port, subnetId ?? subnetIds[0] ?? '');
  });
}
