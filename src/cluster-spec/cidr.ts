// IPv4 CIDR helpers: parsing (canonical network address required) and overlap.

export interface Cidr {
  text: string;
  base: number;
  prefix: number;
}

const RE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255 || (p.length > 1 && p.startsWith('0'))) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

export function formatIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Parses `a.b.c.d/n`; throws a reason string when malformed or when host bits are set. */
export function parseCidr(text: string): Cidr {
  const m = RE.exec(text.trim());
  const ip = m ? parseIpv4(`${m[1]}.${m[2]}.${m[3]}.${m[4]}`) : undefined;
  const prefix = m ? Number(m[5]) : NaN;
  if (ip === undefined || !(prefix >= 0 && prefix <= 32)) {
    throw new Error('Expected an IPv4 CIDR like 10.100.0.0/16.');
  }
  const base = ip & mask(prefix);
  if (base >>> 0 !== ip) throw new Error(`Host bits are set; did you mean ${formatIpv4(base >>> 0)}/${prefix}?`);
  return { text: `${formatIpv4(ip)}/${prefix}`, base: ip, prefix };
}

function mask(prefix: number): number {
  return prefix === 0 ? 0 : (~0 << (32 - prefix)) | 0;
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  const p = Math.min(a.prefix, b.prefix);
  return ((a.base & mask(p)) >>> 0) === ((b.base & mask(p)) >>> 0);
}

/** The n-th address inside the network (n=10 → 10.254.0.10, the cluster DNS service address). */
export function nthAddress(c: Cidr, n: number): string {
  return formatIpv4((c.base + n) >>> 0);
}

export function size(c: Cidr): number {
  return 2 ** (32 - c.prefix);
}

/**
 * The ranges no cluster subnet may touch: nodes there could not be reached, would take the metadata service's
 * address (169.254.169.254) or the host's own, or could not hold unicast addresses at all.
 */
export const RESERVED_RANGES: readonly { name: string; cidr: Cidr }[] = [
  { name: '"this network" (0.0.0.0/8)', cidr: parseCidr('0.0.0.0/8') },
  { name: 'loopback (127.0.0.0/8)', cidr: parseCidr('127.0.0.0/8') },
  { name: 'link-local, where the metadata service answers (169.254.0.0/16)', cidr: parseCidr('169.254.0.0/16') },
  { name: 'multicast (224.0.0.0/4)', cidr: parseCidr('224.0.0.0/4') },
  { name: 'reserved and broadcast (240.0.0.0/4)', cidr: parseCidr('240.0.0.0/4') },
];

/** The reserved range a CIDR overlaps (contains, lies in or equals), or undefined. */
export function reservedRange(c: Cidr): string | undefined {
  return RESERVED_RANGES.find((r) => overlaps(c, r.cidr))?.name;
}
