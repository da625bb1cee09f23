// /v2/quotas/{project_id} (show): the project's limits as Designate's quota API answers them, readable
// by the project's own members and by admins (another project's: 403 forbidden, as Designate's policy).
// Setting quotas is an admin's job done through the state (tests, the seed file), not routed here.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf } from '../common/service-app.js';
import { dnsErrors } from './errors.js';
import type { DesignateState } from './state.js';

/** Designate's api_export_size default: a quota it shows beside the others (zone exports are not simulated). */
const API_EXPORT_SIZE = 1000;

export function registerQuotaRoutes(scope: FastifyInstance, s: DesignateState): void {
  scope.get('/v2/quotas/:project_id', async (request: FastifyRequest<{ Params: { project_id: string } }>) => {
    const caller = callerOf(request);
    const target = request.params.project_id;
    if (target !== caller.projectId && !caller.isAdmin) throw dnsErrors.forbidden();
    return { ...s.quotaOf(target), api_export_size: API_EXPORT_SIZE };
  });
}
