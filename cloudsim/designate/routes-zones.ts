// /v2/zones: create (202, PENDING CREATE), list with filters, show, update (PATCH, 202) and
// delete (202, PENDING DELETE, then gone). Zone names are unique across projects (409
// duplicate_zone); a project may not create a subzone of another project's zone (403).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hostUrl } from '../common/service-app.js';
import { checkUuid, contextOf, listBody, visible, type DnsContext } from './context.js';
import { dnsErrors } from './errors.js';
import { renderZone } from './render.js';
import type { DesignateState, Zone } from './state.js';
import * as v from './validate.js';

type Req = FastifyRequest<{ Params: { zone_id: string } }>;
type Body = Record<string, unknown>;

/** The zone a path names, if the caller may see it (404 zone_not_found otherwise). */
export function findZone(s: DesignateState, ctx: DnsContext, id: string): Zone {
  const z = s.zones.get(checkUuid('zone_id', id));
  if (!z || !visible(ctx, z.projectId)) throw dnsErrors.zoneNotFound();
  return z;
}

function bodyOf(request: FastifyRequest): Body {
  const b = request.body;
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw dnsErrors.badRequest('Request body must be a JSON object');
  return b as Body;
}

function create(s: DesignateState, ctx: DnsContext, b: Body): Zone {
  const type = b.type ?? 'PRIMARY';
  if (type !== 'PRIMARY' && type !== 'SECONDARY') throw dnsErrors.invalidObject('type', `'${String(type)}' is not one of ['PRIMARY', 'SECONDARY']`, 'enum');
  const name = v.zoneName(b);
  const masters = Array.isArray(b.masters) ? b.masters.filter((m): m is string => typeof m === 'string') : [];
  if (type === 'SECONDARY' && masters.length === 0) throw dnsErrors.invalidObject('masters', 'masters are required for a SECONDARY zone', 'required');
  const email = v.email(b, type === 'PRIMARY') ?? `hostmaster@${name.slice(0, -1)}`;
  const ttl = v.ttl(b, false) ?? undefined;
  const description = v.description(b);
  const attributes = b.attributes && typeof b.attributes === 'object' ? (b.attributes as Record<string, string>) : {};
  if (s.zoneByName(name)) throw dnsErrors.duplicateZone();
  // Its parent domains (each a suffix after a dot), by name: one of another project's refuses it.
  for (let at = name.indexOf('.'); at >= 0 && at < name.length - 1; at = name.indexOf('.', at + 1)) {
    if (s.zones.by('name', name.slice(at + 1)).some((other) => other.projectId !== ctx.projectId)) throw dnsErrors.illegalChild();
  }
  const quota = s.quotaOf(ctx.projectId).zones;
  const owned = s.zones.count('project', ctx.projectId);
  if (quota >= 0 && owned + 1 > quota) throw dnsErrors.overQuota('zones');
  return s.createZone({
    projectId: ctx.projectId,
    name,
    email,
    type,
    masters,
    attributes,
    ...(ttl !== undefined ? { ttl } : {}),
    ...(description !== undefined ? { description } : {}),
  });
}

export function registerZoneRoutes(scope: FastifyInstance, s: DesignateState): void {
  scope.post('/v2/zones', async (request, reply) => {
    const zone = create(s, contextOf(request), bodyOf(request));
    reply.header('location', `${hostUrl(request)}/v2/zones/${zone.id}`);
    return reply.code(202).send(renderZone(request, zone));
  });

  scope.get('/v2/zones', async (request) => {
    const ctx = contextOf(request);
    return listBody<Zone>(request, {
      items: ctx.allProjects ? [...s.zones.values()] : s.zones.by('project', ctx.projectId),
      key: 'zones',
      path: '/v2/zones',
      filters: { name: (z) => z.name, email: (z) => z.email, status: (z) => z.status, type: (z) => z.type, description: (z) => z.description, ttl: (z) => z.ttl },
      sortKeys: {
        created_at: (z) => z.seq,
        id: (z) => z.id,
        updated_at: (z) => z.updatedAt,
        name: (z) => z.name,
        tenant_id: (z) => z.projectId,
        serial: (z) => z.serial,
        ttl: (z) => z.ttl,
        status: (z) => z.status,
      },
      idOf: (z) => z.id,
      seqOf: (z) => z.seq,
      render: (z) => renderZone(request, z),
      limits: s.limits,
    });
  });

  scope.get('/v2/zones/:zone_id', async (request: Req) => renderZone(request, findZone(s, contextOf(request), request.params.zone_id)));

  scope.patch('/v2/zones/:zone_id', async (request: Req, reply) => {
    const zone = findZone(s, contextOf(request), request.params.zone_id);
    const b = bodyOf(request);
    if (zone.action === 'DELETE') throw dnsErrors.badRequest('Can not update a deleting zone');
    for (const key of Object.keys(b)) {
      if (!['email', 'ttl', 'description'].includes(key)) throw dnsErrors.invalidObject(key, `Additional properties are not allowed ('${key}' was unexpected)`, 'additionalProperties');
    }
    const email = v.email(b, false);
    const ttl = v.ttl(b, false);
    const description = v.description(b);
    if (email !== undefined) zone.email = email;
    if (typeof ttl === 'number') zone.ttl = ttl;
    if (description !== undefined) zone.description = description;
    s.touchZone(zone);
    return reply.code(202).send(renderZone(request, zone));
  });

  scope.delete('/v2/zones/:zone_id', async (request: Req, reply) => {
    const zone = findZone(s, contextOf(request), request.params.zone_id);
    if (zone.action !== 'DELETE') s.deleteZone(zone);
    return reply.code(202).send(renderZone(request, zone));
  });
}
