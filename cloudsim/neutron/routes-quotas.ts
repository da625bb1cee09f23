// /v2.0/quotas/{project_id}: show (own project, or any for admins), update and reset (admins).
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../common/service-app.js';
import { QUOTA_RESOURCES, type NeutronState, type QuotaResource } from './state.js';
import { badRequest, int, policy } from './writes.js';

/**
 * Quotas Zed's Neutron shows that the simulator has no resources for (RBAC policies, subnet pools): their
 * defaults, never used.
 */
const UNMODELLED: Record<string, number> = { rbac_policy: 10, subnetpool: -1 };

export function registerQuotaRoutes(scope: FastifyInstance, state: NeutronState): void {
  const show = (projectId: string) => ({ ...Object.fromEntries(QUOTA_RESOURCES.map((r) => [r, state.quota(projectId, r)])), ...UNMODELLED });
  type P = { Params: { project: string } };

  scope.get<P>('/v2.0/quotas/:project', async (request) => {
    const caller = callerOf(request);
    if (!caller.isAdmin && request.params.project !== caller.projectId) throw policy('get_quota');
    return { quota: show(request.params.project) };
  });

  scope.get<P>('/v2.0/quotas/:project/details', async (request) => {
    const caller = callerOf(request);
    if (!caller.isAdmin && request.params.project !== caller.projectId) throw policy('get_quota');
    const p = request.params.project;
    const unmodelled = Object.entries(UNMODELLED).map(([r, limit]) => [r, { limit, used: 0, reserved: 0 }]);
    return { quota: Object.fromEntries([...QUOTA_RESOURCES.map((r) => [r, { limit: state.quota(p, r), used: state.usage(p, r), reserved: 0 }]), ...unmodelled]) };
  });

  scope.put<P>('/v2.0/quotas/:project', async (request) => {
    if (!callerOf(request).isAdmin) throw policy('update_quota');
    const body = (request.body as { quota?: Record<string, unknown> } | undefined)?.quota;
    if (!body || typeof body !== 'object') throw badRequest("Unable to find 'quota' in request body");
    const next = { ...state.quotas.get(request.params.project) };
    for (const key of Object.keys(body)) {
      if (!(QUOTA_RESOURCES as readonly string[]).includes(key)) throw badRequest(`Unrecognized attribute(s) '${key}'`);
      next[key as QuotaResource] = int(body, key, -1, 2 ** 31 - 1) ?? undefined;
    }
    state.quotas.set(request.params.project, next);
    return { quota: show(request.params.project) };
  });

  scope.delete<P>('/v2.0/quotas/:project', async (request, reply) => {
    if (!callerOf(request).isAdmin) throw policy('delete_quota');
    state.quotas.delete(request.params.project);
    return reply.code(204).send();
  });
}
