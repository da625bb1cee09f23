// GET /servers and /servers/detail (spec openstack-apis §2.5): the project's servers (all with
// all_tenants for admins), filters by version and role (others silently dropped, 400 from 2.75),
// `name` as an unanchored case-insensitive regex, tag filters, changes-since with the deleted ones,
// sorting, and limit/marker with a `servers_links` next whenever the page is full. The servers
// looked at come from the narrowest index a filter names (uuid, tags, reservation_id), else from
// the project's servers.
import type { FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { all, compareBy, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { atLeast, versionOf, type Version } from './microversion.js';
import { renderServer, renderSummary } from './render-server.js';
import { KNOWN_STATUSES, statusOf, type Server } from './servers.js';
import type { NovaState } from './state.js';

const SINCE_21 = ['name', 'status', 'image', 'flavor', 'ip', 'reservation_id', 'changes-since', 'limit', 'marker', 'sort_key', 'sort_dir', 'all_tenants'];
const FILTERS_283 = ['availability_zone', 'config_drive', 'key_name', 'created_at', 'launched_at', 'terminated_at', 'power_state', 'task_state', 'vm_state', 'progress', 'user_id'];
const ADMIN_ONLY = ['project_id', 'tenant_id', 'host', 'node', 'deleted', 'uuid', 'hostname', 'launch_index', 'image_ref', 'display_name', 'locked_by'];
const TAG_FILTERS = ['tags', 'tags-any', 'not-tags', 'not-tags-any'];

/** Parameters a caller may use at this version (for admins every known one). */
function usable(v: Version, admin: boolean): Set<string> {
  const keys = [...SINCE_21];
  if (atLeast(v, 5)) keys.push('ip6');
  if (atLeast(v, 26)) keys.push(...TAG_FILTERS);
  if (atLeast(v, 66)) keys.push('changes-before');
  if (atLeast(v, 73)) keys.push('locked');
  if (atLeast(v, 83) || admin) keys.push(...FILTERS_283);
  if (atLeast(v, 90)) keys.push('hostname');
  if (admin) keys.push(...ADMIN_ONLY);
  return new Set(keys);
}

const ALL_KNOWN = new Set([...SINCE_21, 'ip6', ...TAG_FILTERS, 'changes-before', 'locked', ...FILTERS_283, ...ADMIN_ONLY, 'description', 'soft_deleted']);

const SORT_KEYS: Record<string, (s: Server) => unknown> = {
  created_at: (s) => s.createdAt,
  updated_at: (s) => s.updatedAt,
  launched_at: (s) => s.launchedAt,
  terminated_at: (s) => s.terminatedAt,
  display_name: (s) => s.name,
  hostname: (s) => s.hostname,
  uuid: (s) => s.id,
  vm_state: (s) => s.vmState,
  task_state: (s) => s.taskState,
  power_state: (s) => s.powerState,
  availability_zone: (s) => s.availabilityZone,
  key_name: (s) => s.keyName,
  project_id: (s) => s.projectId,
  user_id: (s) => s.userId,
  host: (s) => s.host,
  locked: (s) => s.locked,
};

function timestamp(q: RawQuery, key: string): number | undefined {
  const raw = one(q, key);
  if (raw === undefined) return undefined;
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(raw) ? raw : `${raw}Z`);
  if (Number.isNaN(ms)) throw new SimError(400, `Invalid input for field/attribute ${key}. Value: ${raw}. '${raw}' is not a 'date-time'`);
  return ms;
}

/** `name` and `ip`: unanchored, case-insensitive regexes (a broken one matches literally). */
function regex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'i');
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  }
}

const tagList = (q: RawQuery, key: string) => (one(q, key) ?? '').split(',').map((t) => t.trim()).filter(Boolean);

function filterServers(state: NovaState, request: FastifyRequest): Server[] {
  const q = request.query as RawQuery;
  const caller = callerOf(request);
  const v = versionOf(request);
  if (atLeast(v, 75)) {
    const unknown = Object.keys(q).find((k) => !ALL_KNOWN.has(k));
    if (unknown) throw new SimError(400, `Invalid input for query parameters ${unknown}. Value: ${one(q, unknown)}. Additional properties are not allowed ('${unknown}' was unexpected)`);
  }
  const may = usable(v, caller.isAdmin);
  const has = (k: string) => may.has(k) && q[k] !== undefined;
  let allTenants = false;
  if (q.all_tenants !== undefined) {
    const raw = one(q, 'all_tenants') ?? '';
    allTenants = raw === '' ? true : parseBool(raw) ?? true;
    if (allTenants && !caller.isAdmin) throw new SimError(403, "Policy doesn't allow os_compute_api:servers:detail:get_all_tenants to be performed.");
  }
  const project = has('project_id') ? one(q, 'project_id') : has('tenant_id') ? one(q, 'tenant_id') : allTenants ? undefined : caller.projectId;
  const since = has('changes-since') ? timestamp(q, 'changes-since') : undefined;
  const before = has('changes-before') ? timestamp(q, 'changes-before') : undefined;
  if (since !== undefined && before !== undefined && since > before) {
    throw new SimError(400, 'The value of changes-since must be less than or equal to changes-before.');
  }
  const statuses = has('status') ? all(q, 'status').map((s) => s.toUpperCase()) : [];
  const unknownStatus = statuses.some((s) => !KNOWN_STATUSES.includes(s));
  if (unknownStatus && atLeast(v, 38)) throw new SimError(400, 'Invalid status value');
  if (unknownStatus) return [];
  if (statuses.includes('DELETED') && !caller.isAdmin) throw new SimError(403, 'Only administrators may list deleted instances');
  const withDeleted = since !== undefined || before !== undefined || statuses.includes('DELETED') || (has('deleted') && parseBool(one(q, 'deleted') ?? '') === true);

  const checks: ((s: Server) => boolean)[] = [];
  const add = (key: string, test: (value: string, s: Server) => boolean) => {
    if (has(key)) checks.push((s) => test(one(q, key)!, s));
  };
  // The patterns are compiled once a request, not once a server.
  const pattern = (key: string) => (has(key) ? regex(one(q, key)!) : undefined);
  const [name, ip, ip6, hostname] = [pattern('name'), pattern('ip'), pattern('ip6'), pattern('hostname')];
  add('name', (_, s) => name!.test(s.name));
  add('image', (p, s) => s.imageId === p.split('/').pop());
  add('flavor', (p, s) => s.flavor.id === p.split('/').pop());
  add('reservation_id', (p, s) => s.reservationId === p);
  add('ip', (_, s) => addressesOf(state, s, 4).some((a) => ip!.test(a)));
  add('ip6', (_, s) => addressesOf(state, s, 6).some((a) => ip6!.test(a)));
  add('availability_zone', (p, s) => s.availabilityZone === p);
  add('key_name', (p, s) => s.keyName === p);
  add('vm_state', (p, s) => s.vmState === p);
  add('task_state', (p, s) => (s.taskState ?? '') === p);
  add('power_state', (p, s) => String(s.powerState) === p);
  add('user_id', (p, s) => s.userId === p);
  add('host', (p, s) => s.host === p);
  add('hostname', (_, s) => hostname!.test(s.hostname));
  add('uuid', (p, s) => s.id === p);
  add('locked', (p, s) => s.locked === (parseBool(p) ?? false));
  add('config_drive', (p, s) => s.configDrive === (parseBool(p) ?? false));
  add('tags', (_, s) => tagList(q, 'tags').every((t) => s.tags.includes(t)));
  add('tags-any', (_, s) => tagList(q, 'tags-any').some((t) => s.tags.includes(t)));
  add('not-tags', (_, s) => !tagList(q, 'not-tags').every((t) => s.tags.includes(t)));
  add('not-tags-any', (_, s) => !tagList(q, 'not-tags-any').some((t) => s.tags.includes(t)));
  if (statuses.length > 0) checks.push((s) => statuses.includes(statusOf(s)));
  if (since !== undefined) checks.push((s) => s.updatedAt >= since);
  if (before !== undefined) checks.push((s) => s.updatedAt <= before);

  return candidates(state, q, has, project).filter(
    (s) => (project === undefined || s.projectId === project) && (withDeleted || s.vmState !== 'deleted') && checks.every((c) => c(s)),
  );
}

/** The servers the filters then judge: those of the narrowest index a filter names, else the project's (every one's). */
function candidates(state: NovaState, q: RawQuery, has: (k: string) => boolean, project: string | undefined): Server[] {
  const options: Server[][] = [];
  const { servers } = state;
  if (has('uuid')) options.push([servers.get(one(q, 'uuid')!)].filter((s): s is Server => s !== undefined));
  if (has('reservation_id')) options.push(servers.by('reservation', one(q, 'reservation_id')!));
  if (has('tags')) {
    const tags = tagList(q, 'tags');
    if (tags.length > 0) options.push(servers.by('tag', tags.reduce((a, b) => (servers.count('tag', b) < servers.count('tag', a) ? b : a))));
  }
  if (has('tags-any')) options.push([...new Set(tagList(q, 'tags-any').flatMap((t) => servers.by('tag', t)))]);
  if (options.length > 0) return options.reduce((a, b) => (b.length < a.length ? b : a));
  return project === undefined ? [...servers.values()] : servers.by('project', project);
}

function addressesOf(state: NovaState, s: Server, version: 4 | 6): string[] {
  const out: string[] = [];
  for (const sp of s.ports) for (const a of state.networking.port(sp.portId)?.fixedIps ?? []) if (a.includes(':') === (version === 6)) out.push(a);
  return out;
}

export function listServers(state: NovaState, request: FastifyRequest, detail: boolean): Record<string, unknown> {
  const q = request.query as RawQuery;
  const caller = callerOf(request);
  const v = versionOf(request);
  const rawLimit = one(q, 'limit');
  if (rawLimit !== undefined && !/^-?\d+$/.test(rawLimit)) throw new SimError(400, 'limit param must be an integer');
  if (rawLimit !== undefined && Number(rawLimit) < 0) throw new SimError(400, 'limit param must be positive');
  const limit = Math.min(rawLimit === undefined ? state.maxLimit : Number(rawLimit), state.maxLimit);
  const keys = all(q, 'sort_key');
  const dirs = all(q, 'sort_dir');
  for (const k of keys) if (!SORT_KEYS[k]) throw new SimError(400, `Invalid input for query parameters sort_key. Value: ${k}. '${k}' is not one of ${JSON.stringify(Object.keys(SORT_KEYS)).replace(/"/g, "'")}`);
  for (const d of dirs) if (d !== 'asc' && d !== 'desc') throw new SimError(400, `Invalid input for query parameters sort_dir. Value: ${d}. '${d}' is not one of ['asc', 'desc']`);
  const order = compareBy<Server>([
    ...(keys.length > 0 ? keys : ['created_at']).map((k, i) => ({ get: SORT_KEYS[k]!, desc: (dirs[i] ?? dirs[0] ?? 'desc') === 'desc' })),
    { get: (s) => s.seq, desc: true },
  ]);
  let servers = filterServers(state, request).sort(order);
  const markerId = one(q, 'marker');
  if (markerId !== undefined) {
    const marker = state.servers.get(markerId);
    if (!marker || !(caller.isAdmin || marker.projectId === caller.projectId)) throw new SimError(400, `marker [${markerId}] not found`);
    servers = servers.filter((s) => order(s, marker) > 0);
  }
  const page = servers.slice(0, limit);
  const base = hostUrl(request);
  const body: Record<string, unknown> = {
    servers: page.map((s) => (detail ? renderServer(state, s, v, caller, base, true) : renderSummary(s, base))),
  };
  if (limit > 0 && page.length === limit) {
    const params = withParams(q, { marker: page[page.length - 1]!.id });
    body.servers_links = [{ rel: 'next', href: `${base}/v2.1/servers${detail ? '/detail' : ''}?${params.toString()}` }];
  }
  return body;
}
