// /v2/lbaas/quotas/{project_id}: a project's quota (its own, or any for admins), set and reset by admins.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { callerOf } from '../common/service-app.js';
import type { P } from './lookup.js';
import { QUOTA_KEYS, type OctaviaState, type Quota } from './state.js';
import { int, wrapped } from './validate.js';

export function registerQuotaRoutes(scope: FastifyInstance, s: OctaviaState, root: string): void {
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
