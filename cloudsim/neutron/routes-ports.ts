// /v2.0/ports: fixed IPs from the network's subnets (lowest free address, or the ones asked
// for), MAC addresses, security groups (the project's `default` one unless told), allowed
// address pairs and port security, tags at create (ports only), and ServicePortInUse for ports
// the router and floating IP APIs own.
import type { FastifyInstance } from 'fastify';
import { randomInt } from 'node:crypto';
import { SimError } from '../common/errors.js';
import type { RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { listCollection, selectFields, union, type Attribute } from './collection.js';
import { isIpv6, parseCidr, parseIp } from './ip.js';
import { allocateFixedIps } from './ipam.js';
import { networkNotFound, visibleNetwork } from './routes-networks.js';
import { ensureDefaultGroup, sgNotFound } from './routes-security-groups.js';
import { validateTags } from './routes-tags.js';
import type { Network, NeutronState, Port } from './state.js';
import { applyNames, badRequest, bodyOf, bool, checkQuota, checkRevision, conflict, list, owns, policy, projectFor, renderStandard, ROUTER_OWNERS, str, touch, type Body, type Caller } from './writes.js';

export const portNotFound = (id: string) => new SimError(404, `Port ${id} could not be found.`, 'PortNotFound');

const MAX_ADDRESS_PAIRS = 10;
const portStatus = (p: Port) => (p.deviceOwner !== '' || p.bindingHostId !== '' ? 'ACTIVE' : 'DOWN');

export function renderPort(p: Port, caller: Caller): Record<string, unknown> {
  return {
    ...renderStandard(p),
    network_id: p.networkId,
    mac_address: p.macAddress,
    admin_state_up: p.adminStateUp,
    status: portStatus(p),
    device_id: p.deviceId,
    device_owner: p.deviceOwner,
    fixed_ips: p.fixedIps.map((f) => ({ subnet_id: f.subnetId, ip_address: f.ipAddress })),
    allowed_address_pairs: p.allowedAddressPairs.map((a) => ({ ...a })),
    extra_dhcp_opts: [],
    security_groups: [...p.securityGroups],
    port_security_enabled: p.portSecurityEnabled,
    'binding:vnic_type': p.bindingVnicType,
    ...(caller.isAdmin ? { 'binding:host_id': p.bindingHostId, 'binding:profile': {}, 'binding:vif_type': p.bindingHostId ? 'ovs' : 'unbound', 'binding:vif_details': {} } : {}),
  };
}

const ATTRIBUTES: Record<string, Attribute<Port>> = {
  id: { get: (p) => p.id, kind: 'string' },
  name: { get: (p) => p.name, kind: 'string' },
  project_id: { get: (p) => p.projectId, kind: 'string' },
  tenant_id: { get: (p) => p.projectId, kind: 'string' },
  network_id: { get: (p) => p.networkId, kind: 'string' },
  mac_address: { get: (p) => p.macAddress, kind: 'string' },
  admin_state_up: { get: (p) => p.adminStateUp, kind: 'bool' },
  status: { get: portStatus, kind: 'string' },
  device_id: { get: (p) => p.deviceId, kind: 'string' },
  device_owner: { get: (p) => p.deviceOwner, kind: 'string' },
  description: { get: (p) => p.description, kind: 'string' },
  port_security_enabled: { get: (p) => p.portSecurityEnabled, kind: 'bool' },
  'binding:vnic_type': { get: (p) => p.bindingVnicType, kind: 'string' },
  'binding:host_id': { get: (p) => p.bindingHostId, kind: 'string' },
  revision_number: { get: (p) => p.revisionNumber, kind: 'int' },
};

const UPDATABLE = ['name', 'description', 'admin_state_up', 'fixed_ips', 'security_groups', 'allowed_address_pairs', 'port_security_enabled', 'device_id', 'device_owner', 'binding:host_id', 'binding:vnic_type', 'mac_address'];

/** A MAC address in OpenStack's fa:16:3e prefix, unique in the simulator. */
export function newMac(state: NeutronState): string {
  for (;;) {
    const mac = `fa:16:3e:${[0, 0, 0].map(() => randomInt(256).toString(16).padStart(2, '0')).join(':')}`;
    if (state.ports.count('mac', mac) === 0) return mac;
  }
}

/** Disassociates floating IPs from a port that goes away. */
export function releaseFloatingIps(state: NeutronState, portId: string): void {
  for (const f of state.floatingIps.by('port', portId)) {
    Object.assign(f, { portId: null, fixedIpAddress: null, routerId: null });
    state.floatingIps.refile(f.id);
  }
}

export function registerPortRoutes(scope: FastifyInstance, state: NeutronState): void {
  /** The port's owner, the owner of its network, or an admin. */
  const visible = (p: Port, c: Caller) => owns(c, p) || (state.networks.get(p.networkId)?.projectId ?? '') === c.projectId;
  const find = (id: string, caller: Caller): Port => {
    const port = state.ports.get(id);
    if (!port || !visible(port, caller)) throw portNotFound(id);
    return port;
  };

  scope.get('/v2.0/ports', async (request) => {
    const caller = callerOf(request);
    return listCollection(request, {
      name: 'ports',
      attributes: ATTRIBUTES,
      items: state.ports,
      indexed: { name: 'name', project_id: 'project', tenant_id: 'project', network_id: 'network', device_id: 'device', mac_address: 'mac' },
      tags: { of: (p) => p.tags, index: 'tag' },
      visible: (p) => visible(p, caller),
      // Its own ports, and those on its networks.
      scope: () =>
        caller.isAdmin
          ? state.ports.values()
          : union(state.ports.by('project', caller.projectId), state.ports.byAny('network', state.networks.by('project', caller.projectId).map((n) => n.id))),
      render: (p) => renderPort(p, caller),
      notFound: portNotFound,
    });
  });

  scope.get<{ Params: { id: string } }>('/v2.0/ports/:id', async (request) => {
    const caller = callerOf(request);
    return { port: selectFields(renderPort(find(request.params.id, caller), caller), request.query as RawQuery) };
  });

  scope.post('/v2.0/ports', async (request, reply) => {
    const caller = callerOf(request);
    const b = bodyOf(request, 'port', [...UPDATABLE, 'network_id', 'tags', 'project_id', 'tenant_id'], ['extra_dhcp_opts']);
    if (b.network_id === undefined) throw badRequest("Failed to parse request. Required attribute 'network_id' not specified");
    const network = state.networks.get(String(b.network_id));
    if (!network || !visibleNetwork(network, caller)) throw networkNotFound(String(b.network_id));
    const projectId = projectFor(caller, b);
    if (!owns(caller, network) && !network.shared) throw policy('create_port');
    const tags = b.tags === undefined ? [] : validateTags(b.tags);
    checkQuota(state, projectId, 'port');
    const port: Port = {
      ...state.newStandard(projectId),
      networkId: network.id,
      macAddress: '',
      adminStateUp: true,
      status: 'DOWN',
      fixedIps: [],
      deviceId: '',
      deviceOwner: '',
      securityGroups: [],
      portSecurityEnabled: network.portSecurityEnabled,
      allowedAddressPairs: [],
      bindingHostId: '',
      bindingVnicType: 'normal',
      tags,
    };
    apply(port, network, b, caller, true);
    state.ports.set(port.id, port);
    return reply.code(201).send({ port: renderPort(port, caller) });
  });

  scope.put<{ Params: { id: string } }>('/v2.0/ports/:id', async (request) => {
    const caller = callerOf(request);
    const port = find(request.params.id, caller);
    checkRevision(request, port);
    const b = bodyOf(request, 'port', UPDATABLE, ['network_id', 'project_id', 'tenant_id', 'extra_dhcp_opts']);
    const copy = structuredClone(port);
    apply(copy, state.networks.get(port.networkId)!, b, caller, false);
    Object.assign(port, copy);
    touch(port);
    state.ports.refile(port.id);
    return { port: renderPort(port, caller) };
  });

  scope.delete<{ Params: { id: string } }>('/v2.0/ports/:id', async (request, reply) => {
    const caller = callerOf(request);
    const port = find(request.params.id, caller);
    checkRevision(request, port);
    if (ROUTER_OWNERS.includes(port.deviceOwner)) {
      throw conflict('ServicePortInUse', `Port ${port.id} cannot be deleted directly via the port API: has device owner ${port.deviceOwner}.`);
    }
    releaseFloatingIps(state, port.id);
    state.ports.delete(port.id);
    return reply.code(204).send();
  });

  /** Applies a create or update body to `port` (a copy on update, so a failure changes nothing). */
  function apply(port: Port, network: Network, b: Body, caller: Caller, create: boolean): void {
    applyNames(port, b);
    const admin = bool(b, 'admin_state_up');
    if (admin !== undefined) port.adminStateUp = admin;
    const deviceId = str(b, 'device_id');
    if (deviceId !== undefined) port.deviceId = deviceId;
    const deviceOwner = str(b, 'device_owner');
    if (deviceOwner !== undefined) {
      if (deviceOwner.startsWith('network:') && !owns(caller, network)) throw policy(`${create ? 'create' : 'update'}_port:device_owner`);
      port.deviceOwner = deviceOwner;
    }
    const host = str(b, 'binding:host_id');
    if (host !== undefined) {
      if (!caller.isAdmin) throw policy(`${create ? 'create' : 'update'}_port:binding:host_id`);
      port.bindingHostId = host;
    }
    const vnic = str(b, 'binding:vnic_type');
    if (vnic !== undefined) {
      const types = ['normal', 'direct', 'macvtap', 'baremetal', 'direct-physical', 'virtio-forwarder', 'smart-nic', 'vdpa', 'remote-managed'];
      if (!types.includes(vnic)) throw badRequest(`Invalid input for binding:vnic_type. Reason: '${vnic}' is not in [${types.map((t) => `'${t}'`).join(', ')}].`);
      port.bindingVnicType = vnic;
    }
    if (b.mac_address !== undefined) {
      if (!owns(caller, network)) throw policy(`${create ? 'create' : 'update'}_port:mac_address`);
      const mac = String(b.mac_address).toLowerCase();
      if (!/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(mac)) throw badRequest(`Invalid input for mac_address. Reason: '${String(b.mac_address)}' is not a valid MAC address.`);
      if (state.ports.by('mac', mac).some((p) => p.id !== port.id && p.networkId === network.id)) {
        throw conflict('MacAddressInUse', `Unable to complete operation for network ${network.id}. The mac address ${mac} is in use.`);
      }
      port.macAddress = mac;
    } else if (create) port.macAddress = newMac(state);
    const fixed = list(b, 'fixed_ips');
    if (create || fixed !== undefined) port.fixedIps = allocateFixedIps(state, network, fixed, port.id, create ? [] : port.fixedIps);

    const psec = bool(b, 'port_security_enabled');
    if (psec !== undefined) port.portSecurityEnabled = psec;
    const groups = list(b, 'security_groups');
    if (groups !== undefined) {
      port.securityGroups = [...new Set(groups.map(String))];
      for (const id of port.securityGroups) {
        const sg = state.securityGroups.get(id);
        if (!sg || !(caller.isAdmin || sg.projectId === port.projectId)) throw sgNotFound(id);
      }
    } else if (create && port.portSecurityEnabled && !port.deviceOwner.startsWith('network:')) {
      port.securityGroups = [ensureDefaultGroup(state, port.projectId).id];
    }
    const pairs = list(b, 'allowed_address_pairs');
    if (pairs !== undefined) port.allowedAddressPairs = addressPairs(pairs, port.macAddress);
    if (!port.portSecurityEnabled) {
      if (port.allowedAddressPairs.length > 0) {
        throw conflict('AddressPairAndPortSecurityRequired', 'Port Security must be enabled in order to have allowed address pairs on a port.');
      }
      if (port.securityGroups.length > 0) {
        if (create || groups !== undefined) {
          throw badRequest('Port security must be enabled and port must have an IP address in order to use security groups.', 'PortSecurityAndIPRequiredForSecurityGroups');
        }
        throw conflict('PortSecurityPortHasSecurityGroup', 'Port has security group associated. Cannot disable port security or ip address until security group is removed');
      }
    }
  }
}

function addressPairs(pairs: unknown[], portMac: string): Port['allowedAddressPairs'] {
  if (pairs.length > MAX_ADDRESS_PAIRS) throw badRequest(`The number of allowed address pair exceeds the maximum ${MAX_ADDRESS_PAIRS}.`, 'AllowedAddressPairExhausted');
  const out: Port['allowedAddressPairs'] = [];
  for (const raw of pairs) {
    const { ip_address: ip, mac_address: mac } = (raw ?? {}) as { ip_address?: unknown; mac_address?: unknown };
    if (ip === undefined) throw badRequest('AllowedAddressPair must contain ip_address', 'AllowedAddressPairsMissingIP');
    const valid = typeof ip === 'string' && (parseIp(ip) !== undefined || parseCidr(ip) !== undefined || isIpv6(ip));
    if (!valid) throw badRequest(`Invalid input for allowed_address_pairs. Reason: '${String(ip)}' is not a valid IP address.`);
    const pair = { ip_address: ip, mac_address: typeof mac === 'string' ? mac.toLowerCase() : portMac };
    if (out.some((o) => o.ip_address === pair.ip_address && o.mac_address === pair.mac_address)) {
      throw badRequest(`Request contains duplicate address pair: mac_address ${pair.mac_address} ip_address ${pair.ip_address}.`, 'DuplicateAddressPairInRequest');
    }
    out.push(pair);
  }
  return out;
}
