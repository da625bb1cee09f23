// Fault rules at run time, per service: GET /v1/faults (all), GET/POST/DELETE
// /v1/faults/{service}, DELETE /v1/faults/{service}/{id}. A rule is the JSON form of FaultRule
// (pathPattern for a regular expression), e.g. {"operation": "POST /servers", "rate": 0.2, "status": 503}.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { faultRuleFrom } from '../common/fault-config.js';
import { SimError } from '../common/errors.js';
import type { Faults } from '../common/faults.js';
import type { AdminTarget } from './index.js';

type Req = FastifyRequest<{ Params: { service: string; id?: string } }>;

export function registerFaultRoutes(scope: FastifyInstance, target: AdminTarget): void {
  const faultsOf = (request: Req): Faults => {
    const f = target.faults[request.params.service];
    if (!f) throw new SimError(404, `No service named ${request.params.service} (one of ${Object.keys(target.faults).join(', ')}).`);
    return f;
  };

  scope.get('/v1/faults', async () => ({
    faults: Object.fromEntries(Object.entries(target.faults).map(([service, f]) => [service, f.list()])),
  }));

  scope.get('/v1/faults/:service', async (request: Req) => ({ faults: faultsOf(request).list() }));

  scope.post('/v1/faults/:service', async (request: Req, reply) => {
    const faults = faultsOf(request);
    const body = request.body as { fault?: unknown } | undefined;
    let rule;
    try {
      rule = faultRuleFrom(body?.fault, 'fault');
    } catch (e) {
      throw new SimError(400, (e as Error).message);
    }
    const id = faults.add(rule);
    return reply.code(201).send({ fault: faults.list().find((f) => f.id === id) });
  });

  scope.delete('/v1/faults', async (_request, reply) => {
    for (const f of Object.values(target.faults)) f.clear();
    return reply.code(204).send();
  });

  scope.delete('/v1/faults/:service', async (request: Req, reply) => {
    faultsOf(request).clear();
    return reply.code(204).send();
  });

  scope.delete('/v1/faults/:service/:id', async (request: Req, reply) => {
    if (!faultsOf(request).remove(request.params.id!)) throw new SimError(404, `No fault rule ${request.params.id}.`);
    return reply.code(204).send();
  });
}
