// GET|POST /v2.1/flavors/{id}/os-extra_specs and GET|PUT|DELETE …/os-extra_specs/{key}: reading a
// flavor's extra specs is for anyone who may see the flavor (the CLI reads them for every flavor it
// lists); writing them is for admins (os_compute_api:os-flavor-extra-specs:create|update|delete).
// Nova answers the create and the update with the request body, and the delete with 200 and no body.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { callerOf } from '../common/service-app.js';
import type { Flavor, NovaState } from './state.js';
import { invalidInput, pyRepr } from './validate.js';

type Req = FastifyRequest<{ Params: { id: string; key?: string } }>;

const KEY = /^[a-zA-Z0-9-_:. ]{1,255}$/;

/** The flavor of the path, as the flavor routes show it: 404 when the caller may not see it. */
function flavorOf(state: NovaState, request: Req): Flavor {
  const caller = callerOf(request);
  const f = state.flavors.get(request.params.id);
  if (!f || !(caller.isAdmin || f.isPublic || f.projects.includes(caller.projectId))) throw new SimError(404, `Flavor ${request.params.id} could not be found.`);
  return f;
}

function mayWrite(request: Req, action: 'create' | 'update' | 'delete'): void {
  if (!callerOf(request).isAdmin) throw new SimError(403, `Policy doesn't allow os_compute_api:os-flavor-extra-specs:${action} to be performed.`);
}

/** Keys and values as Nova's schema takes them (values: strings or numbers, stored as strings). */
function specsOf(field: string, body: unknown, exactlyOne: boolean): Record<string, string> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidInput(field || undefined, body, `${pyRepr(body)} is not of type 'object'`);
  const entries = Object.entries(body as Record<string, unknown>);
  if (exactlyOne && entries.length !== 1) throw invalidInput(undefined, body, `${pyRepr(body)} ${entries.length === 0 ? 'does not have enough properties' : 'has too many properties'}`);
  const out: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (!KEY.test(k)) throw invalidInput(field || undefined, body, `Additional properties are not allowed ('${k}' was unexpected)`);
    if (typeof v !== 'string' && typeof v !== 'number') throw invalidInput(k, v, `${pyRepr(v)} is not of type 'string', 'number'`);
    if (String(v).length > 255) throw new SimError(400, 'Invalid input received: extra_specs value has a maximum length of 255.');
    out[k] = String(v);
  }
  return out;
}

export function registerFlavorExtraSpecRoutes(scope: FastifyInstance, state: NovaState): void {
  const base = '/v2.1/flavors/:id/os-extra_specs';
  scope.get(base, async (request: Req) => ({ extra_specs: { ...flavorOf(state, request).extraSpecs } }));
  scope.get(`${base}/:key`, async (request: Req) => {
    const f = flavorOf(state, request);
    const key = request.params.key!;
    if (!(key in f.extraSpecs)) throw new SimError(404, `Flavor ${f.id} has no extra specs with key ${key}.`);
    return { [key]: f.extraSpecs[key] };
  });
  scope.post(base, async (request: Req) => {
    mayWrite(request, 'create');
    const body = request.body as { extra_specs?: unknown } | undefined;
    if (!body || typeof body !== 'object' || !('extra_specs' in body)) throw invalidInput(undefined, body, "'extra_specs' is a required property");
    const specs = specsOf('extra_specs', body.extra_specs, false);
    const f = flavorOf(state, request);
    f.extraSpecs = { ...f.extraSpecs, ...specs };
    return body;
  });
  scope.put(`${base}/:key`, async (request: Req) => {
    mayWrite(request, 'update');
    const specs = specsOf('', request.body, true);
    if (!(request.params.key! in specs)) throw new SimError(400, 'Request body and URI mismatch');
    const f = flavorOf(state, request);
    f.extraSpecs = { ...f.extraSpecs, ...specs };
    return request.body;
  });
  scope.delete(`${base}/:key`, async (request: Req, reply) => {
    mayWrite(request, 'delete');
    const f = flavorOf(state, request);
    const key = request.params.key!;
    if (!(key in f.extraSpecs)) throw new SimError(404, `Flavor ${f.id} has no extra specs with key ${key}.`);
    const { [key]: _gone, ...rest } = f.extraSpecs;
    void _gone;
    f.extraSpecs = rest;
    return reply.code(200).send();
  });
}
