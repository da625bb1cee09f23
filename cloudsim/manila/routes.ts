// Manila v2 API, the part a cluster's CSI plugin and the service use: shares (list, detail, show, create, delete),
// their export locations and metadata filters (share types: routes-types.ts), with Manila's microversion header (X-OpenStack-Manila-API-Version,
// 2.0 to 2.84, echoed) and 404/403/413 in Nova's envelope. Served under /v2 (the catalog URL) and /v2/{project_id}.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { metadataFilter, one, type RawQuery } from '../common/query.js';
import { callerOf, hostUrl } from '../common/service-app.js';
import { PROTOCOLS, type ManilaState, type Share } from './state.js';

export const MAX_MINOR = 84;
const HEADER = 'x-openstack-manila-api-version';
const minors = new WeakMap<FastifyRequest, number>();
/** The request's microversion 2.N (2.0 without the header). */
export const minorOf = (request: FastifyRequest): number => minors.get(request) ?? 0;

export type Params = { project_id?: string; id?: string };
type Req = FastifyRequest<{ Params: Params }>;

export function projectOf(request: Req): string {
  const caller = callerOf(request);
  if (request.params.project_id !== undefined && request.params.project_id !== caller.projectId) throw new SimError(400, 'Malformed request url');
  return caller.projectId;
}

function render(st: ManilaState, s: Share, detail: boolean, base: string): Record<string, unknown> {
  const links = [{ href: `${base}/shares/${s.id}`, rel: 'self' }];
  if (!detail) return { id: s.id, name: s.name, links };
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    status: s.status,
    size: s.size,
    share_proto: s.shareProto,
    share_type: st.types.first('name', s.shareType)?.id ?? null,
    share_type_name: s.shareType,
    share_network_id: s.shareNetworkId,
    availability_zone: s.availabilityZone,
    metadata: s.metadata,
    project_id: s.projectId,
    user_id: s.userId,
    is_public: false,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    links,
  };
}

function find(st: ManilaState, request: Req): Share {
  const projectId = projectOf(request);
  const s = st.shares.get(request.params.id ?? '');
  if (!s || s.projectId !== projectId) throw new SimError(404, `Share ${request.params.id} could not be found.`);
  return s;
}

function createBody(request: Req): { share: Record<string, unknown> } {
  const b = request.body as { share?: Record<string, unknown> } | undefined;
  if (!b || typeof b !== 'object' || !b.share || typeof b.share !== 'object') throw new SimError(400, "Missing required element 'share' in request body.");
  return b as { share: Record<string, unknown> };
}

export function registerManilaRoutes(scope: FastifyInstance, st: ManilaState): void {
  scope.addHook('onRequest', async (request, reply) => {
    const raw = request.headers[HEADER];
    let minor = 0;
    if (typeof raw === 'string') {
      const m = /^2\.(0|[1-9]\d*)$/.exec(raw.trim());
      if (raw.trim().toLowerCase() === 'latest') minor = MAX_MINOR;
      else if (!m) throw new SimError(400, `Invalid API version request string ${raw}.`);
      else if (Number(m[1]) > MAX_MINOR) throw new SimError(406, `Version ${raw} is not supported by the API. Minimum is 2.0 and maximum is 2.${MAX_MINOR}.`);
      else minor = Number(m[1]);
    }
    reply.header(HEADER, `2.${minor}`);
    reply.header('vary', 'X-OpenStack-Manila-API-Version');
    minors.set(request, minor);
  });

  const list = (detail: boolean) => async (request: Req) => {
    const projectId = projectOf(request);
    const q = request.query as RawQuery;
    let shares = st.shares.by('project', projectId).sort((a, b) => b.seq - a.seq);
    const name = one(q, 'name');
    if (name !== undefined) shares = shares.filter((s) => s.name === name);
    const status = one(q, 'status');
    if (status !== undefined) shares = shares.filter((s) => s.status === status);
    // Nothing is ever in the recycle bin (soft delete, 2.69): asking for what is there finds nothing.
    if (minorOf(request) >= 69 && /^(1|t|true|on|y|yes)$/i.test(one(q, 'is_soft_deleted') ?? '')) shares = [];
    const md = one(q, 'metadata');
    if (md !== undefined) {
      const want = metadataFilter(md);
      if (!want) throw new SimError(400, `Invalid metadata filter: ${md}`);
      shares = shares.filter((s) => Object.entries(want).every(([k, v]) => s.metadata[k] === v));
    }
    const offset = Number(one(q, 'offset') ?? 0);
    const limit = one(q, 'limit');
    if (!Number.isInteger(offset) || offset < 0 || (limit !== undefined && !/^\d+$/.test(limit))) throw new SimError(400, 'limit and offset must be non-negative integers');
    const page = shares.slice(offset, limit === undefined ? undefined : offset + Number(limit));
    const base = `${hostUrl(request)}/v2`;
    return { shares: page.map((s) => render(st, s, detail, base)) };
  };

  for (const prefix of ['/v2', '/v2/:project_id']) {
    scope.get(`${prefix}/shares`, list(false));
    scope.get(`${prefix}/shares/detail`, list(true));
    scope.get(`${prefix}/shares/:id`, async (request: Req) => ({ share: render(st, find(st, request), true, `${hostUrl(request)}/v2`) }));
    scope.get(`${prefix}/shares/:id/export_locations`, async (request: Req) => {
      const s = find(st, request);
      return { export_locations: s.exportLocations.map((path, i) => ({ id: `${s.id.slice(0, 8)}-el-${i}`, path, preferred: i === 0, is_admin_only: false })) };
    });
    scope.post(`${prefix}/shares`, async (request: Req) => {
      const caller = callerOf(request);
      const projectId = projectOf(request);
      const b = createBody(request).share;
      const proto = typeof b.share_proto === 'string' ? b.share_proto.toUpperCase() : undefined;
      if (!proto || !PROTOCOLS.includes(proto)) throw new SimError(400, `Invalid share protocol provided: ${String(b.share_proto)}`);
      const size = Number(b.size);
      if (!Number.isInteger(size) || size <= 0) throw new SimError(400, `Share size '${String(b.size)}' must be an integer and greater than 0`);
      const metadata = b.metadata ?? {};
      if (typeof metadata !== 'object' || Array.isArray(metadata) || Object.values(metadata).some((v) => typeof v !== 'string')) throw new SimError(400, 'Malformed metadata: values must be strings');
      const share = st.create({
        projectId,
        userId: caller.userId,
        size,
        shareProto: proto,
        ...(typeof b.name === 'string' ? { name: b.name } : {}),
        ...(typeof b.description === 'string' ? { description: b.description } : {}),
        ...(typeof b.share_type === 'string' ? { shareType: b.share_type } : {}),
        ...(typeof b.share_network_id === 'string' ? { shareNetworkId: b.share_network_id } : {}),
        ...(typeof b.availability_zone === 'string' ? { availabilityZone: b.availability_zone } : {}),
        metadata: metadata as Record<string, string>,
      });
      return { share: render(st, share, true, `${hostUrl(request)}/v2`) };
    });
    scope.delete(`${prefix}/shares/:id`, async (request: Req, reply) => {
      st.delete(find(st, request));
      reply.code(202);
      return '';
    });
  }
}

/** GET / and /v2/: the version documents (no token needed). */
export function registerManilaVersions(scope: FastifyInstance): void {
  const v2 = (request: FastifyRequest) => ({ id: 'v2.0', status: 'CURRENT', version: `2.${MAX_MINOR}`, min_version: '2.0', links: [{ href: `${hostUrl(request)}/v2/`, rel: 'self' }] });
  scope.get('/', async (request) => ({ versions: [v2(request)] }));
  scope.get('/v2/', async (request) => ({ versions: [v2(request)] }));
}
