// /v2/zones/{zone_id}/recordsets (create 202, list, show, update 202, delete 202) and
// /v2/recordsets (every visible zone's). One recordset per name and type (409
// duplicate_recordset); CNAMEs neither at the apex nor beside other records; SOA and the apex NS
// are Designate's own; per-zone and per-recordset quotas answer 413.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { one, type RawQuery } from '../common/query.js';
import { hostUrl } from '../common/service-app.js';
import { checkUuid, contextOf, listBody, wildcard } from './context.js';
import { dnsErrors } from './errors.js';
import { renderRecordSet } from './render.js';
import { findZone } from './routes-zones.js';
import type { DesignateState, RecordSet, Zone } from './state.js';
import * as v from './validate.js';

type Req = FastifyRequest<{ Params: { zone_id: string; recordset_id: string } }>;
type Body = Record<string, unknown>;

function bodyOf(request: FastifyRequest): Body {
  const b = request.body;
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw dnsErrors.badRequest('Request body must be a JSON object');
  return b as Body;
}

function checkQuotas(s: DesignateState, zone: Zone, records: string[], replacing?: RecordSet): void {
  const q = s.quotaOf(zone.projectId);
  const inZone = s.recordsetsOf(zone.id);
  if (!replacing && q.zone_recordsets >= 0 && inZone.length + 1 > q.zone_recordsets) throw dnsErrors.overQuota('zone_recordsets');
  if (q.recordset_records >= 0 && records.length > q.recordset_records) throw dnsErrors.overQuota('recordset_records');
  const others = inZone.filter((r) => !r.managed && r !== replacing).reduce((n, r) => n + r.records.length, 0);
  if (q.zone_records >= 0 && others + records.length > q.zone_records) throw dnsErrors.overQuota('zone_records');
}

function create(s: DesignateState, zone: Zone, b: Body): RecordSet {
  if (zone.action === 'DELETE') throw dnsErrors.badRequest('Can not update a deleting zone');
  const name = v.recordsetName(b, zone.name);
  const type = v.recordType(b);
  const records = v.records(b, type);
  const ttl = v.ttl(b, true);
  const description = v.description(b);
  const sameName = s.recordsetsOf(zone.id).filter((r) => r.name === name && r.action !== 'DELETE');
  if (sameName.some((r) => r.type === type)) throw dnsErrors.duplicateRecordSet();
  if (type === 'CNAME' && name === zone.name) throw dnsErrors.invalidLocation('CNAME recordsets may not be created at the zone apex');
  if ((type === 'CNAME' && sameName.length > 0) || sameName.some((r) => r.type === 'CNAME')) {
    throw dnsErrors.invalidLocation('CNAME recordsets may not share a name with any other records');
  }
  checkQuotas(s, zone, records);
  return s.addRecordSet(zone, { name, type, records, ...(ttl !== undefined ? { ttl } : {}), ...(description !== undefined ? { description } : {}) });
}

export function registerRecordSetRoutes(scope: FastifyInstance, s: DesignateState): void {
  const find = (request: Req): { zone: Zone; rs: RecordSet } => {
    const zone = findZone(s, contextOf(request), request.params.zone_id);
    const rs = s.recordsets.get(checkUuid('recordset_id', request.params.recordset_id));
    if (!rs || rs.zoneId !== zone.id) throw dnsErrors.recordSetNotFound();
    return { zone, rs };
  };
  const list = (request: FastifyRequest, items: RecordSet[], path: string) =>
    listBody<RecordSet>(request, {
      items,
      key: 'recordsets',
      path,
      filters: {
        name: (r) => r.name,
        type: (r) => r.type,
        ttl: (r) => r.ttl,
        status: (r) => r.status,
        description: (r) => r.description,
        zone_id: (r) => r.zoneId,
      },
      sortKeys: {
        created_at: (r) => r.seq,
        id: (r) => r.id,
        updated_at: (r) => r.updatedAt,
        zone_id: (r) => r.zoneId,
        tenant_id: (r) => r.projectId,
        name: (r) => r.name,
        type: (r) => r.type,
        ttl: (r) => r.ttl,
      },
      idOf: (r) => r.id,
      seqOf: (r) => r.seq,
      render: (r) => renderRecordSet(request, r, s.zones.get(r.zoneId)!),
      limits: s.limits,
    });
  /** `data=` matches recordsets holding a matching record. */
  const byData = (request: FastifyRequest, items: RecordSet[]) => {
    const data = one(request.query as RawQuery, 'data');
    if (data === undefined) return items;
    const match = wildcard(data);
    return items.filter((r) => r.records.some((x) => match(x)));
  };

  scope.post('/v2/zones/:zone_id/recordsets', async (request: Req, reply) => {
    const zone = findZone(s, contextOf(request), request.params.zone_id);
    const rs = create(s, zone, bodyOf(request));
    reply.header('location', `${hostUrl(request)}/v2/zones/${zone.id}/recordsets/${rs.id}`);
    return reply.code(202).send(renderRecordSet(request, rs, zone));
  });

  scope.get('/v2/zones/:zone_id/recordsets', async (request: Req) => {
    const zone = findZone(s, contextOf(request), request.params.zone_id);
    return list(request, byData(request, s.recordsetsOf(zone.id)), `/v2/zones/${zone.id}/recordsets`);
  });

  scope.get('/v2/recordsets', async (request) => {
    const ctx = contextOf(request);
    const items = ctx.allProjects ? [...s.recordsets.values()] : s.recordsets.by('project', ctx.projectId);
    return list(request, byData(request, items), '/v2/recordsets');
  });

  scope.get('/v2/zones/:zone_id/recordsets/:recordset_id', async (request: Req) => {
    const { zone, rs } = find(request);
    return renderRecordSet(request, rs, zone);
  });

  scope.put('/v2/zones/:zone_id/recordsets/:recordset_id', async (request: Req, reply) => {
    const { zone, rs } = find(request);
    const b = bodyOf(request);
    if (zone.action === 'DELETE') throw dnsErrors.badRequest('Can not update a deleting zone');
    if (rs.managed) throw dnsErrors.badRequest('Managed records may not be updated');
    for (const key of Object.keys(b)) {
      if (key === 'name' || key === 'type') {
        if (String(b[key]).toLowerCase() !== (key === 'name' ? rs.name : rs.type.toLowerCase())) throw dnsErrors.invalidObject(key, `${key} is read-only`, 'readOnly');
      } else if (!['records', 'ttl', 'description'].includes(key)) {
        throw dnsErrors.invalidObject(key, `Additional properties are not allowed ('${key}' was unexpected)`, 'additionalProperties');
      }
    }
    const records = b.records === undefined ? undefined : v.records(b, rs.type);
    if (records) checkQuotas(s, zone, records, rs);
    const ttl = v.ttl(b, true);
    const description = v.description(b);
    s.updateRecordSet(zone, rs, {
      ...(records ? { records } : {}),
      ...(ttl !== undefined ? { ttl } : {}),
      ...(description !== undefined ? { description } : {}),
    });
    return reply.code(202).send(renderRecordSet(request, rs, zone));
  });

  scope.delete('/v2/zones/:zone_id/recordsets/:recordset_id', async (request: Req, reply) => {
    const { zone, rs } = find(request);
    if (zone.action === 'DELETE') throw dnsErrors.badRequest('Can not update a deleting zone');
    if (rs.managed) throw dnsErrors.badRequest('Managed records may not be deleted');
    if (rs.action !== 'DELETE') s.deleteRecordSet(zone, rs);
    return reply.code(202).send(renderRecordSet(request, rs, zone));
  });
}
