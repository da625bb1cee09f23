// The simulated IPAM: allocation pools, the lowest free address of a subnet, explicit addresses
// (409 IpAddressAlreadyAllocated) and exhaustion (409 IpAddressGenerationFailure).
import { SimError } from '../common/errors.js';
import { contains, formatIp, hostRange, isLoopback, isMulticast, parseCidr, parseIp, type Cidr } from './ip.js';
import { addressKey, type FixedIp, type Network, type NeutronState, type Pool, type Subnet } from './state.js';
import { badRequest, conflict } from './writes.js';

/**
 * Why a subnet cannot have DHCP, as Neutron refuses it when DHCP is enabled (on create, or by an
 * update that turns it on): too small a prefix, a multicast or a loopback range. Undefined when it
 * can. A loopback floating-IP pool is fine with DHCP off (an external subnet's usual setting).
 */
export function dhcpRefusal(c: Cidr): string | undefined {
  if (c.prefix > 30) return 'Subnet has a prefix length that is incompatible with DHCP service enabled';
  if (isMulticast(c)) return 'Multicast IP subnet is not supported if enable_dhcp is True';
  if (isLoopback(c)) return 'Loopback IP subnet is not supported if enable_dhcp is True';
  return undefined;
}

/** The default pools: every host address but the gateway. */
export function defaultPools(cidr: string, gateway: string | null): Pool[] {
  const c = parseCidr(cidr)!;
  const [first, last] = hostRange(c);
  const gw = gateway === null ? undefined : parseIp(gateway);
  const ranges: [number, number][] = gw !== undefined && gw >= first && gw <= last ? [[first, gw - 1], [gw + 1, last]] : [[first, last]];
  return ranges.filter(([a, b]) => a <= b).map(([a, b]) => ({ start: formatIp(a), end: formatIp(b) }));
}

/** Whether a port other than `except` holds `ip` on the subnet (whoever owns it). */
function held(state: NeutronState, subnetId: string, ip: string, except?: string): boolean {
  for (const id of state.ports.ids('address', addressKey(subnetId, ip))) if (id !== except) return true;
  return false;
}

/**
 * The lowest address of the subnet's pools that no port but `except` holds and that is not in
 * `taken`, looked for from where the last search left off (every address below is held) unless a
 * port's own addresses count as free (`except`).
 */
function lowestFree(state: NeutronState, subnet: Subnet, except?: string, taken: ReadonlySet<string> = new Set()): string | undefined {
  const hinted = except === undefined && taken.size === 0;
  const from = hinted ? state.freeFrom.get(subnet.id) : undefined;
  const pools = subnet.allocationPools;
  for (let n = from?.pool ?? 0; n < pools.length; n++) {
    const pool = pools[n]!;
    const start = n === from?.pool ? Math.max(parseIp(pool.start)!, from.ip) : parseIp(pool.start)!;
    for (let ip = start; ip <= parseIp(pool.end)!; ip++) {
      const s = formatIp(ip);
      if (taken.has(s) || held(state, subnet.id, s, except)) continue;
      if (hinted) state.freeFrom.set(subnet.id, { pool: n, ip });
      return s;
    }
  }
  return undefined;
}

const exhausted = (networkId: string) => conflict('IpAddressGenerationFailure', `No more IP addresses available on network ${networkId}.`);

/**
 * The fixed IPs of a new or updated port on `network`. No request: one address from the first
 * IPv4 subnet with room. Each request names a subnet, an address, or both.
 */
export function allocateFixedIps(
  state: NeutronState,
  network: Network,
  requested: unknown[] | undefined,
  portId?: string,
  keep: FixedIp[] = [],
): FixedIp[] {
  const subnets = network.subnets.map((id) => state.subnets.get(id)!).filter(Boolean);
  if (requested === undefined) {
    if (subnets.length === 0) return [];
    for (const s of subnets) {
      const ip = lowestFree(state, s, portId);
      if (ip) return [{ subnetId: s.id, ipAddress: ip }];
    }
    throw exhausted(network.id);
  }
  const out: FixedIp[] = [];
  for (const r of requested) {
    if (!r || typeof r !== 'object') throw badRequest(`Invalid input for fixed_ips. Reason: Invalid data format for fixed IP: '${JSON.stringify(r)}'.`);
    const { subnet_id: subnetId, ip_address: ipAddress } = r as { subnet_id?: unknown; ip_address?: unknown };
    let subnet: Subnet | undefined;
    if (subnetId !== undefined) {
      subnet = typeof subnetId === 'string' ? state.subnets.get(subnetId) : undefined;
      if (!subnet) throw new SimError(404, `Subnet ${String(subnetId)} could not be found.`, 'SubnetNotFound');
      if (subnet.networkId !== network.id) {
        throw badRequest(`Invalid input for operation: Failed to create port on network ${network.id}, because fixed_ips included invalid subnet ${subnet.id}.`, 'InvalidInput');
      }
    }
    if (ipAddress !== undefined) {
      const ip = parseIp(ipAddress);
      if (ip === undefined) throw badRequest(`Invalid input for fixed_ips. Reason: '${String(ipAddress)}' is not a valid IP address.`);
      if (subnet && !contains(parseCidr(subnet.cidr)!, ip)) {
        throw badRequest(`IP address ${String(ipAddress)} is not a valid IP for the specified subnet.`, 'InvalidIpForSubnet');
      }
      subnet ??= subnets.find((s) => contains(parseCidr(s.cidr)!, ip));
      if (!subnet) throw badRequest(`IP address ${String(ipAddress)} is not a valid IP for any of the subnets on the specified network.`, 'InvalidIpForNetwork');
      const addr = formatIp(ip);
      const mine = keep.some((k) => k.subnetId === subnet!.id && k.ipAddress === addr);
      if (!mine && (held(state, subnet.id, addr, portId) || out.some((o) => o.ipAddress === addr))) {
        throw conflict('IpAddressAlreadyAllocated', `IP address ${addr} already allocated in subnet ${subnet.id}`);
      }
      out.push({ subnetId: subnet.id, ipAddress: addr });
    } else if (subnet) {
      const ip = lowestFree(state, subnet, portId, new Set(out.map((o) => o.ipAddress)));
      if (!ip) throw exhausted(network.id);
      out.push({ subnetId: subnet.id, ipAddress: ip });
    } else {
      throw badRequest('Invalid input for fixed_ips. Reason: Exactly one of subnet_id or ip_address is required.');
    }
  }
  return out;
}
