// Zones and recordsets in their API shape, with absolute `links.self`.
import type { FastifyRequest } from 'fastify';
import { hostUrl } from '../common/service-app.js';
import type { RecordSet, Zone } from './state.js';

/** The simulator's one pool (every zone lives in it). */
export const POOL_ID = '794ccc2c-d751-44fe-b57f-8894c9f5c842';

export function renderZone(request: FastifyRequest, z: Zone): Record<string, unknown> {
  return {
    id: z.id,
    pool_id: POOL_ID,
    project_id: z.projectId,
    name: z.name,
    email: z.email,
    description: z.description,
    ttl: z.ttl,
    serial: z.serial,
    status: z.status,
    action: z.action,
    version: z.version,
    attributes: z.attributes,
    type: z.type,
    masters: z.masters,
    created_at: z.createdAt,
    updated_at: z.updatedAt,
    transferred_at: null,
    shared: false,
    links: { self: `${hostUrl(request)}/v2/zones/${z.id}` },
  };
}

export function renderRecordSet(request: FastifyRequest, r: RecordSet, zone: Zone): Record<string, unknown> {
  return {
    id: r.id,
    zone_id: r.zoneId,
    project_id: r.projectId,
    name: r.name,
    zone_name: zone.name,
    type: r.type,
    records: r.records,
    ttl: r.ttl,
    description: r.description,
    status: r.status,
    action: r.action,
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    links: { self: `${hostUrl(request)}/v2/zones/${r.zoneId}/recordsets/${r.id}` },
  };
}
