// Octavia's API shapes: the WSME error envelope and each object as the API shows it.
import type { RenderedError, SimError } from '../common/errors.js';
import type { HealthMonitor, Listener, LoadBalancer, Member, OctaviaState, Pool } from './state.js';

/** WSME: {"faultcode": "Client"|"Server", "faultstring", "debuginfo": null} (spec §4.4). */
export function renderOctaviaError(e: SimError): RenderedError {
  return {
    contentType: 'application/json',
    body: { faultcode: e.status < 500 ? 'Client' : 'Server', faultstring: e.message, debuginfo: null },
  };
}

const ids = (xs: { id: string }[]) => xs.map((x) => ({ id: x.id }));

function strip<T extends { _seq: number; project_id: string }>(o: T): Record<string, unknown> {
  const { _seq, ...rest } = o;
  void _seq;
  return { ...rest, tenant_id: o.project_id };
}

// The shapes are Zed's (the differential test compares them with the real octavia-api): no vip_vnic_type,
// vip_sg_ids, hsts_* or vnic_type (later releases'), no loadbalancer_id on listeners and pools (only the
// `loadbalancers` list), a pool's healthmonitor_id only when it has one.

export function renderLb(s: OctaviaState, lb: LoadBalancer): Record<string, unknown> {
  return {
    ...strip(lb),
    additional_vips: [],
    listeners: ids(s.listenersOf(lb.id)),
    pools: ids(s.poolsOf(lb.id)),
  };
}

export function renderListener(s: OctaviaState, l: Listener): Record<string, unknown> {
  return { ...listenerFields(l), loadbalancers: [{ id: l.loadbalancer_id }] };
}

function listenerFields(l: Listener): Record<string, unknown> {
  const { loadbalancer_id, ...rest } = strip(l);
  void loadbalancer_id;
  return {
    ...rest,
    l7policies: [],
    client_ca_tls_container_ref: null,
    client_authentication: 'NONE',
    client_crl_container_ref: null,
    tls_ciphers: null,
    tls_versions: null,
    alpn_protocols: null,
  };
}

export function renderPool(s: OctaviaState, p: Pool): Record<string, unknown> {
  return { ...poolFields(s, p), loadbalancers: [{ id: p.loadbalancer_id }], members: ids(s.membersOf(p.id)) };
}

function poolFields(s: OctaviaState, p: Pool): Record<string, unknown> {
  const { loadbalancer_id, healthmonitor_id, ...rest } = strip(p);
  void loadbalancer_id;
  return {
    ...rest,
    ...(healthmonitor_id ? { healthmonitor_id } : {}),
    listeners: ids(s.listenersOfPool(p.id)),
    tls_container_ref: null,
    ca_tls_container_ref: null,
    crl_container_ref: null,
    tls_ciphers: null,
    tls_versions: null,
    alpn_protocols: null,
  };
}

export function renderMember(s: OctaviaState, m: Member): Record<string, unknown> {
  void s;
  const { pool_id, loadbalancer_id, ...rest } = strip(m);
  void pool_id;
  void loadbalancer_id;
  return rest;
}

export function renderHm(s: OctaviaState, h: HealthMonitor): Record<string, unknown> {
  void s;
  const { pool_id, loadbalancer_id, ...rest } = strip(h);
  void loadbalancer_id;
  return { ...rest, pools: [{ id: pool_id }] };
}

/**
 * The answer to a fully populated create: the load balancer with its listeners and pools whole (without their
 * `loadbalancers`), each pool with its members whole and its `healthmonitor` (or null), as Zed's API shows it.
 */
export function renderLbTree(s: OctaviaState, lb: LoadBalancer): Record<string, unknown> {
  return {
    ...renderLb(s, lb),
    listeners: s.listenersOf(lb.id).map(listenerFields),
    pools: s.poolsOf(lb.id).map((p) => {
      const { healthmonitor_id, ...fields } = poolFields(s, p);
      const hm = typeof healthmonitor_id === 'string' ? s.healthmonitors.get(healthmonitor_id) : undefined;
      return { ...fields, members: s.membersOf(p.id).map((m) => renderMember(s, m)), healthmonitor: hm ? renderHm(s, hm) : null };
    }),
  };
}

/** GET /v2/lbaas/loadbalancers/{id}/status (spec §4.2): pools not under a listener are left out. */
export function renderStatusTree(s: OctaviaState, lb: LoadBalancer): Record<string, unknown> {
  const st = (o: { id: string; name: string; provisioning_status: string; operating_status: string }) => ({
    id: o.id,
    name: o.name,
    provisioning_status: o.provisioning_status,
    operating_status: o.operating_status,
  });
  return {
    statuses: {
      loadbalancer: {
        ...st(lb),
        listeners: s.listenersOf(lb.id).map((l) => {
          const pool = l.default_pool_id ? s.pools.get(l.default_pool_id) : undefined;
          return {
            ...st(l),
            pools: pool
              ? [
                  {
                    ...st(pool),
                    ...(pool.healthmonitor_id && s.healthmonitors.has(pool.healthmonitor_id)
                      ? (() => {
                          const hm = s.healthmonitors.get(pool.healthmonitor_id)!;
                          return { health_monitor: { ...st(hm), type: hm.type } };
                        })()
                      : {}),
                    members: s.membersOf(pool.id).map((m) => ({ ...st(m), address: m.address, protocol_port: m.protocol_port })),
                  },
                ]
              : [],
          };
        }),
      },
    },
  };
}
