// GET /v2.1/flavors, /v2.1/flavors/detail and /v2.1/flavors/{id} (spec openstack-apis §2.7):
// public and project-accessible flavors, Nova's filters and sorting, limit/marker with a
// `flavors_links` next whenever the page is full.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import { compareBy, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { atLeast, versionOf, type Version } from './microversion.js';
import type { Flavor, NovaState } from './state.js';

const links = (base: string, id: string) => [
  { rel: 'self', href: `${base}/v2.1/flavors/${id}` },
  { rel: 'bookmark', href: `${base}/flavors/${id}` },
];

export function renderFlavor(f: Flavor, v: Version, base: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: f.id,
    name: f.name,
    ram: f.ram,
    disk: f.disk,
    vcpus: f.vcpus,
    swap: atLeast(v, 75) ? f.swap : f.swap || '',
    'OS-FLV-EXT-DATA:ephemeral': f.ephemeral,
    'os-flavor-access:is_public': f.isPublic,
    links: links(base, f.id),
  };
  if (!atLeast(v, 102)) {
    body['OS-FLV-DISABLED:disabled'] = f.disabled;
    body.rxtx_factor = f.rxtx_factor;
  }
  if (atLeast(v, 55)) body.description = f.description;
  if (atLeast(v, 61)) body.extra_specs = f.extraSpecs;
  return body;
}

function renderSummary(f: Flavor, v: Version, base: string): Record<string, unknown> {
  return { id: f.id, name: f.name, links: links(base, f.id), ...(atLeast(v, 55) ? { description: f.description } : {}) };
}

const accessible = (f: Flavor, c: SimCaller) => f.isPublic || f.projects.includes(c.projectId ?? '');

const SORT_KEYS: Record<string, (f: Flavor) => unknown> = {
  flavorid: (f) => f.id,
  id: (f) => f.createdAt,
  name: (f) => f.name,
  memory_mb: (f) => f.ram,
  root_gb: (f) => f.disk,
  vcpus: (f) => f.vcpus,
  ephemeral_gb: (f) => f.ephemeral,
  swap: (f) => f.swap,
  rxtx_factor: (f) => f.rxtx_factor,
  is_public: (f) => f.isPublic,
  disabled: (f) => f.disabled,
  description: (f) => f.description,
  created_at: (f) => f.createdAt,
};
const KNOWN_PARAMS = new Set(['is_public', 'minRam', 'minDisk', 'sort_key', 'sort_dir', 'limit', 'marker']);

function nonNegative(q: RawQuery, key: string, message: (raw: string) => string): number | undefined {
  const raw = one(q, key);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new SimError(400, message(raw));
  return Number(raw);
}

function listFlavors(state: NovaState, request: FastifyRequest, detail: boolean) {
  const q = request.query as RawQuery;
  const caller = callerOf(request);
  const v = versionOf(request);
  if (atLeast(v, 75)) {
    const unknown = Object.keys(q).find((k) => !KNOWN_PARAMS.has(k));
    if (unknown) throw new SimError(400, `Invalid input for query parameters ${unknown}. Value: ${one(q, unknown)}. Additional properties are not allowed ('${unknown}' was unexpected)`);
  }
  // Only admins choose is_public ('none' = both); others always get public plus accessible ones.
  let isPublic: boolean | null = true;
  const rawPublic = one(q, 'is_public');
  if (caller.isAdmin && rawPublic !== undefined) {
    isPublic = rawPublic.toLowerCase() === 'none' ? null : parseBool(rawPublic) ?? null;
    if (isPublic === null && rawPublic.toLowerCase() !== 'none') throw new SimError(400, `Invalid is_public filter [${rawPublic}]`);
  }
  const minRam = nonNegative(q, 'minRam', (raw) => `Invalid minRam filter [${raw}]`);
  const minDisk = nonNegative(q, 'minDisk', (raw) => `Invalid minDisk filter [${raw}]`);
  const rawLimit = one(q, 'limit');
  if (rawLimit !== undefined && !/^-?\d+$/.test(rawLimit)) throw new SimError(400, 'limit param must be an integer');
  if (rawLimit !== undefined && Number(rawLimit) < 0) throw new SimError(400, 'limit param must be positive');
  const limit = Math.min(rawLimit === undefined ? state.maxLimit : Number(rawLimit), state.maxLimit);
  const sortKey = one(q, 'sort_key') ?? 'flavorid';
  const sortDir = one(q, 'sort_dir') ?? 'asc';
  const get = SORT_KEYS[sortKey];
  if (!get) throw new SimError(400, `Invalid input received: sort_key ${sortKey} is invalid.`);
  if (sortDir !== 'asc' && sortDir !== 'desc') throw new SimError(400, `Invalid input received: sort_dir ${sortDir} is invalid.`);
  const order = compareBy<Flavor>([
    { get, desc: sortDir === 'desc' },
    { get: (f) => f.id, desc: sortDir === 'desc' },
  ]);

  let flavors = [...state.flavors.values()]
    .filter((f) => (isPublic === null ? true : f.isPublic === isPublic || (isPublic && accessible(f, caller))))
    .filter((f) => caller.isAdmin || !f.disabled)
    .filter((f) => (minRam === undefined || f.ram >= minRam) && (minDisk === undefined || f.disk >= minDisk))
    .sort(order);
  const markerId = one(q, 'marker');
  if (markerId !== undefined) {
    const marker = state.flavors.get(markerId);
    if (!marker || !(caller.isAdmin || accessible(marker, caller))) throw new SimError(400, `marker [${markerId}] not found`);
    flavors = flavors.filter((f) => order(f, marker) > 0);
  }
  const page = flavors.slice(0, limit);
  const base = hostUrl(request);
  const render = detail ? renderFlavor : renderSummary;
  const body: Record<string, unknown> = { flavors: page.map((f) => render(f, v, base)) };
  // Nova links a full page to the next one, even when nothing follows (spec §7.1).
  if (limit > 0 && page.length === limit) {
    const params = withParams(q, { marker: page[page.length - 1]!.id }, true);
    body.flavors_links = [{ rel: 'next', href: `${base}/v2.1/flavors${detail ? '/detail' : ''}?${params.toString()}` }];
  }
  return body;
}

export function registerFlavorRoutes(scope: FastifyInstance, state: NovaState): void {
  scope.get('/v2.1/flavors', async (request) => listFlavors(state, request, false));
  scope.get('/v2.1/flavors/detail', async (request) => listFlavors(state, request, true));
  scope.get<{ Params: { id: string } }>('/v2.1/flavors/:id', async (request) => {
    const caller = callerOf(request);
    const flavor = state.flavors.get(request.params.id);
    if (!flavor || !(caller.isAdmin || accessible(flavor, caller))) throw new SimError(404, `Flavor ${request.params.id} could not be found.`);
    return { flavor: renderFlavor(flavor, versionOf(request), hostUrl(request)) };
  });
}
