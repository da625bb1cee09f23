// GET of an Octavia collection: the caller's objects, tag filters, filters on any attribute of the
// rendered object, sort (`sort=key:dir,...` or sort_key/sort_dir, created_at by creation order),
// `fields`, and limit/marker/page_reverse paging with `<collection>_links`.
import type { FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { all, compareBy, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { visible } from './lookup.js';
import type { AnyObject, OctaviaState } from './state.js';

const SPECIAL = new Set(['limit', 'marker', 'page_reverse', 'sort', 'sort_key', 'sort_dir', 'fields', 'tags', 'tags-any', 'not-tags', 'not-tags-any']);

const splitTags = (q: RawQuery, key: string) => all(q, key).flatMap((v) => v.split(',')).filter((t) => t !== '');

export function listOf(
  s: OctaviaState,
  request: FastifyRequest,
  items: AnyObject[],
  render: (o: AnyObject) => Record<string, unknown>,
  collection: string,
  path: string,
): Record<string, unknown> {
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
  let rows = items.filter((o) => visible(caller, o) && tagged(o) && kept(o)).map((o) => ({ o, r: render(o) }));
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
