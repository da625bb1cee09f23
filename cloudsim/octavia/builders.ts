// The objects a create asks for, validated as Octavia does (protocols, ports taken, one health
// monitor a pool, a listener's pool protocol) and built, not yet inserted: a graph create checks
// its whole tree and the quota before anything is added.
import { SimError } from '../common/errors.js';
import type { HealthMonitor, Listener, LoadBalancer, Member, OctaviaState, Pool } from './state.js';
import { bool, int, list, obj, oneOf, str, tags, type Body } from './validate.js';

const LISTENER_PROTOCOLS = ['HTTP', 'HTTPS', 'TCP', 'TERMINATED_HTTPS', 'UDP', 'SCTP', 'PROMETHEUS'] as const;
const POOL_PROTOCOLS = ['HTTP', 'HTTPS', 'PROXY', 'PROXYV2', 'TCP', 'UDP', 'SCTP'] as const;
export const ALGORITHMS = ['ROUND_ROBIN', 'LEAST_CONNECTIONS', 'SOURCE_IP', 'SOURCE_IP_PORT'] as const;
const HM_TYPES = ['HTTP', 'HTTPS', 'PING', 'TCP', 'TLS-HELLO', 'UDP-CONNECT', 'SCTP'] as const;
export const SP_TYPES = ['SOURCE_IP', 'HTTP_COOKIE', 'APP_COOKIE'] as const;
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

export function buildListener(s: OctaviaState, lb: LoadBalancer, b: Body, siblings: Listener[]): Listener {
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

export function buildMember(s: OctaviaState, pool: Pool, b: Body, siblings: Member[]): Member {
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

export function buildHm(s: OctaviaState, pool: Pool, b: Body): HealthMonitor {
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

export interface PoolTree {
  pool: Pool;
  members: Member[];
  hm: HealthMonitor | undefined;
}

export function buildPool(s: OctaviaState, lb: LoadBalancer, b: Body, listener: Listener | undefined): PoolTree {
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

export function insertPool(s: OctaviaState, t: PoolTree): void {
  s.pools.set(t.pool.id, t.pool);
  for (const m of t.members) s.members.set(m.id, m);
  if (t.hm) s.healthmonitors.set(t.hm.id, t.hm);
}

export const counts = (trees: PoolTree[]) => ({
  pool: trees.length,
  member: trees.reduce((n, t) => n + t.members.length, 0),
  healthmonitor: trees.filter((t) => t.hm).length,
});
