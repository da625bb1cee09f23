// The template's proxy (http_proxy, https_proxy, no_proxy): what each may hold, checked where a template is
// written and where a cluster's spec is parsed. A proxy is an http, https or socks5 URL of a host (credentials
// allowed, percent-encoded; no path, query or fragment); no_proxy a comma-separated list of host names, domain
// suffixes (`.example.org`), addresses, CIDRs (each maybe with a port) or `*`. Each value is then escaped for the
// place it lands (a shell word, a systemd drop-in: src/bootstrap/user-data).
import { isIP } from 'node:net';
import { errors } from '../domain/errors.js';

export const PROXY_FIELDS = ['http_proxy', 'https_proxy', 'no_proxy'] as const;
export type ProxyField = (typeof PROXY_FIELDS)[number];

const SCHEMES = ['http:', 'https:', 'socks5:', 'socks5h:'];
/** RFC 3986's characters but the quote (unreserved, sub-delims, gen-delims, and % of an escape). */
const URL_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&()*+,;=%]+$/;
const HOST_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function hostProblem(host: string): boolean {
  if (host.length > 253) return true;
  return !host.split('.').every((l) => HOST_LABEL.test(l));
}

/** Why a proxy URL is refused, or undefined. */
export function proxyUrlProblem(value: string): string | undefined {
  if (!URL_CHARS.test(value) || /%(?![0-9A-Fa-f]{2})/.test(value)) return 'A proxy URL holds no spaces, quotes, backslashes or control characters, and "%" only in an escape like %40.';
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return 'Expected a proxy URL like http://proxy.example.org:3128.';
  }
  if (!SCHEMES.includes(u.protocol)) return `The scheme must be one of ${SCHEMES.map((s) => s.slice(0, -1)).join(', ')}.`;
  if (u.hostname === '') return 'The URL names no host.';
  if ((u.pathname !== '' && u.pathname !== '/') || u.search !== '' || u.hash !== '') return 'A proxy URL has no path, query or fragment.';
  return undefined;
}

/** Why a no_proxy list is refused, or undefined. */
export function noProxyProblem(value: string): string | undefined {
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '' || entry === '*') continue;
    if (!/^[A-Za-z0-9.:[\]/*-]+$/.test(entry)) return `'${entry}' is not a host name, domain, address or CIDR (no spaces, quotes or other characters).`;
    if (isIP(entry) || isIP(entry.replace(/^\[|\]$/g, ''))) continue;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr && isIP(cidr[1]!) && Number(cidr[2]) <= (isIP(cidr[1]!) === 6 ? 128 : 32)) continue;
    const withPort = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
    if (!withPort || (withPort[2] !== undefined && Number(withPort[2]) > 65535)) return `'${entry}' is not a host name, domain, address or CIDR.`;
    const host = withPort[1]!.replace(/^\*?\./, '');
    if (withPort[1]!.startsWith('[') ? isIP(withPort[1]!.slice(1, -1)) === 0 : isIP(host) === 0 && hostProblem(host)) return `'${entry}' is not a host name, domain, address or CIDR.`;
  }
  return undefined;
}

/** Throws Magnum's 400 for the first proxy field the template holds that is not what it must be. */
export function checkProxies(t: Partial<Record<ProxyField, string | null>>): void {
  for (const field of PROXY_FIELDS) {
    const v = t[field];
    if (v === null || v === undefined || v === '') continue;
    const problem = field === 'no_proxy' ? noProxyProblem(v) : proxyUrlProblem(v);
    if (problem) throw errors.invalidInput(field, v, problem);
  }
}
