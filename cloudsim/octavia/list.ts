// GET of an Octavia collection: the caller's objects, tag filters, filters on any attribute of the
// rendered object, sort (`sort=key:dir,...` or sort_key/sort_dir, created_at by creation order),
// `fields`, and limit/marker/page_reverse paging with `<collection>_links`. The objects looked at
// come from the narrowest index a parameter names (id, name, tags, a parent's id, a VIP), else
// from the caller's project: a list costs what it returns.
import type { FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import type { Indexed } from '../common/indexed-map.js';
import { all, compareBy, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { visible, type Caller } from './lookup.js';
import type { AnyObject, OctaviaIndex, OctaviaState } from './state.js';

export interface Listing {
  /** The collection's name in the body (`loadbalancers`) and its path. */
  collection: string;
  path: string;
  /** The kind's objects. */
  table: Indexed<AnyObject, OctaviaIndex>;
  /** Parameters an index answers beyond id, name, project and tags (the rendered attribute shows the filed value). */
  indexed?: Partial<Record<string, OctaviaIndex>>;
  /** What is listed when no parameter narrows it down (a pool's members); the caller's objects by default. */
  within?: AnyObject[];
  render(o: AnyObject): Record<string, unknown>;
}

/** Parameters every kind renders as the object files them. */
const COMMON: Record<string, OctaviaIndex> = { name: 'name', project_id: 'project', tenant_id: 'project' };

const SPECIAL = new Set(['limit', 'marker', 'page_reverse', 'sort', 'sort_key', 'sort_dir', 'fields', 'tags', 'tags-any', 'not-tags', 'not-tags-any']);

const splitTags = (q: RawQuery, key: string) => all(q, key).flatMap((v) => v.split(',')).filter((t) => t !== '');

/** The objects the filters then judge: those of the narrowest index a parameter names, else the listing's scope. */
function candidates(listing: Listing, q: RawQuery, caller: Caller): Iterable<AnyObject> {
  const { table } = listing;
  const options: AnyObject[][] = [];
  const ids = all(q, 'id');
  if (ids.length > 0) options.push(ids.map((id) => table.get(id)).filter((o): o is AnyObject => o !== undefined));
  if (!listing.within) {
    for (const [param, index] of Object.entries({ ...COMMON, ...listing.indexed }) as [string, OctaviaIndex][]) {
      const wanted = all(q, param);
      if (wanted.length > 0) options.push(union(wanted.map((w) => table.by(index, w))));
    }
    const every = splitTags(q, 'tags');
    if (every.length > 0) options.push(table.by('tag', every.reduce((a, b) => (table.count('tag', b) < table.count('tag', a) ? b : a))));
    const any = splitTags(q, 'tags-any');
    if (any.length > 0) options.push(union(any.map((t) => table.by('tag', t))));
  }
  if (options.length > 0) return options.reduce((a, b) => (b.length < a.length ? b : a));
  return listing.within ?? (caller.isAdmin ? table.values() : table.by('project', caller.projectId));
}

const union = (lists: AnyObject[][]): AnyObject[] => [...new Map(lists.flat().map((o) => [o.id, o])).values()];

export function listOf(s: OctaviaState, request: FastifyRequest, listing: Listing): Record<string, unknown> {
  const { render, collection, path } = listing;
  const q = request.query as RawQuery;
  const caller = callerOf(request);
  const [tg, tgAny, notTg, notTgAny] = ['tags', 'tags-any', 'not-tags', 'not-tags-any'].map((k) => splitTags(q, k)) as [string[], string[], string[], string[]];
  const tagged = (o: AnyObject): boolean => {
    const t = new Set(o.tags as string[]);
    if (tg.length && !tg.every((x) => t.has(x))) return false;
    if (tgAny.length && !tgAny.some((x) => t.has(x))) return false;
    if (notTg.length && notTg.every((x) => t.has(x))) return false;
    if (notTgAny.length && notTgAny.some((x) => t.has(x))) return false;
    return true;
  };
  // Tags, and the id and name (every renderer shows them as the object holds them), are judged on the
  // object before rendering: only the items they keep are rendered (a rendered load balancer looks up
  // its listeners and pools).
  const own = (['id', 'name'] as const).filter((k) => k in q).map((k) => ({ k, wanted: all(q, k) }));
  const kept = (o: AnyObject): boolean => own.every(({ k, wanted }) => wanted.includes(String(o[k])));
  const inScope = listing.within ? new Set(listing.within.map((o) => o.id)) : undefined;
  let rows: { o: AnyObject; r: Record<string, unknown> }[] = [];
  for (const o of candidates(listing, q, caller)) {
    if ((!inScope || inScope.has(o.id)) && visible(caller, o) && tagged(o) && kept(o)) rows.push({ o, r: render(o) });
  }
  for (const key of Object.keys(q)) {
    if (SPECIAL.has(key)) continue;
    const wanted = all(q, key);
    rows = rows.filter(({ r }) => {
      const v = r[key];
      if (v !== null && typeof v === 'object') return true; // not a filterable attribute
      if (!(key in r)) return true;
      return wanted.some((w) => (typeof v === 'boolean' ? parseBool(w) === v : String(v) === w));
    });
  }

  const reverse = parseBool(one(q, 'page_reverse') ?? 'false') === true;
  const keys: { key: string; desc: boolean }[] = [];
  const sort = one(q, 'sort');
  if (sort) {
    for (const part of sort.split(',')) {
      const [key, dir = 'asc'] = part.split(':');
      if (dir !== 'asc' && dir !== 'desc') throw new SimError(400, `Invalid input for query parameters sort: Invalid sort direction ${dir}`);
      keys.push({ key: key!, desc: dir === 'desc' });
    }
  } else if (one(q, 'sort_key')) {
    keys.push({ key: one(q, 'sort_key')!, desc: one(q, 'sort_dir') === 'desc' });
  }
  for (const k of keys) {
    if (rows.length > 0 && !(k.key in rows[0]!.r)) throw new SimError(400, `Invalid input for query parameters sort: Invalid sort key ${k.key}`);
  }
  const order = compareBy<{ o: AnyObject; r: Record<string, unknown> }>([
    ...keys.map((k) => ({ get: (x: { r: Record<string, unknown> }) => (k.key === 'created_at' ? undefined : x.r[k.key]), desc: k.desc !== reverse })),
    { get: (x) => x.o._seq, desc: (keys.find((k) => k.key === 'created_at')?.desc ?? false) !== reverse },
  ]);
  rows.sort(order);

  const rawLimit = one(q, 'limit');
  if (rawLimit !== undefined && !/^\d+$/.test(rawLimit)) throw new SimError(400, `Invalid input for field/attribute limit. Value: '${rawLimit}'.`);
  const limit = Math.min(rawLimit === undefined ? s.maxLimit : Number(rawLimit), s.maxLimit);
  const markerId = one(q, 'marker');
  if (markerId !== undefined) {
    const at = rows.findIndex(({ o }) => o.id === markerId);
    if (at < 0) throw new SimError(400, `Invalid input for query parameters marker: Marker ${markerId} not found.`);
    rows = rows.slice(at + 1);
  }
  let page = limit > 0 ? rows.slice(0, limit) : [];
  if (reverse) page = page.reverse();
  const fields = all(q, 'fields').flatMap((f) => f.split(','));
  const body: Record<string, unknown> = {
    [collection]: page.map(({ r }) => (fields.length ? Object.fromEntries(fields.filter((f) => f in r).map((f) => [f, r[f]])) : r)),
  };
  const links: { rel: string; href: string }[] = [];
  const base = `${hostUrl(request)}${path}`;
  if (page.length > 0 && page.length === limit) {
    const last = reverse ? page[0]! : page[page.length - 1]!;
    links.push({ rel: 'next', href: `${base}?${withParams(q, { limit: String(limit), marker: last.o.id }).toString()}` });
  }
  if (markerId !== undefined && page.length > 0) {
    const first = reverse ? page[page.length - 1]! : page[0]!;
    links.push({ rel: 'previous', href: `${base}?${withParams(q, { limit: String(limit), marker: first.o.id, page_reverse: 'True' }).toString()}` });
  }
  body[`${collection}_links`] = links;
  return body;
}
