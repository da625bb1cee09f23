// /v2.1/servers/{id}/tags (≥2.26, spec openstack-apis §2.6): list, replace, clear, check, add
// (201 + Location, or 204 when present) and remove. Changes need vm_state active (or stopped):
// a server that is building or in ERROR answers 409.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { hostUrl } from '../common/service-app.js';
import { atLeast, versionOf } from './microversion.js';
import { findServer } from './routes-servers.js';
import { MUTABLE_STATES, type Server } from './servers.js';
import type { NovaState } from './state.js';
import { bodyObject, checkKeys, checkTag, checkType } from './validate.js';

const MAX_TAGS = 50;
type Params = { id: string; tag: string };

function serverFor(state: NovaState, request: FastifyRequest<{ Params: Partial<Params> }>, action?: string): Server {
  if (!atLeast(versionOf(request), 26)) throw new SimError(404, 'The resource could not be found.');
  const s = findServer(state, request, request.params.id!);
  if (action !== undefined && !MUTABLE_STATES.includes(s.vmState)) {
    throw new SimError(409, `Cannot '${action}' instance ${s.id} while it is in vm_state ${s.vmState}`);
  }
  return s;
}

function validTag(tag: string): string {
  try {
    return checkTag('tag', tag);
  } catch {
    const reason = tag.length === 0 ? `'' is too short` : tag.length > 60 ? `'${tag}' is too long` : `'${tag}' does not match '^[^,/]*$'`;
    throw new SimError(400, `Tag '${tag}' is invalid. It must be a non empty string without characters '/' and ','. Validation error message: ${reason}`);
  }
}

/** A change of the server's tags: it is filed under them again. */
const touch = (state: NovaState, s: Server) => {
  s.updatedAt = state.clock.now();
  state.servers.refile(s.id);
};

export function registerServerTagRoutes(scope: FastifyInstance, state: NovaState): void {
  scope.get<{ Params: Params }>('/v2.1/servers/:id/tags', async (request) => ({ tags: [...serverFor(state, request).tags] }));

  scope.put<{ Params: Params }>('/v2.1/servers/:id/tags', async (request) => {
    const s = serverFor(state, request, 'update tags');
    const body = bodyObject(request.body);
    checkKeys(undefined, body, ['tags'], ['tags']);
    checkType('tags', body.tags, 'array');
    const tags = [...new Set((body.tags as unknown[]).map((t) => checkTag('tags', t)))];
    if (tags.length > MAX_TAGS) throw new SimError(400, `The number of tags exceeded the per-server limit ${MAX_TAGS}`);
    s.tags = tags;
    touch(state, s);
    return { tags: [...s.tags] };
  });

  scope.delete<{ Params: Params }>('/v2.1/servers/:id/tags', async (request, reply) => {
    const s = serverFor(state, request, 'delete tags');
    s.tags = [];
    touch(state, s);
    return reply.code(204).send();
  });

  scope.get<{ Params: Params }>('/v2.1/servers/:id/tags/:tag', async (request, reply) => {
    const s = serverFor(state, request);
    if (!s.tags.includes(request.params.tag)) throw new SimError(404, `Tag ${request.params.tag} could not be found.`);
    return reply.code(204).send();
  });

  scope.put<{ Params: Params }>('/v2.1/servers/:id/tags/:tag', async (request, reply: FastifyReply) => {
    const s = serverFor(state, request, 'update tag');
    const tag = validTag(request.params.tag);
    if (s.tags.includes(tag)) return reply.code(204).send();
    if (s.tags.length >= MAX_TAGS) throw new SimError(400, `The number of tags exceeded the per-server limit ${MAX_TAGS}`);
    s.tags.push(tag);
    touch(state, s);
    reply.header('location', `${hostUrl(request)}/v2.1/servers/${s.id}/tags/${encodeURIComponent(tag)}`);
    return reply.code(201).send();
  });

  scope.delete<{ Params: Params }>('/v2.1/servers/:id/tags/:tag', async (request, reply) => {
    const s = serverFor(state, request, 'delete tag');
    if (!s.tags.includes(request.params.tag)) throw new SimError(404, `Tag ${request.params.tag} could not be found.`);
    s.tags = s.tags.filter((t) => t !== request.params.tag);
    touch(state, s);
    return reply.code(204).send();
  });
}
