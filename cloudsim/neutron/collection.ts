// How every Neutron collection lists (spec openstack-apis §3.4): exact-match filters on attributes
// (a repeated parameter is an OR, unknown ones are a 400), tag filters, `fields`, sorting, and
// limit/marker/page_reverse pagination with `<collection>_links` next and previous.
import type { FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { all, compareBy, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { hostUrl } from '../common/service-app.js';

export interface Attribute<T> {
  get(item: T): unknown;
  kind: 'string' | 'bool' | 'int';
  /** Usable as sort_key (default true). */
  sortable?: boolean;
}

export interface CollectionSpec<T> {
  /** Plural name: the path segment and the body key, e.g. 'networks'. */
  name: string;
  attributes: Record<string, Attribute<T>>;
  id(item: T): string;
  /** The items the caller may see, in any order. */
  visible: T[];
  render(item: T): Record<string, unknown>;
  notFound(id: string): SimError;
}

const RESERVED = new Set(['fields', 'sort_key', 'sort_dir', 'limit', 'marker', 'page_reverse', 'tags', 'tags-any', 'not-tags', 'not-tags-any']);

function convert(kind: Attribute<unknown>['kind'], raw: string): unknown {
  if (kind === 'bool') {
    const v = parseBool(raw);
    if (v === undefined) throw new SimError(400, `Invalid input for operation: '${raw}' cannot be converted to boolean.`, 'InvalidInput');
    return v;
  }
  if (kind === 'int') {
    if (!/^-?\d+$/.test(raw)) throw new SimError(400, `Invalid input for operation: '${raw}' is not an integer.`, 'InvalidInput');
    return Number(raw);
  }
  return raw;
}

/** Only the asked-for `fields` of a rendered item (all of them when none is asked for). */
export function selectFields(body: Record<string, unknown>, q: RawQuery): Record<string, unknown> {
  const fields = all(q, 'fields');
  return fields.length === 0 ? body : Object.fromEntries(fields.filter((f) => f in body).map((f) => [f, body[f]]));
}

function filterOf<T>(spec: CollectionSpec<T>, q: RawQuery, tagsOf: ((item: T) => string[]) | undefined): (item: T) => boolean {
  const invalid = Object.keys(q).filter((k) => !RESERVED.has(k) && !(k in spec.attributes));
  if (invalid.length > 0) throw new SimError(400, `[${invalid.map((k) => `'${k}'`).join(', ')}] is invalid attribute for filtering`);
  const checks: ((item: T) => boolean)[] = [];
  for (const [key, attr] of Object.entries(spec.attributes)) {
    const wanted = all(q, key).map((raw) => convert(attr.kind, raw));
    if (wanted.length > 0) checks.push((item) => wanted.includes(attr.get(item)));
  }
  if (tagsOf) {
    const list = (key: string) => all(q, key).flatMap((v) => v.split(',')).filter(Boolean);
    const [tags, any, notTags, notAny] = ['tags', 'tags-any', 'not-tags', 'not-tags-any'].map(list) as [string[], string[], string[], string[]];
    if (tags.length) checks.push((i) => tags.every((t) => tagsOf(i).includes(t)));
    if (any.length) checks.push((i) => any.some((t) => tagsOf(i).includes(t)));
    if (notTags.length) checks.push((i) => !notTags.every((t) => tagsOf(i).includes(t)));
    if (notAny.length) checks.push((i) => !notAny.some((t) => tagsOf(i).includes(t)));
  }
  return (item) => checks.every((c) => c(item));
}

function orderOf<T>(spec: CollectionSpec<T>, q: RawQuery): (a: T, b: T) => number {
  const keys = all(q, 'sort_key');
  const dirs = all(q, 'sort_dir');
  if (keys.length !== dirs.length && dirs.length > 0) throw new SimError(400, 'The number of sort_keys and sort_dirs must be same', 'HTTPBadRequest');
  const order = keys.map((key, n) => {
    const attr = spec.attributes[key];
    if (!attr || attr.sortable === false) throw new SimError(400, `${key} is an invalid attribute for sort_key`, 'HTTPBadRequest');
    const dir = dirs[n] ?? 'asc';
    if (dir !== 'asc' && dir !== 'desc') throw new SimError(400, `${dir} is an invalid value for sort_dir, valid value is 'asc' and 'desc'`, 'HTTPBadRequest');
    return { get: (i: T) => attr.get(i), desc: dir === 'desc' };
  });
  // The id always ends the order, so a marker is a position.
  if (!keys.includes('id')) order.push({ get: (i: T) => spec.id(i), desc: order[order.length - 1]?.desc ?? false });
  return compareBy(order);
}

/** GET /v2.0/<collection>: the `{<name>: [...], <name>_links?: [...]}` body. */
export function listCollection<T>(request: FastifyRequest, spec: CollectionSpec<T>, tagsOf?: (item: T) => string[]): Record<string, unknown> {
  const q = request.query as RawQuery;
  const rawLimit = one(q, 'limit');
  if (rawLimit !== undefined && !/^\d+$/.test(rawLimit)) {
    throw new SimError(400, `Bad limit request: Limit must be an integer 0 or greater and not '${rawLimit}'.`, 'HTTPBadRequest');
  }
  const limit = rawLimit === undefined ? 0 : Number(rawLimit);
  const pageReverse = parseBool(one(q, 'page_reverse') ?? 'false') ?? false;
  const matches = filterOf(spec, q, tagsOf);
  const forward = orderOf(spec, q);
  const order = pageReverse ? (a: T, b: T) => forward(b, a) : forward;
  let items = spec.visible.filter(matches).sort(order);
  const markerId = one(q, 'marker');
  if (markerId !== undefined && limit > 0) {
    const marker = spec.visible.find((i) => spec.id(i) === markerId);
    if (!marker) throw spec.notFound(markerId);
    items = items.filter((i) => order(i, marker) > 0);
  }
  if (limit > 0) items = items.slice(0, limit);
  if (pageReverse) items.reverse();
  const body: Record<string, unknown> = { [spec.name]: items.map((i) => selectFields(spec.render(i), q)) };
  if (limit > 0) {
    const url = `${hostUrl(request)}/v2.0/${spec.name}`;
    const first = items[0];
    const last = items[items.length - 1];
    const links: { rel: string; href: string }[] = [];
    // A full page always links onwards (even when nothing follows); a forward page always links back.
    if (!(items.length < limit && !pageReverse)) {
      links.push({ rel: 'next', href: `${url}?${withParams(q, { page_reverse: undefined, ...(last ? { marker: spec.id(last) } : {}) })}` });
    }
    if (!(items.length < limit && pageReverse)) {
      links.push({ rel: 'previous', href: `${url}?${withParams(q, { ...(first ? { marker: spec.id(first) } : {}), page_reverse: 'True' })}` });
    }
    body[`${spec.name}_links`] = links;
  }
  return body;
}
