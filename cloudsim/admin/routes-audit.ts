// GET /v1/audit[?project_id=]: every live resource by project. GET /v1/boots[?project_id=]: every
// server Nova booted and the names booted more than once. GET /v1/kube/agents[?project_id=]: each
// server's kubeadm (joined, failed and why). GET/DELETE /v1/calls: the call counters.
// POST /v1/state: save the state file now.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, type RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import type { AdminTarget } from './index.js';

/** Every admin route needs the admin role. */
export function requireAdmin(request: FastifyRequest): void {
  if (!callerOf(request).isAdmin) throw new SimError(403, 'You are not authorized to perform the requested action: the cloudsim admin API needs the admin role.');
}

export function registerAuditRoutes(scope: FastifyInstance, target: AdminTarget): void {
  scope.get('/v1/audit', async (request) => target.audit(one(request.query as RawQuery, 'project_id')));

  // Why a node did not join: each server's kubeadm as the simulated cluster sees it.
  scope.get('/v1/kube/agents', async (request) => ({ agents: target.kube?.agentsOf(one(request.query as RawQuery, 'project_id')) ?? [] }));

  scope.get('/v1/boots', async (request) => target.boots(one(request.query as RawQuery, 'project_id')));

  scope.get('/v1/calls', async () => ({ calls: target.calls() }));

  scope.delete('/v1/calls', async (_request, reply) => {
    target.resetCalls();
    return reply.code(204).send();
  });

  scope.post('/v1/state', async (_request, reply) => {
    if (!target.save()) throw new SimError(409, 'The cloud is not persisted: start it with CLOUDSIM_STATE_FILE.');
    return reply.code(204).send();
  });
}
