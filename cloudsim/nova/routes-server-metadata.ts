// /v2.1/servers/{id}/metadata: show, merge (POST), replace (PUT), and one item by key. Changes
// need vm_state active (or stopped) and no task (409 otherwise) and respect metadata_items (403).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { checkMetadataQuota } from './quota.js';
import { checkState, findServer } from './routes-servers.js';
import type { Server } from './servers.js';
import type { NovaState } from './state.js';
import { bodyObject, checkKeys, checkMetadata, invalidInput, pyRepr } from './validate.js';

type Params = { id: string; key: string };
const notFound = () => new SimError(404, 'Metadata item was not found');

export function registerServerMetadataRoutes(scope: FastifyInstance, state: NovaState): void {
  const writable = (request: FastifyRequest<{ Params: Params }>, action: string): Server => {
    const s = findServer(state, request, request.params.id);
    checkState(s, action, ['active', 'stopped']);
    return s;
  };
  const save = (s: Server, metadata: Record<string, string>) => {
    checkMetadataQuota(state.quotaOf(s.projectId), Object.keys(metadata).length);
    s.metadata = metadata;
    s.updatedAt = state.clock.now();
    return { metadata: { ...s.metadata } };
  };
  const metadataBody = (request: FastifyRequest) => {
    const body = bodyObject(request.body);
    checkKeys(undefined, body, ['metadata'], ['metadata']);
    return checkMetadata('metadata', body.metadata);
  };

  scope.get<{ Params: Params }>('/v2.1/servers/:id/metadata', async (request) => ({ metadata: { ...findServer(state, request, request.params.id).metadata } }));

  scope.post<{ Params: Params }>('/v2.1/servers/:id/metadata', async (request) => {
    const s = writable(request, 'update metadata');
    return save(s, { ...s.metadata, ...metadataBody(request) });
  });

  scope.put<{ Params: Params }>('/v2.1/servers/:id/metadata', async (request) => save(writable(request, 'update metadata'), metadataBody(request)));

  scope.get<{ Params: Params }>('/v2.1/servers/:id/metadata/:key', async (request) => {
    const s = findServer(state, request, request.params.id);
    const value = s.metadata[request.params.key];
    if (value === undefined) throw notFound();
    return { meta: { [request.params.key]: value } };
  });

  scope.put<{ Params: Params }>('/v2.1/servers/:id/metadata/:key', async (request) => {
    const s = writable(request, 'update metadata');
    const body = bodyObject(request.body);
    checkKeys(undefined, body, ['meta'], ['meta']);
    const meta = checkMetadata('meta', body.meta);
    const keys = Object.keys(meta);
    if (keys.length !== 1) throw invalidInput('meta', body.meta, `${pyRepr(body.meta)} ${keys.length === 0 ? 'does not have enough properties' : 'has too many properties'}`);
    if (keys[0] !== request.params.key) throw new SimError(400, 'Request body and URI mismatch');
    save(s, { ...s.metadata, ...meta });
    return { meta };
  });

  scope.delete<{ Params: Params }>('/v2.1/servers/:id/metadata/:key', async (request, reply) => {
    const s = writable(request, 'delete metadata');
    if (s.metadata[request.params.key] === undefined) throw notFound();
    const { [request.params.key]: _gone, ...rest } = s.metadata;
    s.metadata = rest;
    s.updatedAt = state.clock.now();
    return reply.code(204).send();
  });
}
