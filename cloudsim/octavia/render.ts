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

export function renderLb(s: OctaviaState, lb: LoadBalancer): Record<string, unknown> {
  return {
    ...strip(lb),
    vip_vnic_type: 'normal',
    vip_sg_ids: null,
    additional_vips: [],
    listeners: ids(s.listenersOf(lb.id)),
    pools: ids(s.poolsOf(lb.id)),
  };
}

export function renderListener(s: OctaviaState, l: Listener): Record<string, unknown> {
  void s;
  return {
    ...strip(l),
    loadbalancers: [{ id: l.loadbalancer_id }],
    l7policies: [],
    client_ca_tls_container_ref: null,
    client_authentication: 'NONE',
    client_crl_container_ref: null,
    tls_ciphers: null,
    tls_versions: null,
    alpn_protocols: null,
    hsts_max_age: null,
    hsts_include_subdomains: false,
    hsts_preload: false,
  };
}

export function renderPool(s: OctaviaState, p: Pool): Record<string, unknown> {
  return {
    ...strip(p),
    loadbalancers: [{ id: p.loadbalancer_id }],
    listeners: ids(s.listenersOfPool(p.id)),
    members: ids(s.membersOf(p.id)),
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
  return { ...rest, vnic_type: 'normal' };
}

export function renderHm(s: OctaviaState, h: HealthMonitor): Record<string, unknown> {
  void s;
  const { pool_id, loadbalancer_id, ...rest } = strip(h);
  void loadbalancer_id;
  return { ...rest, pools: [{ id: pool_id }] };
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
