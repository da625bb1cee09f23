// POST /v2.1/servers/{id}/action: the actions the simulator knows. os-getConsoleOutput answers the
// last `length` lines of the server's console log (null or -1: all); 409 before the guest runs.
// shelve and unshelve: see shelve-action.ts.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { callerOf } from '../common/service-app.js';
import { versionOf } from './microversion.js';
import { findServer } from './routes-servers.js';
import { shelveAction, unshelveAction } from './shelve-action.js';
import type { NovaState } from './state.js';
import { bodyObject } from './validate.js';

function consoleLength(raw: unknown): number | null {
  if (raw === undefined || raw === null) return null;
  const n = typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < -1) {
    throw new SimError(400, `Invalid input for field/attribute length. Value: ${JSON.stringify(raw)}. ${JSON.stringify(raw)} is not valid under any of the given schemas`);
  }
  return n;
}

export function registerServerActionRoutes(scope: FastifyInstance, state: NovaState): void {
  scope.post<{ Params: { id: string } }>('/v2.1/servers/:id/action', async (request, reply) => {
    const s = findServer(state, request, request.params.id);
    const body = bodyObject(request.body);
    const [action, ...more] = Object.keys(body);
    if (action === undefined || more.length > 0) throw new SimError(400, 'Malformed request body');
    if (action === 'shelve' || action === 'unshelve') {
      if (action === 'shelve') shelveAction(state, s, callerOf(request));
      else unshelveAction(state, s, callerOf(request), body, versionOf(request));
      return reply.code(202).send();
    }
    if (action !== 'os-getConsoleOutput') throw new SimError(400, `There is no such action: ${action}`);
    const args = body[action];
    if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new SimError(400, "Invalid input for field/attribute os-getConsoleOutput. Value: None. None is not of type 'object'");
    const length = consoleLength((args as Record<string, unknown>).length);
    if (s.vmState === 'building') throw new SimError(409, `Instance ${s.id} is not ready`);
    return { output: state.consoles.tail(s.id, length) };
  });
}
