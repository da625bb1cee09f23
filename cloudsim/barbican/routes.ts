// Barbican v1 secrets (store with a payload, list by name, show, payload, delete) in Barbican's error envelope
// ({code, title, description}). Secrets are the project's: another project's are 404, as Barbican's default
// policy has it for non-admins.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import type { BarbicanState, Secret } from './state.js';

type Req = FastifyRequest<{ Params: { id?: string } }>;
const TYPES = ['symmetric', 'public', 'private', 'passphrase', 'certificate', 'opaque'];
const CONTENT_TYPES = ['application/octet-stream', 'text/plain'];

function render(s: Secret, base: string): Record<string, unknown> {
  return {
    secret_ref: `${base}/v1/secrets/${s.id}`,
    name: s.name,
    status: 'ACTIVE',
    secret_type: s.secretType,
    algorithm: s.algorithm,
    bit_length: s.bitLength,
    mode: s.mode,
    creator_id: s.creatorId,
    content_types: { default: s.contentType },
    created: s.created,
    updated: s.created,
    expiration: null,
  };
}

function find(st: BarbicanState, request: Req): Secret {
  const s = st.secrets.get(request.params.id ?? '');
  if (!s || s.projectId !== callerOf(request).projectId) throw new SimError(404, 'Secret not found.');
  return s;
}

function storeBody(request: Req): Omit<Secret, 'id' | 'created' | 'seq'> {
  const b = request.body as Record<string, unknown> | undefined;
  if (!b || typeof b !== 'object') throw new SimError(400, 'Provided object does not match schema \'Secret\': request body is required.');
  const caller = callerOf(request);
  const type = (b.secret_type as string | undefined) ?? 'opaque';
  if (!TYPES.includes(type)) throw new SimError(400, `Provided object does not match schema 'Secret': '${type}' is not one of ${JSON.stringify(TYPES)}`);
  if (typeof b.payload !== 'string' || b.payload === '') throw new SimError(400, "Provided object does not match schema 'Secret': If 'payload' is supplied, 'payload_content_type' must also be supplied.");
  const contentType = b.payload_content_type as string | undefined;
  if (!contentType || !CONTENT_TYPES.includes(contentType)) throw new SimError(400, `Provided object does not match schema 'Secret': payload_content_type ${String(contentType)} is not supported.`);
  let payload: string;
  if (contentType === 'application/octet-stream') {
    if (b.payload_content_encoding !== 'base64') throw new SimError(400, "Provided object does not match schema 'Secret': payload_content_encoding must be 'base64' for application/octet-stream.");
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b.payload)) throw new SimError(400, 'Problem decoding payload');
    payload = b.payload;
  } else payload = Buffer.from(b.payload, 'utf8').toString('base64');
  const bitLength = b.bit_length === undefined ? null : Number(b.bit_length);
  if (bitLength !== null && (!Number.isInteger(bitLength) || bitLength <= 0)) throw new SimError(400, "Provided object does not match schema 'Secret': bit_length must be a positive integer.");
  return {
    name: typeof b.name === 'string' ? b.name : null,
    projectId: caller.projectId,
    creatorId: caller.userId,
    secretType: type,
    algorithm: typeof b.algorithm === 'string' ? b.algorithm : null,
    bitLength,
    mode: typeof b.mode === 'string' ? b.mode : null,
    contentType,
    payload,
  };
}

export function registerBarbicanRoutes(scope: FastifyInstance, st: BarbicanState): void {
  scope.get('/v1/secrets', async (request: Req) => {
    const projectId = callerOf(request).projectId;
    const q = request.query as RawQuery;
    const name = one(q, 'name');
    const all = (name === undefined ? st.secrets.by('project', projectId) : st.secrets.by('projectName', `${projectId}|${name}`)).sort((a, b) => a.seq - b.seq);
    const offset = Number(one(q, 'offset') ?? 0);
    const limit = Number(one(q, 'limit') ?? 10);
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 0) throw new SimError(400, 'limit and offset must be non-negative integers');
    const base = hostUrl(request);
    const page = all.slice(offset, offset + Math.min(limit, 100));
    const next = offset + page.length < all.length ? { next: `${base}/v1/secrets?limit=${limit}&offset=${offset + page.length}${name !== undefined ? `&name=${encodeURIComponent(name)}` : ''}` } : {};
    return { secrets: page.map((s) => render(s, base)), total: all.length, ...next };
  });
  scope.post('/v1/secrets', async (request: Req, reply: FastifyReply) => {
    const s = st.add(storeBody(request));
    reply.code(201);
    return { secret_ref: `${hostUrl(request)}/v1/secrets/${s.id}` };
  });
  scope.get('/v1/secrets/:id', async (request: Req) => render(find(st, request), hostUrl(request)));
  scope.get('/v1/secrets/:id/payload', async (request: Req, reply: FastifyReply) => {
    const s = find(st, request);
    reply.header('content-type', s.contentType);
    return Buffer.from(s.payload, 'base64');
  });
  scope.delete('/v1/secrets/:id', async (request: Req, reply: FastifyReply) => {
    st.secrets.delete(find(st, request).id);
    reply.code(204);
    return '';
  });
}

/** GET /: Barbican's version document (300, no token needed). */
export function registerBarbicanVersions(scope: FastifyInstance): void {
  scope.get('/', async (request, reply) => {
    reply.code(300);
    return { versions: { values: [{ id: 'v1', status: 'stable', links: [{ rel: 'self', href: `${hostUrl(request)}/v1/` }], 'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.key-manager-v1+json' }] }] } };
  });
}
