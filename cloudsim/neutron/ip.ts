// IPv4 arithmetic for the simulated IPAM: addresses as unsigned 32-bit numbers.

export function parseIp(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

export const formatIp = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

export interface Cidr {
  network: number;
  prefix: number;
  /** The last address (broadcast). */
  last: number;
}

/** A CIDR "a.b.c.d/n"; `strict` also requires the host bits to be zero. */
export function parseCidr(s: unknown, strict = false): Cidr | undefined {
  if (typeof s !== 'string') return undefined;
  const [addr, len, ...rest] = s.split('/');
  if (rest.length > 0 || len === undefined || !/^\d{1,2}$/.test(len) || Number(len) > 32) return undefined;
  const ip = parseIp(addr);
  if (ip === undefined) return undefined;
  const prefix = Number(len);
  const size = 2 ** (32 - prefix);
  const network = ip - (ip % size);
  if (strict && network !== ip) return undefined;
  return { network, prefix, last: network + size - 1 };
}

export const formatCidr = (c: Cidr): string => `${formatIp(c.network)}/${c.prefix}`;

export const contains = (c: Cidr, ip: number): boolean => ip >= c.network && ip <= c.last;

export const overlaps = (a: Cidr, b: Cidr): boolean => a.network <= b.last && b.network <= a.last;

/** Within 127.0.0.0/8 (netaddr's is_loopback of a network). */
export const isLoopback = (c: Cidr): boolean => c.prefix >= 8 && c.network >>> 24 === 127;

/** Within 224.0.0.0/4. */
export const isMulticast = (c: Cidr): boolean => c.prefix >= 4 && c.network >>> 28 === 14;

/** Usable hosts: all but the network and broadcast addresses (except for /31 and /32). */
export function hostRange(c: Cidr): [number, number] {
  return c.prefix >= 31 ? [c.network, c.last] : [c.network + 1, c.last - 1];
}

/** An IPv6 address (loosely), for ethertype checks and address pairs. */
export const isIpv6 = (s: unknown): boolean => typeof s === 'string' && /^[0-9a-fA-F:]+(\/\d{1,3})?$/.test(s) && s.includes(':');
