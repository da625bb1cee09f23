// Octavia v2 API under /v2/lbaas (and the /v2.0/lbaas alias): load balancers (with graph
// create), listeners, pools, members (with batch replace), health monitors, status tree, stats,
// failover and quotas (spec openstack-apis §4).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import { all, compareBy, one, parseBool, withParams, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { renderHm, renderLb, renderListener, renderMember, renderPool, renderStatusTree } from './render.js';
import {
  KIND_NAMES,
  QUOTA_KEYS,
  type AnyObject,
  type HealthMonitor,
  type Kind,
  type Listener,
  type LoadBalancer,
  type Member,
  type OctaviaState,
  type Pool,
  type Quota,
} from './state.js';
import { bool, int, list, obj, oneOf, str, tags, wrapped, type Body } from './validate.js';

const LISTENER_PROTOCOLS = ['HTTP', 'HTTPS', 'TCP', 'TERMINATED_HTTPS', 'UDP', 'SCTP', 'PROMETHEUS'] as const;
const POOL_PROTOCOLS = ['HTTP', 'HTTPS', 'PROXY', 'PROXYV2', 'TCP', 'UDP', 'SCTP'] as const;
const ALGORITHMS = ['ROUND_ROBIN', 'LEAST_CONNECTIONS', 'SOURCE_IP', 'SOURCE_IP_PORT'] as const;
const HM_TYPES = ['HTTP', 'HTTPS', 'PING', 'TCP', 'TLS-HELLO', 'UDP-CONNECT', 'SCTP'] as const;
const SP_TYPES = ['SOURCE_IP', 'HTTP_COOKIE', 'APP_COOKIE'] as const;
/** Pool protocols each listener protocol accepts (Octavia's VALID_LISTENER_POOL_PROTOCOL_MAP). */
const COMPATIBLE: Record<string, string[]> = {
  HTTP: ['HTTP', 'PROXY', 'PROXYV2'],
  HTTPS: ['HTTPS', 'PROXY', 'PROXYV2', 'TCP'],
  TCP: ['TCP', 'HTTP', 'HTTPS', 'PROXY', 'PROXYV2'],
  TERMINATED_HTTPS: ['HTTP', 'PROXY', 'PROXYV2'],
  UDP: ['UDP'],
  SCTP: ['SCTP'],
  PROMETHEUS: [],
};

type Caller = SimCaller & { projectId: string };
const visible = (c: Caller, o: { project_id: string }) => c.isAdmin || o.project_id === c.projectId;

function find<T extends AnyObject>(s: OctaviaState, kind: Kind, id: string, c: Caller): T {
  const o = s.map(kind).get(id);
  if (!o || !visible(c, o)) throw new SimError(404, `${KIND_NAMES[kind]} ${id} not found.`);
  return o as T;
}

// ---- builders (validate, do not insert) -------------------------------------------------

function buildListener(s: OctaviaState, lb: LoadBalancer, b: Body, siblings: Listener[]): Listener {
  const protocol = oneOf(b, 'protocol', LISTENER_PROTOCOLS, true)!;
  const port = int(b, 'protocol_port', 1, 65535, true)!;
  const clash = [...s.listenersOf(lb.id), ...siblings].find((l) => l.protocol_port === port && (l.protocol === 'UDP') === (protocol === 'UDP'));
  if (clash) throw new SimError(409, `Another Listener on this Load Balancer is already using protocol ${clash.protocol} and protocol_port ${port}`);
  return {
    ...s.common(lb.project_id, { name: str(b, 'name'), admin_state_up: bool(b, 'admin_state_up'), tags: tags(b) }),
    description: str(b, 'description') ?? '',
    loadbalancer_id: lb.id,
    protocol,
    protocol_port: port,
    connection_limit: int(b, 'connection_limit', -1, 2 ** 31 - 1) ?? -1,
    default_pool_id: null,
    default_tls_container_ref: str(b, 'default_tls_container_ref') ?? null,
    sni_container_refs: [],
    insert_headers: (obj(b, 'insert_headers') as Record<string, string> | undefined) ?? {},
    timeout_client_data: int(b, 'timeout_client_data', 0, 86_400_000) ?? 50_000,
    timeout_member_connect: int(b, 'timeout_member_connect', 0, 86_400_000) ?? 5_000,
    timeout_member_data: int(b, 'timeout_member_data', 0, 86_400_000) ?? 50_000,
    timeout_tcp_inspect: int(b, 'timeout_tcp_inspect', 0, 86_400_000) ?? 0,
    allowed_cidrs: Array.isArray(b.allowed_cidrs) ? (b.allowed_cidrs as string[]) : null,
  };
}

function buildMember(s: OctaviaState, pool: Pool, b: Body, siblings: Member[]): Member {
  const address = str(b, 'address', true)!;
  const port = int(b, 'protocol_port', 1, 65535, true)!;
  if ([...s.membersOf(pool.id), ...siblings].some((m) => m.address === address && m.protocol_port === port)) {
    throw new SimError(409, `Another member on this pool is already using ip ${address} on protocol_port ${port}`);
  }
  return {
    ...s.common(pool.project_id, { name: str(b, 'name'), admin_state_up: bool(b, 'admin_state_up'), tags: tags(b) }),
    pool_id: pool.id,
    loadbalancer_id: pool.loadbalancer_id,
    address,
    protocol_port: port,
    weight: int(b, 'weight', 0, 256) ?? 1,
    backup: bool(b, 'backup') ?? false,
    subnet_id: str(b, 'subnet_id') ?? null,
    monitor_address: str(b, 'monitor_address') ?? null,
    monitor_port: int(b, 'monitor_port', 1, 65535) ?? null,
  };
}

function buildHm(s: OctaviaState, pool: Pool, b: Body): HealthMonitor {
  if (pool.healthmonitor_id) throw new SimError(409, 'This pool already has a health monitor');
  const type = oneOf(b, 'type', HM_TYPES, true)!;
  const http = type === 'HTTP' || type === 'HTTPS';
  return {
    ...s.common(pool.project_id, { name: str(b, 'name'), admin_state_up: bool(b, 'admin_state_up'), tags: tags(b) }),
    pool_id: pool.id,
    loadbalancer_id: pool.loadbalancer_id,
    type,
    delay: int(b, 'delay', 0, 2 ** 31 - 1, true)!,
    timeout: int(b, 'timeout', 0, 2 ** 31 - 1, true)!,
    max_retries: int(b, 'max_retries', 1, 10, true)!,
    max_retries_down: int(b, 'max_retries_down', 1, 10) ?? 3,
    http_method: http ? str(b, 'http_method') ?? 'GET' : null,
    url_path: http ? str(b, 'url_path') ?? '/' : null,
    expected_codes: http ? str(b, 'expected_codes') ?? '200' : null,
    http_version: http ? (typeof b.http_version === 'number' ? b.http_version : 1.0) : null,
    domain_name: str(b, 'domain_name') ?? null,
  };
}

interface PoolTree {
  pool: Pool;
  members: Member[];
  hm: HealthMonitor | undefined;
}

function buildPool(s: OctaviaState, lb: LoadBalancer, b: Body, listener: Listener | undefined): PoolTree {
  const protocol = oneOf(b, 'protocol', POOL_PROTOCOLS, true)!;
  const lbAlgorithm = oneOf(b, 'lb_algorithm', ALGORITHMS, true)!;
  if (listener) {
    if (listener.default_pool_id) throw new SimError(409, `Listener ${listener.id} already has a default pool`);
    if (!COMPATIBLE[listener.protocol]?.includes(protocol)) {
      throw new SimError(400, `Validation failure: The pool protocol '${protocol}' is invalid while the listener protocol is '${listener.protocol}'.`);
    }
  }
  const sp = obj(b, 'session_persistence');
  if (sp) oneOf(sp, 'type', SP_TYPES, true);
  const pool: Pool = {
    ...s.common(lb.project_id, { name: str(b, 'name'), admin_state_up: bool(b, 'admin_state_up'), tags: tags(b) }),
    description: str(b, 'description') ?? '',
    loadbalancer_id: lb.id,
    protocol,
    lb_algorithm: lbAlgorithm,
    session_persistence: sp ? { type: sp.type, cookie_name: sp.cookie_name ?? null, persistence_timeout: null, persistence_granularity: null } : null,
    healthmonitor_id: null,
    tls_enabled: bool(b, 'tls_enabled') ?? false,
  };
  const members: Member[] = [];
  for (const m of list(b, 'members')) members.push(buildMember(s, pool, m, members));
  const hmBody = obj(b, 'healthmonitor');
  const hm = hmBody ? buildHm(s, pool, hmBody) : undefined;
  if (hm) pool.healthmonitor_id = hm.id;
  return { pool, members, hm };
}

function insertPool(s: OctaviaState, t: PoolTree): void {
  s.pools.set(t.pool.id, t.pool);
  for (const m of t.members) s.members.set(m.id, m);
  if (t.hm) s.healthmonitors.set(t.hm.id, t.hm);
}

const counts = (trees: PoolTree[]) => ({
  pool: trees.length,
  member: trees.reduce((n, t) => n + t.members.length, 0),
  healthmonitor: trees.filter((t) => t.hm).length,
});

// ---- lists ------------------------------------------------------------------------------

const SPECIAL = new Set(['limit', 'marker', 'page_reverse', 'sort', 'sort_key', 'sort_dir', 'fields', 'tags', 'tags-any', 'not-tags', 'not-tags-any']);

const splitTags = (q: RawQuery, key: string) => all(q, key).flatMap((v) => v.split(',')).filter((t) => t !== '');

function listOf(
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

// ---- routes -----------------------------------------------------------------------------

type P<T extends string> = { Params: Record<T, string> };

function register(scope: FastifyInstance, s: OctaviaState, root: string): void {
  const lbPath = `${root}/loadbalancers`;
  const rLb = (o: AnyObject) => renderLb(s, o as LoadBalancer);
  const rListener = (o: AnyObject) => renderListener(s, o as Listener);
  const rPool = (o: AnyObject) => renderPool(s, o as Pool);
  const rMember = (o: AnyObject) => renderMember(s, o as Member);
  const rHm = (o: AnyObject) => renderHm(s, o as HealthMonitor);
  const lbOf = (o: { loadbalancer_id: string }) => s.loadbalancers.get(o.loadbalancer_id)!;
  const childDone = (lb: LoadBalancer) => s.settle(lb, 'octavia.loadbalancer.update', () => s.finishTree(lb.id));

  // -- load balancers
  scope.get(lbPath, async (req) => listOf(s, req, [...s.loadbalancers.values()], rLb, 'loadbalancers', lbPath));
  scope.post(lbPath, async (req, reply) => {
    const caller = callerOf(req);
    const b = wrapped(req.body, 'loadbalancer');
    const subnetId = str(b, 'vip_subnet_id');
    const networkId = str(b, 'vip_network_id');
    const portId = str(b, 'vip_port_id');
    if (!subnetId && !networkId && !portId) {
      throw new SimError(400, 'Validation failure: VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id.');
    }
    const provider = str(b, 'provider') ?? 'amphora';
    if (!s.enabledProviders.includes(provider)) throw new SimError(400, `Provider '${provider}' is not enabled.`);
    let projectId = caller.projectId;
    const asked = str(b, 'project_id');
    if (asked && asked !== caller.projectId) {
      if (!caller.isAdmin) throw new SimError(403, 'Policy does not allow this request to be performed.');
      projectId = asked;
    }
    const lb: LoadBalancer = {
      ...s.common(projectId, { name: str(b, 'name'), admin_state_up: bool(b, 'admin_state_up'), tags: tags(b) }),
      description: str(b, 'description') ?? '',
      vip_address: '',
      vip_port_id: '',
      vip_subnet_id: '',
      vip_network_id: '',
      vip_qos_policy_id: str(b, 'vip_qos_policy_id') ?? null,
      provider: provider === 'octavia' ? 'amphora' : provider,
      flavor_id: str(b, 'flavor_id') ?? null,
      availability_zone: str(b, 'availability_zone') ?? null,
    };
    // Graph create: listeners (each with an optional default_pool tree) and pools.
    const listeners: Listener[] = [];
    const trees: PoolTree[] = [];
    for (const lb0 of list(b, 'listeners')) {
      const l = buildListener(s, lb, lb0, listeners);
      listeners.push(l);
      const dp = obj(lb0, 'default_pool');
      if (dp) {
        const t = buildPool(s, lb, dp, l);
        l.default_pool_id = t.pool.id;
        trees.push(t);
      }
    }
    for (const p of list(b, 'pools')) trees.push(buildPool(s, lb, p, undefined));
    s.checkQuota(projectId, { loadbalancer: 1, listener: listeners.length, ...counts(trees) });
    const port = s.vip.allocate({ projectId, lbId: lb.id, subnetId, networkId, portId, address: str(b, 'vip_address') });
    Object.assign(lb, { vip_address: port.address, vip_port_id: port.id, vip_subnet_id: port.subnetId, vip_network_id: port.networkId });
    s.loadbalancers.set(lb.id, lb);
    for (const l of listeners) s.listeners.set(l.id, l);
    for (const t of trees) insertPool(s, t);
    const fail = s.clock.random.chance(s.behaviour.createErrorFraction);
    s.settle(lb, 'octavia.loadbalancer.create', () => {
      if (fail) {
        lb.provisioning_status = 'ERROR';
        s.activateTree(lb.id, 'ERROR');
      } else s.finishTree(lb.id);
    });
    return reply.code(201).send({ loadbalancer: rLb(lb) });
  });
  scope.get<P<'id'>>(`${lbPath}/:id`, async (req) => ({ loadbalancer: rLb(find(s, 'loadbalancer', req.params.id, callerOf(req))) }));
  scope.put<P<'id'>>(`${lbPath}/:id`, async (req) => {
    const lb = find<LoadBalancer>(s, 'loadbalancer', req.params.id, callerOf(req));
    const b = wrapped(req.body, 'loadbalancer');
    const name = str(b, 'name');
    const description = str(b, 'description');
    const up = bool(b, 'admin_state_up');
    const t = tags(b);
    s.lock(lb, 'update');
    if (name !== undefined) lb.name = name;
    if (description !== undefined) lb.description = description;
    if (up !== undefined) lb.admin_state_up = up;
    if (t !== undefined) lb.tags = t;
    if ('vip_qos_policy_id' in b) lb.vip_qos_policy_id = str(b, 'vip_qos_policy_id') ?? null;
    s.settle(lb, 'octavia.loadbalancer.update', () => {});
    return { loadbalancer: rLb(lb) };
  });
  scope.delete<P<'id'> & { Querystring: RawQuery }>(`${lbPath}/:id`, async (req, reply) => {
    const lb = find<LoadBalancer>(s, 'loadbalancer', req.params.id, callerOf(req));
    const cascade = parseBool(one(req.query, 'cascade') ?? 'false') === true;
    const children = s.listenersOf(lb.id).length + s.poolsOf(lb.id).length > 0;
    if (children && !cascade) throw new SimError(400, `Validation failure: Cannot delete Load Balancer ${lb.id} - it has children`);
    s.lock(lb, 'delete');
    for (const kind of ['listener', 'pool', 'member', 'healthmonitor'] as const) {
      for (const o of s.map(kind).values()) if ((o as Listener).loadbalancer_id === lb.id) o.provisioning_status = 'PENDING_DELETE';
    }
    s.settle(lb, 'octavia.loadbalancer.delete', () => s.removeLb(lb));
    return reply.code(204).send();
  });
  for (const suffix of ['status', 'statuses']) {
    scope.get<P<'id'>>(`${lbPath}/:id/${suffix}`, async (req) => renderStatusTree(s, find(s, 'loadbalancer', req.params.id, callerOf(req))));
  }
  scope.get<P<'id'>>(`${lbPath}/:id/stats`, async (req) => {
    find(s, 'loadbalancer', req.params.id, callerOf(req));
    return { stats: { bytes_in: 0, bytes_out: 0, active_connections: 0, total_connections: 0, request_errors: 0 } };
  });
  scope.put<P<'id'>>(`${lbPath}/:id/failover`, async (req, reply) => {
    const caller = callerOf(req);
    if (!caller.isAdmin) throw new SimError(403, 'Policy does not allow this request to be performed.');
    const lb = find<LoadBalancer>(s, 'loadbalancer', req.params.id, caller);
    s.lock(lb, 'update');
    s.settle(lb, 'octavia.loadbalancer.update', () => {});
    return reply.code(202).send();
  });

  // -- listeners
  const lPath = `${root}/listeners`;
  scope.get(lPath, async (req) => listOf(s, req, [...s.listeners.values()], rListener, 'listeners', lPath));
  scope.post(lPath, async (req, reply) => {
    const caller = callerOf(req);
    const b = wrapped(req.body, 'listener');
    const lb = find<LoadBalancer>(s, 'loadbalancer', str(b, 'loadbalancer_id', true)!, caller);
    const l = buildListener(s, lb, b, []);
    const poolId = str(b, 'default_pool_id');
    if (poolId) {
      const pool = find<Pool>(s, 'pool', poolId, caller);
      if (pool.loadbalancer_id !== lb.id) throw new SimError(400, `Validation failure: Pool ${poolId} is not on load balancer ${lb.id}.`);
      l.default_pool_id = pool.id;
    }
    s.checkQuota(lb.project_id, { listener: 1 });
    s.lock(lb, 'child');
    s.listeners.set(l.id, l);
    childDone(lb);
    return reply.code(201).send({ listener: rListener(l) });
  });
  scope.get<P<'id'>>(`${lPath}/:id`, async (req) => ({ listener: rListener(find(s, 'listener', req.params.id, callerOf(req))) }));
  scope.put<P<'id'>>(`${lPath}/:id`, async (req) => {
    const caller = callerOf(req);
    const l = find<Listener>(s, 'listener', req.params.id, caller);
    const b = wrapped(req.body, 'listener');
    const patch: Partial<Listener> = {};
    for (const f of ['name', 'description', 'default_tls_container_ref'] as const) if (f in b) patch[f] = str(b, f) ?? (f === 'default_tls_container_ref' ? null : '') as never;
    for (const f of ['connection_limit', 'timeout_client_data', 'timeout_member_connect', 'timeout_member_data', 'timeout_tcp_inspect'] as const) {
      const v = int(b, f, f === 'connection_limit' ? -1 : 0, 2 ** 31 - 1);
      if (v !== undefined) patch[f] = v;
    }
    const up = bool(b, 'admin_state_up');
    if (up !== undefined) patch.admin_state_up = up;
    const t = tags(b);
    if (t !== undefined) patch.tags = t;
    if ('default_pool_id' in b) {
      const pid = str(b, 'default_pool_id');
      if (pid) find<Pool>(s, 'pool', pid, caller);
      patch.default_pool_id = pid ?? null;
    }
    const lb = lbOf(l);
    s.lock(lb, 'child');
    Object.assign(l, patch, { provisioning_status: 'PENDING_UPDATE' });
    s.touch(l);
    childDone(lb);
    return { listener: rListener(l) };
  });
  scope.delete<P<'id'>>(`${lPath}/:id`, async (req, reply) => {
    const l = find<Listener>(s, 'listener', req.params.id, callerOf(req));
    const lb = lbOf(l);
    s.lock(lb, 'child');
    l.provisioning_status = 'PENDING_DELETE';
    childDone(lb);
    return reply.code(204).send();
  });

  // -- pools
  const pPath = `${root}/pools`;
  scope.get(pPath, async (req) => listOf(s, req, [...s.pools.values()], rPool, 'pools', pPath));
  scope.post(pPath, async (req, reply) => {
    const caller = callerOf(req);
    const b = wrapped(req.body, 'pool');
    const listenerId = str(b, 'listener_id');
    const lbId = str(b, 'loadbalancer_id');
    if (!listenerId && !lbId) throw new SimError(400, 'Validation failure: loadbalancer_id or listener_id must be specified.');
    const listener = listenerId ? find<Listener>(s, 'listener', listenerId, caller) : undefined;
    const lb = find<LoadBalancer>(s, 'loadbalancer', listener?.loadbalancer_id ?? lbId!, caller);
    if (listener && lbId && lbId !== listener.loadbalancer_id) throw new SimError(400, 'Validation failure: The listener is not on the given load balancer.');
    const tree = buildPool(s, lb, b, listener);
    s.checkQuota(lb.project_id, counts([tree]));
    s.lock(lb, 'child');
    insertPool(s, tree);
    if (listener) listener.default_pool_id = tree.pool.id;
    childDone(lb);
    return reply.code(201).send({ pool: rPool(tree.pool) });
  });
  scope.get<P<'id'>>(`${pPath}/:id`, async (req) => ({ pool: rPool(find(s, 'pool', req.params.id, callerOf(req))) }));
  scope.put<P<'id'>>(`${pPath}/:id`, async (req) => {
    const p = find<Pool>(s, 'pool', req.params.id, callerOf(req));
    const b = wrapped(req.body, 'pool');
    const patch: Partial<Pool> = {};
    const name = str(b, 'name');
    if (name !== undefined) patch.name = name;
    const description = str(b, 'description');
    if (description !== undefined) patch.description = description;
    const alg = oneOf(b, 'lb_algorithm', ALGORITHMS);
    if (alg !== undefined) patch.lb_algorithm = alg;
    const up = bool(b, 'admin_state_up');
    if (up !== undefined) patch.admin_state_up = up;
    const t = tags(b);
    if (t !== undefined) patch.tags = t;
    if ('session_persistence' in b) {
      const sp = obj(b, 'session_persistence');
      if (sp) oneOf(sp, 'type', SP_TYPES, true);
      patch.session_persistence = sp ? { type: sp.type, cookie_name: sp.cookie_name ?? null, persistence_timeout: null, persistence_granularity: null } : null;
    }
    const lb = lbOf(p);
    s.lock(lb, 'child');
    Object.assign(p, patch, { provisioning_status: 'PENDING_UPDATE' });
    s.touch(p);
    childDone(lb);
    return { pool: rPool(p) };
  });
  scope.delete<P<'id'>>(`${pPath}/:id`, async (req, reply) => {
    const p = find<Pool>(s, 'pool', req.params.id, callerOf(req));
    const lb = lbOf(p);
    s.lock(lb, 'child');
    p.provisioning_status = 'PENDING_DELETE';
    for (const m of s.membersOf(p.id)) m.provisioning_status = 'PENDING_DELETE';
    childDone(lb);
    return reply.code(204).send();
  });

  // -- members
  const mPath = `${pPath}/:pool_id/members`;
  const memberPath = (poolId: string) => `${pPath}/${poolId}/members`;
  scope.get<P<'pool_id'>>(mPath, async (req) => {
    const pool = find<Pool>(s, 'pool', req.params.pool_id, callerOf(req));
    return listOf(s, req, s.membersOf(pool.id), rMember, 'members', memberPath(pool.id));
  });
  scope.post<P<'pool_id'>>(mPath, async (req, reply) => {
    const pool = find<Pool>(s, 'pool', req.params.pool_id, callerOf(req));
    const b = wrapped(req.body, 'member');
    const m = buildMember(s, pool, b, []);
    s.checkQuota(pool.project_id, { member: 1 });
    const lb = lbOf(pool);
    s.lock(lb, 'child');
    s.members.set(m.id, m);
    childDone(lb);
    return reply.code(201).send({ member: rMember(m) });
  });
  scope.put<P<'pool_id'>>(mPath, async (req, reply) => {
    const pool = find<Pool>(s, 'pool', req.params.pool_id, callerOf(req));
    const bodies = list((req.body ?? {}) as Body, 'members');
    if (!req.body || !Array.isArray((req.body as Body).members)) throw new SimError(400, "Invalid input for field/attribute members. Value: 'None'. Mandatory field missing.");
    const existing = s.membersOf(pool.id);
    const key = (a: unknown, p: unknown) => `${String(a)}:${String(p)}`;
    const fresh: Member[] = [];
    const updates: [Member, Body][] = [];
    const wanted = new Set<string>();
    for (const b of bodies) {
      const k = key(b.address, b.protocol_port);
      if (wanted.has(k)) throw new SimError(400, `Validation failure: Duplicate address/port in the member list: ${k}`);
      wanted.add(k);
      const old = existing.find((m) => key(m.address, m.protocol_port) === k);
      if (old) updates.push([old, b]);
      else fresh.push(buildMember(s, pool, b, fresh));
    }
    const gone = existing.filter((m) => !wanted.has(key(m.address, m.protocol_port)));
    s.checkQuota(pool.project_id, { member: Math.max(0, fresh.length - gone.length) });
    const lb = lbOf(pool);
    s.lock(lb, 'child');
    for (const m of fresh) s.members.set(m.id, m);
    for (const [m, b] of updates) {
      const w = int(b, 'weight', 0, 256);
      if (w !== undefined) m.weight = w;
      const n = str(b, 'name');
      if (n !== undefined) m.name = n;
      const up = bool(b, 'admin_state_up');
      if (up !== undefined) m.admin_state_up = up;
      const t = tags(b);
      if (t !== undefined) m.tags = t;
      m.provisioning_status = 'PENDING_UPDATE';
      s.touch(m);
    }
    for (const m of gone) m.provisioning_status = 'PENDING_DELETE';
    childDone(lb);
    return reply.code(202).send();
  });
  const findMember = (req: FastifyRequest<P<'pool_id' | 'id'>>) => {
    const caller = callerOf(req);
    const pool = find<Pool>(s, 'pool', req.params.pool_id, caller);
    const m = s.members.get(req.params.id);
    if (!m || m.pool_id !== pool.id) throw new SimError(404, `Member ${req.params.id} not found.`);
    return { pool, m };
  };
  scope.get<P<'pool_id' | 'id'>>(`${mPath}/:id`, async (req) => ({ member: rMember(findMember(req).m) }));
  scope.put<P<'pool_id' | 'id'>>(`${mPath}/:id`, async (req) => {
    const { pool, m } = findMember(req);
    const b = wrapped(req.body, 'member');
    const patch: Partial<Member> = {};
    const w = int(b, 'weight', 0, 256);
    if (w !== undefined) patch.weight = w;
    const n = str(b, 'name');
    if (n !== undefined) patch.name = n;
    const up = bool(b, 'admin_state_up');
    if (up !== undefined) patch.admin_state_up = up;
    const backup = bool(b, 'backup');
    if (backup !== undefined) patch.backup = backup;
    const t = tags(b);
    if (t !== undefined) patch.tags = t;
    const lb = lbOf(pool);
    s.lock(lb, 'child');
    Object.assign(m, patch, { provisioning_status: 'PENDING_UPDATE' });
    s.touch(m);
    childDone(lb);
    return { member: rMember(m) };
  });
  scope.delete<P<'pool_id' | 'id'>>(`${mPath}/:id`, async (req, reply) => {
    const { pool, m } = findMember(req);
    const lb = lbOf(pool);
    s.lock(lb, 'child');
    m.provisioning_status = 'PENDING_DELETE';
    childDone(lb);
    return reply.code(204).send();
  });

  // -- health monitors
  const hPath = `${root}/healthmonitors`;
  scope.get(hPath, async (req) => listOf(s, req, [...s.healthmonitors.values()], rHm, 'healthmonitors', hPath));
  scope.post(hPath, async (req, reply) => {
    const b = wrapped(req.body, 'healthmonitor');
    const pool = find<Pool>(s, 'pool', str(b, 'pool_id', true)!, callerOf(req));
    const hm = buildHm(s, pool, b);
    s.checkQuota(pool.project_id, { healthmonitor: 1 });
    const lb = lbOf(pool);
    // Octavia checks the pool inside the transaction that takes the load balancer's lock: a refusal leaves it ACTIVE.
    s.checkPool(pool);
    s.lock(lb, 'child');
    s.healthmonitors.set(hm.id, hm);
    pool.healthmonitor_id = hm.id;
    childDone(lb);
    return reply.code(201).send({ healthmonitor: rHm(hm) });
  });
  scope.get<P<'id'>>(`${hPath}/:id`, async (req) => ({ healthmonitor: rHm(find(s, 'healthmonitor', req.params.id, callerOf(req))) }));
  scope.put<P<'id'>>(`${hPath}/:id`, async (req) => {
    const hm = find<HealthMonitor>(s, 'healthmonitor', req.params.id, callerOf(req));
    const b = wrapped(req.body, 'healthmonitor');
    const patch: Partial<HealthMonitor> = {};
    for (const [f, min, max] of [['delay', 0, 2 ** 31 - 1], ['timeout', 0, 2 ** 31 - 1], ['max_retries', 1, 10], ['max_retries_down', 1, 10]] as const) {
      const v = int(b, f, min, max);
      if (v !== undefined) patch[f] = v;
    }
    for (const f of ['name', 'http_method', 'url_path', 'expected_codes', 'domain_name'] as const) {
      const v = str(b, f);
      if (v !== undefined) patch[f] = v;
    }
    const up = bool(b, 'admin_state_up');
    if (up !== undefined) patch.admin_state_up = up;
    const t = tags(b);
    if (t !== undefined) patch.tags = t;
    const lb = lbOf(hm);
    s.lock(lb, 'child');
    Object.assign(hm, patch, { provisioning_status: 'PENDING_UPDATE' });
    s.touch(hm);
    childDone(lb);
    return { healthmonitor: rHm(hm) };
  });
  scope.delete<P<'id'>>(`${hPath}/:id`, async (req, reply) => {
    const hm = find<HealthMonitor>(s, 'healthmonitor', req.params.id, callerOf(req));
    const lb = lbOf(hm);
    s.lock(lb, 'child');
    hm.provisioning_status = 'PENDING_DELETE';
    childDone(lb);
    return reply.code(204).send();
  });

  // -- quotas
  const qPath = `${root}/quotas`;
  const renderQuota = (q: Quota) => ({ ...q, l7policy: -1, l7rule: -1 });
  scope.get<P<'project_id'>>(`${qPath}/:project_id`, async (req) => {
    const caller = callerOf(req);
    if (!caller.isAdmin && req.params.project_id !== caller.projectId) throw new SimError(403, 'Policy does not allow this request to be performed.');
    return { quota: renderQuota(s.quotaOf(req.params.project_id)) };
  });
  scope.put<P<'project_id'>>(`${qPath}/:project_id`, async (req, reply) => {
    if (!callerOf(req).isAdmin) throw new SimError(403, 'Policy does not allow this request to be performed.');
    const b = wrapped(req.body, 'quota');
    const patch: Partial<Quota> = {};
    for (const k of QUOTA_KEYS) {
      const v = int(b, k, -1, 2 ** 31 - 1);
      if (v !== undefined) patch[k] = v;
    }
    s.setQuota(req.params.project_id, patch);
    return reply.code(202).send({ quota: renderQuota(s.quotaOf(req.params.project_id)) });
  });
  scope.delete<P<'project_id'>>(`${qPath}/:project_id`, async (req, reply) => {
    if (!callerOf(req).isAdmin) throw new SimError(403, 'Policy does not allow this request to be performed.');
    s.quotas.delete(req.params.project_id);
    return reply.code(202).send();
  });
}

export function registerOctaviaRoutes(scope: FastifyInstance, state: OctaviaState): void {
  register(scope, state, '/v2/lbaas');
  register(scope, state, '/v2.0/lbaas');
}

/** GET / (unauthenticated): v2.0 … v2.30, the last CURRENT (spec §7.6). */
export function registerOctaviaVersions(app: FastifyInstance): void {
  const versions = (base: string) =>
    Array.from({ length: 31 }, (_, i) => ({
      id: `v2.${i}`,
      status: i === 30 ? 'CURRENT' : 'SUPPORTED',
      updated: '2024-01-01T00:00:00Z',
      links: [{ href: `${base}/v2`, rel: 'self' }],
    }));
  app.get('/', async (request) => ({ versions: versions(hostUrl(request)) }));
  app.get('/v2', async (request) => ({ versions: versions(hostUrl(request)) }));
}
