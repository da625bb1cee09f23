// Cinder's volume types (GET /types, /types/{id}, /types/default) and storage availability zones
// (GET /os-availability-zone), read-only, under /v3/{project_id} and (3.67+) /v3. As Cinder shows them:
// extra specs to project readers but only the user-visible keys unless admin, qos_specs_id to admins,
// os-volume-type-access:is_public to the project; non-admins list public types only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimError } from '../common/errors.js';
import { one, parseBool, type RawQuery } from '../common/query.js';
import { callerOf } from '../common/service-app.js';
import { projectOf, type Params } from './routes.js';
import type { CinderState, VolumeType } from './state.js';

/** The extra specs Cinder shows to users who are not admins (cinder/policies/type_extra_specs.py). */
const USER_VISIBLE_EXTRA_SPECS = ['RESKEY:availability_zones', 'multiattach', 'replication_enabled'];

type R = FastifyRequest<{ Params: Params }>;

function render(request: R, t: VolumeType): Record<string, unknown> {
  const admin = callerOf(request).isAdmin;
  return {
    id: t.id,
    name: t.name,
    is_public: t.isPublic,
    description: t.description,
    extra_specs: admin ? { ...t.extraSpecs } : Object.fromEntries(Object.entries(t.extraSpecs).filter(([k]) => USER_VISIBLE_EXTRA_SPECS.includes(k))),
    ...(admin ? { qos_specs_id: null } : {}),
    'os-volume-type-access:is_public': t.isPublic,
  };
}

export function registerVolumeTypeRoutes(scope: FastifyInstance, s: CinderState): void {
  for (const root of ['/v3/:project_id', '/v3']) {
    scope.get(`${root}/types`, async (request: R) => {
      projectOf(request);
      const raw = one(request.query as RawQuery, 'is_public');
      // Admins choose (is_public=None: all); everybody else sees the public types.
      const wanted = callerOf(request).isAdmin && raw !== undefined ? (raw.toLowerCase() === 'none' ? null : parseBool(raw) ?? true) : true;
      const types = [...s.types.values()].filter((t) => wanted === null || t.isPublic === wanted).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { volume_types: types.map((t) => render(request, t)) };
    });
    scope.get(`${root}/types/:id`, async (request: R) => {
      projectOf(request);
      const id = request.params.id!;
      if (id === 'default') {
        const t = s.types.first('name', s.defaultTypeName);
        if (!t) throw new SimError(404, 'Default volume type can not be found.');
        return { volume_type: render(request, t) };
      }
      const t = s.types.get(id);
      if (!t || (!t.isPublic && !callerOf(request).isAdmin)) throw new SimError(404, `Volume type ${id} could not be found.`);
      return { volume_type: render(request, t) };
    });
    scope.get(`${root}/os-availability-zone`, async (request: R) => {
      projectOf(request);
      return { availabilityZoneInfo: s.zones.map((zoneName) => ({ zoneName, zoneState: { available: true } })) };
    });
  }
}
