// /v2/lbaas/healthmonitors: one a pool; create, show, list, update, delete.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../common/service-app.js';
import { buildHm } from './builders.js';
import { listOf } from './list.js';
import { find, lbOf, type P } from './lookup.js';
import { renderHm } from './render.js';
import type { HealthMonitor, OctaviaState, Pool } from './state.js';
import { bool, int, str, tags, wrapped } from './validate.js';

export function registerHealthMonitorRoutes(scope: FastifyInstance, s: OctaviaState, root: string): void {
  const hPath = `${root}/healthmonitors`;
  scope.get(hPath, async (req) => listOf(s, req, { collection: 'healthmonitors', path: hPath, table: s.healthmonitors, render: (o) => renderHm(s, o as HealthMonitor) }));
  scope.post(hPath, async (req, reply) => {
    const b = wrapped(req.body, 'healthmonitor');
    const pool = find<Pool>(s, 'pool', str(b, 'pool_id', true)!, callerOf(req));
    const hm = buildHm(s, pool, b);
    s.checkQuota(pool.project_id, { healthmonitor: 1 });
    const lb = lbOf(s, pool);
    s.lockPool(lb, pool);
    s.healthmonitors.set(hm.id, hm);
    pool.healthmonitor_id = hm.id;
    s.childChanged(lb);
    return reply.code(201).send({ healthmonitor: renderHm(s, hm) });
  });
  scope.get<P<'id'>>(`${hPath}/:id`, async (req) => ({ healthmonitor: renderHm(s, find(s, 'healthmonitor', req.params.id, callerOf(req))) }));
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
    const lb = lbOf(s, hm);
    s.lockPool(lb, s.pools.get(hm.pool_id)!);
    Object.assign(hm, patch, { provisioning_status: 'PENDING_UPDATE' });
    s.touch(hm);
    s.refile(hm);
    s.childChanged(lb);
    return { healthmonitor: renderHm(s, hm) };
  });
  scope.delete<P<'id'>>(`${hPath}/:id`, async (req, reply) => {
    const hm = find<HealthMonitor>(s, 'healthmonitor', req.params.id, callerOf(req));
    const lb = lbOf(s, hm);
    s.lockPool(lb, s.pools.get(hm.pool_id)!);
    hm.provisioning_status = 'PENDING_DELETE';
    s.childChanged(lb);
    return reply.code(204).send();
  });
}
