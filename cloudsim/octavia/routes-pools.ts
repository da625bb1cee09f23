// /v2/lbaas/pools: create on a load balancer or as a listener's default pool (with its members
// and health monitor), show, list, update, delete with its members.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { callerOf } from '../common/service-app.js';
import { ALGORITHMS, buildPool, counts, insertPool, SP_TYPES } from './builders.js';
import { listOf } from './list.js';
import { find, lbOf, type P } from './lookup.js';
import { renderPool } from './render.js';
import type { Listener, LoadBalancer, OctaviaState, Pool } from './state.js';
import { bool, obj, oneOf, str, tags, wrapped } from './validate.js';

export function registerPoolRoutes(scope: FastifyInstance, s: OctaviaState, root: string): void {
  const pPath = `${root}/pools`;
  scope.get(pPath, async (req) => listOf(s, req, { collection: 'pools', path: pPath, table: s.pools, indexed: { loadbalancer_id: 'lb' }, render: (o) => renderPool(s, o as Pool) }));
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
    if (listener) {
      listener.default_pool_id = tree.pool.id;
      s.refile(listener);
    }
    s.childChanged(lb);
    return reply.code(201).send({ pool: renderPool(s, tree.pool) });
  });
  scope.get<P<'id'>>(`${pPath}/:id`, async (req) => ({ pool: renderPool(s, find(s, 'pool', req.params.id, callerOf(req))) }));
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
    const lb = lbOf(s, p);
    s.lock(lb, 'child');
    Object.assign(p, patch, { provisioning_status: 'PENDING_UPDATE' });
    s.touch(p);
    s.refile(p);
    s.childChanged(lb);
    return { pool: renderPool(s, p) };
  });
  scope.delete<P<'id'>>(`${pPath}/:id`, async (req, reply) => {
    const p = find<Pool>(s, 'pool', req.params.id, callerOf(req));
    const lb = lbOf(s, p);
    s.lock(lb, 'child');
    p.provisioning_status = 'PENDING_DELETE';
    for (const m of s.membersOf(p.id)) m.provisioning_status = 'PENDING_DELETE';
    s.childChanged(lb);
    return reply.code(204).send();
  });
}
