// /v2.0/subnets: IPv4 subnets with CIDR, gateway, allocation pool and DNS validation; an
// overlapping CIDR on the same network is a 400; delete is a 409 SubnetInUse while ports hold
// addresses from it.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import type { RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { listCollection, selectFields, union, type Attribute, type CollectionSpec } from './collection.js';
import { formatCidr, formatIp, hostRange, overlaps, parseCidr, parseIp } from './ip.js';
import { defaultPools, dhcpRefusal } from './ipam.js';
import { networkNotFound, visibleNetwork } from './routes-networks.js';
import type { NeutronState, Pool, Subnet } from './state.js';
import { AUTO_DELETE_OWNERS, applyNames, badRequest, bodyOf, bool, checkQuota, checkRevision, conflict, list, owns, policy, projectFor, renderStandard, touch, type Body, type Caller } from './writes.js';

export function renderSubnet(s: Subnet): Record<string, unknown> {
  return {
    ...renderStandard(s),
    network_id: s.networkId,
    ip_version: s.ipVersion,
    subnetpool_id: null,
    enable_dhcp: s.enableDhcp,
    ipv6_ra_mode: null,
    ipv6_address_mode: null,
    gateway_ip: s.gatewayIp,
    cidr: s.cidr,
    allocation_pools: s.allocationPools.map((p) => ({ ...p })),
    host_routes: s.hostRoutes,
    dns_nameservers: s.dnsNameservers,
    service_types: [],
  };
}

const ATTRIBUTES: Record<string, Attribute<Subnet>> = {
  id: { get: (s) => s.id, kind: 'string' },
  name: { get: (s) => s.name, kind: 'string' },
  project_id: { get: (s) => s.projectId, kind: 'string' },
  tenant_id: { get: (s) => s.projectId, kind: 'string' },
  network_id: { get: (s) => s.networkId, kind: 'string' },
  ip_version: { get: (s) => s.ipVersion, kind: 'int' },
  cidr: { get: (s) => s.cidr, kind: 'string' },
  gateway_ip: { get: (s) => s.gatewayIp, kind: 'string' },
  enable_dhcp: { get: (s) => s.enableDhcp, kind: 'bool' },
  description: { get: (s) => s.description, kind: 'string' },
  revision_number: { get: (s) => s.revisionNumber, kind: 'int' },
};

const UPDATABLE = ['name', 'description', 'gateway_ip', 'enable_dhcp', 'dns_nameservers', 'allocation_pools', 'host_routes'];
const CREATE_ONLY = ['network_id', 'ip_version', 'cidr', 'project_id', 'tenant_id', 'subnetpool_id', 'prefixlen', 'ipv6_ra_mode', 'ipv6_address_mode'];
const MAX_DNS_NAMESERVERS = 5;

export const subnetNotFound = (id: string) => new SimError(404, `Subnet ${id} could not be found.`, 'SubnetNotFound');

export function registerSubnetRoutes(scope: FastifyInstance, state: NeutronState): void {
  /** Own subnets and those of shared networks (admins: all). */
  const visible = (s: Subnet, c: Caller) => owns(c, s) || state.networks.get(s.networkId)?.shared === true;
  const spec = (caller: Caller): CollectionSpec<Subnet, 'project' | 'name' | 'tag' | 'network'> => ({
    name: 'subnets',
    attributes: ATTRIBUTES,
    items: state.subnets,
    indexed: { name: 'name', project_id: 'project', tenant_id: 'project', network_id: 'network' },
    tags: { of: (s) => s.tags, index: 'tag' },
    visible: (s) => visible(s, caller),
    scope: () =>
      caller.isAdmin
        ? state.subnets.values()
        : union(state.subnets.by('project', caller.projectId), state.subnets.byAny('network', state.networks.by('open', 'yes').filter((n) => n.shared).map((n) => n.id))),
    render: renderSubnet,
    notFound: subnetNotFound,
  });

  function owned(id: string, caller: Caller, rule: string): Subnet {
    const subnet = state.subnets.get(id);
    if (!subnet || !visible(subnet, caller)) throw subnetNotFound(id);
    if (!owns(caller, subnet)) throw policy(rule);
    return subnet;
  }

  scope.get('/v2.0/subnets', async (request) => listCollection(request, spec(callerOf(request))));

  scope.get<{ Params: { id: string } }>('/v2.0/subnets/:id', async (request) => {
    const caller = callerOf(request);
    const subnet = state.subnets.get(request.params.id);
    if (!subnet || !visible(subnet, caller)) throw subnetNotFound(request.params.id);
    return { subnet: selectFields(renderSubnet(subnet), request.query as RawQuery) };
  });

  scope.post('/v2.0/subnets', async (request, reply) => {
    const caller = callerOf(request);
    const b = bodyOf(request, 'subnet', [...UPDATABLE, ...CREATE_ONLY], ['subnets']);
    for (const k of ['network_id', 'ip_version']) {
      if (b[k] === undefined) throw badRequest(`Failed to parse request. Required attribute '${k}' not specified`);
    }
    if (b.ip_version !== 4 && b.ip_version !== 6) throw badRequest(`Invalid input for ip_version. Reason: ${JSON.stringify(b.ip_version)} is not in [4, 6].`);
    if (b.ip_version === 6) throw badRequest('Invalid input for ip_version. Reason: IPv6 subnets are not simulated.');
    if (b.subnetpool_id !== undefined && b.subnetpool_id !== null) throw badRequest('Invalid input for subnetpool_id. Reason: subnet pools are not simulated.');
    if (b.cidr === undefined) throw badRequest('Bad subnet request: a cidr must be specified in the absence of a subnet pool.', 'BadRequest');
    const network = state.networks.get(String(b.network_id));
    if (!network || !visibleNetwork(network, caller)) throw networkNotFound(String(b.network_id));
    const projectId = projectFor(caller, b);
    if (!caller.isAdmin && network.projectId !== projectId) throw policy('create_subnet');
    const cidr = parseCidr(b.cidr);
    if (!cidr) throw badRequest(`Invalid input for cidr. Reason: '${String(b.cidr)}' is not a valid IP subnet.`);
    const normal = formatCidr(cidr);
    if (normal !== b.cidr) throw badRequest(`Invalid input for cidr. Reason: '${String(b.cidr)}' isn't a recognized IP subnet cidr, '${normal}' is recommended.`);
    for (const id of network.subnets) {
      const other = state.subnets.get(id);
      if (other && overlaps(parseCidr(other.cidr)!, cidr)) {
        throw badRequest(`Invalid input for operation: Requested subnet with cidr: ${normal} for network: ${network.id} overlaps with another subnet.`, 'InvalidInput');
      }
    }
    checkQuota(state, projectId, 'subnet');
    const subnet: Subnet = {
      ...state.newStandard(projectId),
      networkId: network.id,
      ipVersion: 4,
      cidr: normal,
      gatewayIp: b.gateway_ip === undefined ? formatIp(hostRange(cidr)[0]) : null,
      enableDhcp: true,
      dnsNameservers: [],
      allocationPools: [],
      hostRoutes: [],
    };
    apply(subnet, b, true);
    state.subnets.set(subnet.id, subnet);
    network.subnets.push(subnet.id);
    return reply.code(201).send({ subnet: renderSubnet(subnet) });
  });

  scope.put<{ Params: { id: string } }>('/v2.0/subnets/:id', async (request) => {
    const caller = callerOf(request);
    const subnet = owned(request.params.id, caller, 'update_subnet');
    checkRevision(request, subnet);
    const b = bodyOf(request, 'subnet', UPDATABLE, CREATE_ONLY);
    const copy = structuredClone(subnet);
    apply(copy, b, false);
    Object.assign(subnet, copy);
    touch(subnet);
    state.subnets.refile(subnet.id);
    state.freeFrom.delete(subnet.id);
    return { subnet: renderSubnet(subnet) };
  });

  scope.delete<{ Params: { id: string } }>('/v2.0/subnets/:id', async (request, reply) => {
    const caller = callerOf(request);
    const subnet = owned(request.params.id, caller, 'delete_subnet');
    checkRevision(request, subnet);
    const holders = state.ports.by('subnet', subnet.id);
    if (holders.some((p) => !AUTO_DELETE_OWNERS.includes(p.deviceOwner))) {
      throw conflict('SubnetInUse', `Unable to complete operation on subnet ${subnet.id}: One or more ports have an IP allocation from this subnet.`);
    }
    for (const p of holders) {
      p.fixedIps = p.fixedIps.filter((f) => f.subnetId !== subnet.id);
      state.ports.refile(p.id);
    }
    state.subnets.delete(subnet.id);
    state.freeFrom.delete(subnet.id);
    const network = state.networks.get(subnet.networkId);
    if (network) network.subnets = network.subnets.filter((id) => id !== subnet.id);
    return reply.code(204).send();
  });
}

/** Applies and validates gateway, pools, DNS servers and routes (pools default on create). */
function apply(subnet: Subnet, b: Body, create: boolean): void {
  applyNames(subnet, b);
  const cidr = parseCidr(subnet.cidr)!;
  const [first, last] = hostRange(cidr);
  const dhcpWas = !create && subnet.enableDhcp;
  const dhcp = bool(b, 'enable_dhcp');
  if (dhcp !== undefined) subnet.enableDhcp = dhcp;
  const refusal = subnet.enableDhcp && !dhcpWas ? dhcpRefusal(cidr) : undefined;
  if (refusal) throw badRequest(`Invalid input for operation: ${refusal}.`, 'InvalidInput');
  if (b.gateway_ip !== undefined) {
    if (b.gateway_ip === null) subnet.gatewayIp = null;
    else {
      const gw = parseIp(b.gateway_ip);
      if (gw === undefined) throw badRequest(`Invalid input for gateway_ip. Reason: '${String(b.gateway_ip)}' is not a valid IP address.`);
      if (cidr.prefix < 31 && (gw === cidr.network || gw === cidr.last)) {
        throw badRequest(`Invalid input for operation: Gateway is not valid on subnet.`, 'InvalidInput');
      }
      subnet.gatewayIp = formatIp(gw);
    }
  }
  const pools = list(b, 'allocation_pools');
  if (pools !== undefined) {
    const parsed = pools.map((p) => {
      const { start, end } = (p ?? {}) as { start?: unknown; end?: unknown };
      const s = parseIp(start);
      const e = parseIp(end);
      const text = `${String(start)}-${String(end)}`;
      if (s === undefined || e === undefined || s > e) throw badRequest(`The allocation pool ${text} is not valid.`, 'InvalidAllocationPool');
      if (s < first || e > last) throw badRequest(`The allocation pool ${text} spans beyond the subnet cidr ${subnet.cidr}.`, 'OutOfBoundsAllocationPool');
      return { s, e, text };
    });
    parsed.sort((a, b2) => a.s - b2.s);
    for (let i = 1; i < parsed.length; i++) {
      if (parsed[i]!.s <= parsed[i - 1]!.e) throw badRequest(`Found overlapping allocation pools: ${parsed[i - 1]!.text} ${parsed[i]!.text}`, 'OverlappingAllocationPools');
    }
    subnet.allocationPools = parsed.map((p): Pool => ({ start: formatIp(p.s), end: formatIp(p.e) }));
  } else if (create) {
    subnet.allocationPools = defaultPools(subnet.cidr, subnet.gatewayIp);
  }
  const gw = subnet.gatewayIp === null ? undefined : parseIp(subnet.gatewayIp);
  const hit = gw === undefined ? undefined : subnet.allocationPools.find((p) => parseIp(p.start)! <= gw && gw <= parseIp(p.end)!);
  if (hit) throw conflict('GatewayConflictWithAllocationPools', `Gateway ip ${subnet.gatewayIp} conflicts with allocation pool ${hit.start}-${hit.end}`);
  const dns = list(b, 'dns_nameservers');
  if (dns !== undefined) {
    if (dns.length > MAX_DNS_NAMESERVERS) {
      throw badRequest(`Unable to complete operation for ${subnet.id}. The number of DNS nameservers exceeds the limit ${MAX_DNS_NAMESERVERS}.`, 'DNSNameServersExhausted');
    }
    const seen = new Set<string>();
    for (const d of dns) {
      if (parseIp(d) === undefined) throw badRequest(`Invalid input for dns_nameservers. Reason: '${String(d)}' is not a valid nameserver.`);
      if (seen.has(d as string)) throw badRequest(`Invalid input for dns_nameservers. Reason: Duplicate nameserver '${String(d)}'.`);
      seen.add(d as string);
    }
    subnet.dnsNameservers = [...seen];
  }
  const routes = list(b, 'host_routes');
  if (routes !== undefined) {
    subnet.hostRoutes = routes.map((r) => {
      const { destination, nexthop } = (r ?? {}) as { destination?: unknown; nexthop?: unknown };
      if (!parseCidr(destination) || parseIp(nexthop) === undefined) throw badRequest(`Invalid input for host_routes. Reason: Invalid data format for hostroute: '${JSON.stringify(r)}'.`);
      return { destination: String(destination), nexthop: String(nexthop) };
    });
  }
}
