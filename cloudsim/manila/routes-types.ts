// Manila's share types (GET /types, /types/default, /types/{id}) under /v2 and /v2/{project_id}, read-only:
// what `openstack share type list` shows and what a share create without a type falls back to. Manila
// answers each type under `share_type(s)` and again under the old `volume_type(s)` key.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, parseBool, type RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { minorOf, projectOf, type Params } from './routes.js';
import type { ManilaState, ShareType } from './state.js';

type Req = FastifyRequest<{ Params: Params }>;

/** The extra specs every share type must have (Manila's required_extra_specs). */
const REQUIRED = ['driver_handles_share_servers'];

function render(st: ManilaState, request: Req, t: ShareType): Record<string, unknown> {
  const minor = minorOf(request);
  return {
    id: t.id,
    name: t.name,
    extra_specs: { ...t.extraSpecs },
    required_extra_specs: Object.fromEntries(Object.entries(t.extraSpecs).filter(([k]) => REQUIRED.includes(k))),
    'share_type_access:is_public': t.isPublic,
    ...(minor >= 41 ? { description: t.description } : {}),
    ...(minor >= 46 ? { is_default: t.name === st.defaultTypeName } : {}),
  };
}

const both = (st: ManilaState, request: Req, t: ShareType) => {
  const body = render(st, request, t);
  return { share_type: body, volume_type: body };
};

export function registerShareTypeRoutes(scope: FastifyInstance, st: ManilaState): void {
  for (const prefix of ['/v2', '/v2/:project_id']) {
    scope.get(`${prefix}/types`, async (request: Req) => {
      projectOf(request);
      const raw = one(request.query as RawQuery, 'is_public');
      // Admins choose (is_public=all: every type); everybody else sees the public types.
      const wanted = callerOf(request).isAdmin && raw !== undefined ? (raw.toLowerCase() === 'all' ? null : parseBool(raw) ?? true) : true;
      const types = [...st.types.values()].filter((t) => wanted === null || t.isPublic === wanted).map((t) => render(st, request, t));
      return { share_types: types, volume_types: types };
    });
    scope.get(`${prefix}/types/default`, async (request: Req) => {
      projectOf(request);
      const t = st.types.first('name', st.defaultTypeName);
      if (!t) throw new SimError(404, 'Share type not found.');
      return both(st, request, t);
    });
    scope.get(`${prefix}/types/:id`, async (request: Req) => {
      projectOf(request);
      const t = st.types.get(request.params.id ?? '');
      if (!t || (!t.isPublic && !callerOf(request).isAdmin)) throw new SimError(404, `Share type ${request.params.id} could not be found.`);
      return both(st, request, t);
    });
  }
}
