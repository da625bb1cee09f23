// GET /v2/images/{id} and GET /v2/images (spec openstack-apis §5.1): visibility per caller,
// exact-match filters (custom properties included), sorting, limit/marker and a relative `next`.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import { all, compareBy, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import type { GlanceState, Image, Visibility } from './state.js';

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The image as Glance shows it: unwrapped, custom properties flat, unset core fields omitted; an image with data
 * names the store holding it (`stores`, as Glance does with multiple stores configured: `enabled_backends`).
 */
export function renderImage(i: Image): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...i.properties,
    id: i.id,
    name: i.name,
    status: i.status,
    visibility: i.visibility,
    protected: i.protected,
    os_hidden: i.os_hidden,
    owner: i.owner,
    disk_format: i.disk_format,
    container_format: i.container_format,
    size: i.size,
    virtual_size: i.virtual_size,
    checksum: i.checksum,
    os_hash_algo: i.os_hash_algo,
    os_hash_value: i.os_hash_value,
    min_disk: i.min_disk,
    min_ram: i.min_ram,
    tags: i.tags,
    created_at: iso(i.created_at),
    updated_at: iso(i.updated_at),
    self: `/v2/images/${i.id}`,
    file: `/v2/images/${i.id}/file`,
    schema: '/v2/schemas/image',
    stores: i.size === null ? null : 'file',
  };
  for (const [k, v] of Object.entries(body)) if (v === null) delete body[k];
  return body;
}

const member = (i: Image, c: SimCaller) => i.owner === c.projectId || (i.visibility === 'shared' && i.members.includes(c.projectId ?? ''));

/** GET by id: admins see everything; others public and community images, their own, and shared ones. */
function canSee(i: Image, c: SimCaller): boolean {
  return c.isAdmin || i.visibility === 'public' || i.visibility === 'community' || member(i, c);
}

/** Whether a list with this `visibility` filter shows the image (community only when asked for or owned). */
function listed(i: Image, c: SimCaller, vis: Visibility | 'all' | undefined): boolean {
  if (vis !== undefined && vis !== 'all' && i.visibility !== vis) return false;
  if (c.isAdmin) return true;
  if (i.visibility === 'public') return true;
  if (i.visibility === 'community') return vis !== undefined || i.owner === c.projectId;
  return member(i, c);
}

const SORT_KEYS = ['name', 'status', 'container_format', 'disk_format', 'size', 'id', 'created_at', 'updated_at'];
const CORE_FILTERS = ['name', 'status', 'owner', 'container_format', 'disk_format', 'id'] as const;
const RESERVED = new Set(['limit', 'marker', 'sort', 'sort_key', 'sort_dir', 'visibility', 'os_hidden', 'protected', 'tag', 'member_status', 'size_min', 'size_max', ...CORE_FILTERS]);

function sortOrder(q: RawQuery): (a: Image, b: Image) => number {
  const classic = all(q, 'sort_key').length > 0 || all(q, 'sort_dir').length > 0;
  const sort = one(q, 'sort');
  if (sort !== undefined && classic) throw new SimError(400, 'The sort and sort_key/sort_dir parameters are mutually exclusive.');
  let keys: { key: string; desc: boolean }[];
  if (sort !== undefined) {
    keys = sort.split(',').map((part) => {
      const [key = '', dir = 'desc'] = part.trim().split(':');
      if (dir !== 'asc' && dir !== 'desc') throw new SimError(400, `Invalid sort direction: ${dir}`);
      return { key, desc: dir === 'desc' };
    });
  } else {
    const names = all(q, 'sort_key');
    const dirs = all(q, 'sort_dir');
    if (dirs.length > 1 && dirs.length !== names.length) throw new SimError(400, 'Number of sort dirs does not match the number of sort keys');
    for (const d of dirs) if (d !== 'asc' && d !== 'desc') throw new SimError(400, `Invalid sort direction: ${d}`);
    keys = (names.length > 0 ? names : ['created_at']).map((key, n) => ({ key, desc: (dirs[n] ?? dirs[0] ?? 'desc') === 'desc' }));
  }
  for (const k of keys) {
    if (!SORT_KEYS.includes(k.key)) throw new SimError(400, `Invalid sort key: ${k.key}. It must be one of the following: ${SORT_KEYS.join(', ')}.`);
  }
  // Glance always breaks ties with created_at and id, in the direction of the last key.
  const last = keys[keys.length - 1]!.desc;
  for (const key of ['created_at', 'id']) if (!keys.some((k) => k.key === key)) keys.push({ key, desc: last });
  return compareBy(keys.map((k) => ({ get: (i: Image) => i[k.key as keyof Image], desc: k.desc })));
}

function boolParam(q: RawQuery, key: string): boolean | undefined {
  const raw = one(q, key);
  if (raw === undefined) return undefined;
  const v = parseBool(raw);
  if (v === undefined) throw new SimError(400, `Invalid value for ${key}: ${raw}`);
  return v;
}

function intParam(q: RawQuery, key: string): number | undefined {
  const raw = one(q, key);
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw new SimError(400, `${key} param must be an integer`);
  return Number(raw);
}

/** The filters of a list request as one predicate. */
function filterOf(q: RawQuery): (i: Image) => boolean {
  const checks: ((i: Image) => boolean)[] = [];
  for (const key of CORE_FILTERS) {
    const raw = one(q, key);
    if (raw === undefined) continue;
    const wanted = raw.startsWith('in:') ? raw.slice(3).split(',') : [raw];
    checks.push((i) => wanted.includes(String(i[key])));
  }
  const hidden = boolParam(q, 'os_hidden') ?? false;
  checks.push((i) => i.os_hidden === hidden);
  const prot = boolParam(q, 'protected');
  if (prot !== undefined) checks.push((i) => i.protected === prot);
  const tags = all(q, 'tag');
  if (tags.length > 0) checks.push((i) => tags.every((t) => i.tags.includes(t)));
  const min = intParam(q, 'size_min');
  const max = intParam(q, 'size_max');
  if (min !== undefined) checks.push((i) => i.size !== null && i.size >= min);
  if (max !== undefined) checks.push((i) => i.size !== null && i.size <= max);
  for (const key of Object.keys(q)) {
    if (RESERVED.has(key)) continue;
    const value = one(q, key);
    checks.push((i) => i.properties[key] === value);
  }
  return (i) => checks.every((c) => c(i));
}

/** The images the filters then judge: those of the narrowest index a filter names (id, name, owner, tag), else all. */
function candidates(state: GlanceState, q: RawQuery): Image[] {
  const { images } = state;
  const wanted = (key: string) => {
    const raw = one(q, key);
    return raw === undefined ? undefined : raw.startsWith('in:') ? raw.slice(3).split(',') : [raw];
  };
  const options: Image[][] = [];
  const ids = wanted('id');
  if (ids) options.push(ids.map((id) => images.get(id)).filter((i): i is Image => i !== undefined));
  for (const [key, index] of [['name', 'name'], ['owner', 'owner']] as const) {
    const values = wanted(key);
    if (values) options.push(images.byAny(index, values));
  }
  const tags = all(q, 'tag');
  if (tags.length > 0) options.push(images.by('tag', tags.reduce((a, b) => (images.count('tag', b) < images.count('tag', a) ? b : a))));
  return options.length > 0 ? options.reduce((a, b) => (b.length < a.length ? b : a)) : [...images.values()];
}

export function registerImageRoutes(app: FastifyInstance, state: GlanceState): void {
  app.get<{ Params: { id: string } }>('/v2/images/:id', async (request) => {
    const image = state.images.get(request.params.id);
    if (!image || !canSee(image, callerOf(request))) throw new SimError(404, `No image found with ID ${request.params.id}`);
    return renderImage(image);
  });

  app.get('/v2/images', async (request) => {
    const q = request.query as RawQuery;
    const caller = callerOf(request);
    const rawLimit = intParam(q, 'limit');
    if (rawLimit !== undefined && rawLimit < 0) throw new SimError(400, 'limit param must be positive');
    const limit = Math.min(rawLimit ?? state.limits.default, state.limits.max);
    const vis = one(q, 'visibility');
    if (vis !== undefined && !['public', 'private', 'shared', 'community', 'all'].includes(vis)) {
      throw new SimError(400, `Invalid visibility value: ${vis}`);
    }
    const order = sortOrder(q);
    const matches = filterOf(q);
    let images = candidates(state, q).filter((i) => listed(i, caller, vis as Visibility | 'all' | undefined) && matches(i)).sort(order);
    const markerId = one(q, 'marker');
    if (markerId !== undefined) {
      const marker = state.images.get(markerId);
      if (!marker || !canSee(marker, caller)) throw new SimError(400, `Invalid marker. Image ${markerId} could not be found.`);
      images = images.filter((i) => order(i, marker) > 0);
    }
    const page = images.slice(0, limit);
    const firstQuery = withParams(q, { marker: undefined }).toString();
    const body: Record<string, unknown> = {
      images: page.map(renderImage),
      first: `/v2/images${firstQuery ? `?${firstQuery}` : ''}`,
      schema: '/v2/schemas/images',
    };
    // Glance links a full page to the next one, even when nothing follows (spec §7.1).
    if (page.length > 0 && page.length === limit) body.next = `/v2/images?${withParams(q, { marker: page[page.length - 1]!.id }).toString()}`;
    return body;
  });
}
