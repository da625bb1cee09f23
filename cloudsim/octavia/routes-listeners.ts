// /v2/lbaas/listeners: create on a load balancer (one protocol_port each), show, list, update
// (its default pool among them), delete.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { callerOf } from '../common/service-app.js';
import { buildListener } from './builders.js';
import { listOf } from './list.js';
import { find, lbOf, type P } from './lookup.js';
import { renderListener } from './render.js';
import type { Listener, LoadBalancer, OctaviaState, Pool } from './state.js';
import { bool, int, str, tags, wrapped } from './validate.js';

export function registerListenerRoutes(scope: FastifyInstance, s: OctaviaState, root: string): void {
  const lPath = `${root}/listeners`;
  scope.get(lPath, async (req) => listOf(s, req, { collection: 'listeners', path: lPath, table: s.listeners, indexed: { loadbalancer_id: 'lb', default_pool_id: 'pool' }, render: (o) => renderListener(s, o as Listener) }));
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
    s.childChanged(lb);
    return reply.code(201).send({ listener: renderListener(s, l) });
  });
  scope.get<P<'id'>>(`${lPath}/:id`, async (req) => ({ listener: renderListener(s, find(s, 'listener', req.params.id, callerOf(req))) }));
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
    const lb = lbOf(s, l);
    s.lock(lb, 'child');
    Object.assign(l, patch, { provisioning_status: 'PENDING_UPDATE' });
    s.touch(l);
    s.refile(l);
    s.childChanged(lb);
    return { listener: renderListener(s, l) };
  });
  scope.delete<P<'id'>>(`${lPath}/:id`, async (req, reply) => {
    const l = find<Listener>(s, 'listener', req.params.id, callerOf(req));
    const lb = lbOf(s, l);
    s.lock(lb, 'child');
    l.provisioning_status = 'PENDING_DELETE';
    s.childChanged(lb);
    return reply.code(204).send();
  });
}
