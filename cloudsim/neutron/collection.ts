// How every Neutron collection lists (spec openstack-apis §3.4): exact-match filters on attributes
// (a repeated parameter is an OR, unknown ones are a 400), tag filters, `fields`, sorting, and
// limit/marker/page_reverse pagination with `<collection>_links` next and previous. The candidates
// come from the narrowest index a filter names (id, device_id, tags...), else from what the caller
// may see: a list costs what it returns, not what the cloud holds.
import type { FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import type { IndexedMap } from '../common/indexed-map.js';
import { all, compareBy, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { hostUrl } from '../common/service-app.js';

export interface Attribute<T> {
  get(item: T): unknown;
  kind: 'string' | 'bool' | 'int';
  /** Usable as sort_key (default true). */
  sortable?: boolean;
}

export interface CollectionSpec<T extends { id: string }, I extends string> {
  /** Plural name: the path segment and the body key, e.g. 'networks'. */
  name: string;
  attributes: Record<string, Attribute<T>>;
  items: IndexedMap<T, I>;
  /** The string attributes an index of `items` answers (it files the attribute's value as is). */
  indexed: Partial<Record<string, I>>;
  /** The tags of an item and the index filing them, for collections that have tags. */
  tags?: { of(item: T): string[]; index: I };
  /** Whether the caller may see the item. */
  visible(item: T): boolean;
  /** What the caller may see (a superset will do; each item once), when no filter names an index. */
  scope(): Iterable<T>;
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

const tagList = (q: RawQuery, key: string) => all(q, key).flatMap((v) => v.split(',')).filter(Boolean);

function filterOf<T extends { id: string }, I extends string>(spec: CollectionSpec<T, I>, q: RawQuery): (item: T) => boolean {
  const invalid = Object.keys(q).filter((k) => !RESERVED.has(k) && !(k in spec.attributes));
  if (invalid.length > 0) throw new SimError(400, `[${invalid.map((k) => `'${k}'`).join(', ')}] is invalid attribute for filtering`);
  const checks: ((item: T) => boolean)[] = [];
  for (const [key, attr] of Object.entries(spec.attributes)) {
    const wanted = all(q, key).map((raw) => convert(attr.kind, raw));
    if (wanted.length > 0) checks.push((item) => wanted.includes(attr.get(item)));
  }
  const tagsOf = spec.tags?.of;
  if (tagsOf) {
    const [tags, any, notTags, notAny] = ['tags', 'tags-any', 'not-tags', 'not-tags-any'].map((k) => tagList(q, k)) as [string[], string[], string[], string[]];
    if (tags.length) checks.push((i) => tags.every((t) => tagsOf(i).includes(t)));
    if (any.length) checks.push((i) => any.some((t) => tagsOf(i).includes(t)));
    if (notTags.length) checks.push((i) => !notTags.every((t) => tagsOf(i).includes(t)));
    if (notAny.length) checks.push((i) => !notAny.some((t) => tagsOf(i).includes(t)));
  }
  return (item) => checks.every((c) => c(item));
}

/**
 * The items the filters may keep: those of the narrowest index a filter names (an id, an indexed
 * attribute, a tag), else the caller's scope; the filters then judge each.
 */
function candidates<T extends { id: string }, I extends string>(spec: CollectionSpec<T, I>, q: RawQuery): Iterable<T> {
  const options: T[][] = [];
  const ids = all(q, 'id');
  if (ids.length > 0) options.push(ids.map((id) => spec.items.get(id)).filter((i): i is T => i !== undefined));
  for (const [attribute, index] of Object.entries(spec.indexed) as [string, I][]) {
    const wanted = all(q, attribute);
    if (wanted.length > 0) options.push(spec.items.byAny(index, wanted));
  }
  if (spec.tags) {
    const { index } = spec.tags;
    const every = tagList(q, 'tags');
    if (every.length > 0) {
      const rarest = every.reduce((a, b) => (spec.items.count(index, b) < spec.items.count(index, a) ? b : a));
      options.push(spec.items.by(index, rarest));
    }
    const any = tagList(q, 'tags-any');
    if (any.length > 0) options.push(spec.items.byAny(index, any));
  }
  if (options.length === 0) return spec.scope();
  return options.reduce((a, b) => (b.length < a.length ? b : a));
}

function orderOf<T extends { id: string }, I extends string>(spec: CollectionSpec<T, I>, q: RawQuery): (a: T, b: T) => number {
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
  if (!keys.includes('id')) order.push({ get: (i: T) => i.id, desc: order[order.length - 1]?.desc ?? false });
  return compareBy(order);
}

/** GET /v2.0/<collection>: the `{<name>: [...], <name>_links?: [...]}` body. */
export function listCollection<T extends { id: string }, I extends string>(request: FastifyRequest, spec: CollectionSpec<T, I>): Record<string, unknown> {
  const q = request.query as RawQuery;
  const rawLimit = one(q, 'limit');
  if (rawLimit !== undefined && !/^\d+$/.test(rawLimit)) {
    throw new SimError(400, `Bad limit request: Limit must be an integer 0 or greater and not '${rawLimit}'.`, 'HTTPBadRequest');
  }
  const limit = rawLimit === undefined ? 0 : Number(rawLimit);
  const pageReverse = parseBool(one(q, 'page_reverse') ?? 'false') ?? false;
  const matches = filterOf(spec, q);
  const forward = orderOf(spec, q);
  const order = pageReverse ? (a: T, b: T) => forward(b, a) : forward;
  let items: T[] = [];
  for (const i of candidates(spec, q)) if (spec.visible(i) && matches(i)) items.push(i);
  items.sort(order);
  const markerId = one(q, 'marker');
  if (markerId !== undefined && limit > 0) {
    const marker = spec.items.get(markerId);
    if (!marker || !spec.visible(marker)) throw spec.notFound(markerId);
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
      links.push({ rel: 'next', href: `${url}?${withParams(q, { page_reverse: undefined, ...(last ? { marker: last.id } : {}) })}` });
    }
    if (!(items.length < limit && pageReverse)) {
      links.push({ rel: 'previous', href: `${url}?${withParams(q, { ...(first ? { marker: first.id } : {}), page_reverse: 'True' })}` });
    }
    body[`${spec.name}_links`] = links;
  }
  return body;
}

/** The items of several lists, each once, in order (a caller's scope: its own and the shared ones). */
export function union<T extends { id: string }>(...lists: Iterable<T>[]): T[] {
  const seen = new Map<string, T>();
  for (const list of lists) for (const i of list) if (!seen.has(i.id)) seen.set(i.id, i);
  return [...seen.values()];
}
