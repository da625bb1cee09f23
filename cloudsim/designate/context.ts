// Who a Designate call acts for, and the list machinery every collection shares: filters with
// `*` wildcards, sort_key/sort_dir, limit/marker, and the {links: {self, next}, metadata:
// {total_count}} envelope (a `next` link whenever the page is full).
import type { FastifyRequest } from 'fastify';
import { compareBy, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { DesignateError, dnsErrors } from './errors.js';

export interface DnsContext {
  /** The project the call acts in (the token's, or X-Auth-Sudo-Project-ID for admins). */
  projectId: string;
  /** X-Auth-All-Projects (admins only): every project's zones are visible. */
  allProjects: boolean;
  isAdmin: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function checkUuid(param: string, value: string): string {
  if (!UUID.test(value)) throw dnsErrors.invalidUuid(param, value);
  return value;
}

export function contextOf(request: FastifyRequest): DnsContext {
  const caller = callerOf(request);
  const q = request.query as RawQuery;
  const header = (name: string) => {
    const v = request.headers[name];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const rawAll = header('x-auth-all-projects') ?? one(q, 'all_projects') ?? one(q, 'all_tenants');
  const allProjects = rawAll !== undefined && parseBool(rawAll) === true;
  const sudo = header('x-auth-sudo-project-id') ?? header('x-auth-sudo-tenant-id');
  if ((allProjects || sudo !== undefined) && !caller.isAdmin) throw dnsErrors.forbidden();
  return { projectId: sudo ?? caller.projectId, allProjects, isAdmin: caller.isAdmin };
}

export const visible = (ctx: DnsContext, projectId: string): boolean => ctx.allProjects || projectId === ctx.projectId;

/** `name=*.example.org.`-style filters: `*` matches anything, the rest literally (case-insensitive). */
export function wildcard(pattern: string): (value: string | null) => boolean {
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
  return (value) => value !== null && re.test(value);
}

export interface ListSpec<T> {
  items: T[];
  /** The collection key and its path under the host (e.g. 'zones', '/v2/zones'). */
  key: string;
  path: string;
  filters: Record<string, (item: T) => string | number | null>;
  sortKeys: Record<string, (item: T) => unknown>;
  idOf: (item: T) => string;
  seqOf: (item: T) => number;
  render: (item: T) => Record<string, unknown>;
  limits: { default: number; max: number };
}

export function listBody<T>(request: FastifyRequest, spec: ListSpec<T>): Record<string, unknown> {
  const q = request.query as RawQuery;
  let items = spec.items;
  for (const [param, get] of Object.entries(spec.filters)) {
    const want = one(q, param);
    if (want === undefined) continue;
    const match = wildcard(want);
    items = items.filter((i) => {
      const v = get(i);
      return match(v === null ? null : String(v));
    });
  }
  const sortKey = one(q, 'sort_key') ?? 'created_at';
  const sortDir = one(q, 'sort_dir') ?? 'asc';
  const get = spec.sortKeys[sortKey];
  if (!get) throw new DesignateError(400, 'invalid_sort_key', `sort key must be one of ${JSON.stringify(Object.keys(spec.sortKeys))}`);
  if (sortDir !== 'asc' && sortDir !== 'desc') throw new DesignateError(400, 'invalid_sort_dir', 'Invalid sort direction');
  items = [...items].sort(compareBy([{ get, desc: sortDir === 'desc' }, { get: spec.seqOf, desc: sortDir === 'desc' }]));
  const total = items.length;
  const marker = one(q, 'marker');
  if (marker !== undefined) {
    const at = items.findIndex((i) => spec.idOf(i) === marker);
    if (at < 0) throw new DesignateError(400, 'marker_not_found', `Marker ${marker} could not be found`);
    items = items.slice(at + 1);
  }
  const rawLimit = one(q, 'limit');
  let limit = spec.limits.default;
  if (rawLimit !== undefined) {
    if (rawLimit === 'max') limit = spec.limits.max;
    else if (/^\d+$/.test(rawLimit) && Number(rawLimit) > 0) limit = Math.min(Number(rawLimit), spec.limits.max);
    else throw new DesignateError(400, 'invalid_limit', 'limit should be an integer greater than zero');
  }
  const page = items.slice(0, limit);
  const base = `${hostUrl(request)}${spec.path}`;
  const self = withParams(q, {}).toString();
  const links: Record<string, string> = { self: self ? `${base}?${self}` : base };
  if (page.length === limit && page.length > 0) links.next = `${base}?${withParams(q, { marker: spec.idOf(page[page.length - 1]!) }).toString()}`;
  return { [spec.key]: page.map(spec.render), links, metadata: { total_count: total } };
}
