// /v2.1/servers (spec openstack-apis §2.2-§2.5): create (202 + Location, minimal body), list,
// detail, show and delete (204, task_state deleting, then 404). Other projects' servers are 404;
// admins see every project's.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { parseCreateBody } from './create-body.js';
import { startDelete } from './lifecycle.js';
import { versionOf } from './microversion.js';
import { renderServer, serverLinks } from './render-server.js';
import { createServers } from './server-create.js';
import { listServers } from './server-list.js';
import type { Server } from './servers.js';
import type { NovaState } from './state.js';
import { bodyObject } from './validate.js';

export const instanceNotFound = (id: string) => new SimError(404, `Instance ${id} could not be found.`);

/** A live server the caller may see, or 404. */
export function findServer(state: NovaState, request: FastifyRequest, id: string): Server {
  const caller = callerOf(request);
  const s = state.servers.get(id);
  if (!s || s.vmState === 'deleted' || !(caller.isAdmin || s.projectId === caller.projectId)) throw instanceNotFound(id);
  return s;
}

/** 409 unless the server is in one of `states` with no task running (Nova's check_instance_state). */
export function checkState(s: Server, action: string, states: Server['vmState'][]): void {
  if (!states.includes(s.vmState)) throw new SimError(409, `Cannot '${action}' instance ${s.id} while it is in vm_state ${s.vmState}`);
  if (s.taskState !== null) throw new SimError(409, `Cannot '${action}' instance ${s.id} while it is in task_state ${s.taskState}`);
}

export function registerServerRoutes(scope: FastifyInstance, state: NovaState): void {
  scope.post('/v2.1/servers', async (request, reply) => {
    const caller = callerOf(request);
    const body = parseCreateBody(bodyObject(request.body), versionOf(request));
    const created = createServers(state, body, caller);
    const base = hostUrl(request);
    if (body.returnReservationId) return reply.code(202).send({ reservation_id: created.reservationId });
    const first = created.servers[0]!;
    reply.header('location', `${base}/v2.1/servers/${first.id}`);
    return reply.code(202).send({
      server: {
        id: first.id,
        links: serverLinks(base, first.id),
        'OS-DCF:diskConfig': first.diskConfig,
        security_groups: first.securityGroups.map((g) => ({ name: g.name })),
        adminPass: created.adminPass,
      },
    });
  });

  scope.get('/v2.1/servers', async (request) => listServers(state, request, false));
  scope.get('/v2.1/servers/detail', async (request) => listServers(state, request, true));

  scope.get<{ Params: { id: string } }>('/v2.1/servers/:id', async (request) => {
    const s = findServer(state, request, request.params.id);
    return { server: renderServer(state, s, versionOf(request), callerOf(request), hostUrl(request)) };
  });

  scope.delete<{ Params: { id: string } }>('/v2.1/servers/:id', async (request, reply) => {
    const s = findServer(state, request, request.params.id);
    if (s.locked && !callerOf(request).isAdmin) throw new SimError(409, `Instance ${s.id} is locked`);
    startDelete(state, s);
    return reply.code(204).send();
  });
}
