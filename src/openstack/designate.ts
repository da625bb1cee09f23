// Designate v2 (catalog type `dns`): find a zone by name, then create, list and delete the
// recordsets of a cluster's names in it; the project's quotas (the pre-flight's recordsets per zone). Objects come unwrapped, lists page through links.next,
// writes answer 202 with the object PENDING until the DNS servers have it.
import type { components } from '../../openapi/openstack/designate.js';
import { deleted, versionPrefix } from './collection.js';
import { requestJson, toSearchParams, type Session } from './http.js';
import { collectPages } from './paging.js';

type S = components['schemas'];

export type Zone = S['Zone'];
export type Recordset = S['Recordset'];
export type RecordsetCreate = S['RecordsetCreate'];

/** GET /v2/quotas/{project}: the project's limits (-1 = unlimited); per zone for zone_recordsets and zone_records. */
export interface DnsQuotas {
  zones: number;
  zone_recordsets: number;
  zone_records: number;
  recordset_records: number;
  api_export_size?: number;
}

export interface RecordsetFilters {
  /** Fully qualified, with the trailing dot. */
  name?: string;
  type?: string;
  limit?: number;
}

/** `name` with its trailing dot, as Designate stores zone and record names. */
export const fqdn = (name: string): string => (name.endsWith('.') ? name : `${name}.`);

export class DesignateClient {
  private readonly v2: string;

  constructor(private readonly session: Session) {
    this.v2 = versionPrefix(session.baseUrl, 'v2');
  }

  /** GET /v2/zones?name=: the zones visible to the project, all or the one named `name`. */
  async listZones(filters: { name?: string; limit?: number } = {}): Promise<Zone[]> {
    const first = toSearchParams({ name: filters.name === undefined ? undefined : fqdn(filters.name), limit: filters.limit });
    return collectPages(this.session.service, first, async (query) => {
      const { body } = await requestJson<{ zones: Zone[]; links?: S['ListLinks'] }>(this.session, { path: `${this.v2}/zones`, query, operation: 'zones.list' });
      return { items: body.zones, next: body.links?.next };
    });
  }

  /** POST → 202, PENDING. Not repeated after an ambiguous failure: list by name and type first. */
  async createRecordset(zoneId: string, recordset: RecordsetCreate): Promise<Recordset> {
    const body: RecordsetCreate = { ...recordset, name: fqdn(recordset.name) };
    const res = await requestJson<Recordset>(this.session, { method: 'POST', path: this.recordsetsPath(zoneId), body, operation: 'recordsets.create' });
    return res.body;
  }

  async listRecordsets(zoneId: string, filters: RecordsetFilters = {}): Promise<Recordset[]> {
    const first = toSearchParams({ name: filters.name === undefined ? undefined : fqdn(filters.name), type: filters.type, limit: filters.limit });
    return collectPages(this.session.service, first, async (query) => {
      const { body } = await requestJson<{ recordsets: Recordset[]; links?: S['ListLinks'] }>(this.session, {
        path: this.recordsetsPath(zoneId),
        query,
        operation: 'recordsets.list',
      });
      return { items: body.recordsets, next: body.links?.next };
    });
  }

  /** DELETE → 202 (action DELETE, PENDING); false when already gone. */
  deleteRecordset(zoneId: string, id: string): Promise<boolean> {
    return deleted(() =>
      requestJson(this.session, { method: 'DELETE', path: `${this.recordsetsPath(zoneId)}/${encodeURIComponent(id)}`, operation: 'recordsets.delete' }),
    );
  }

  async quotas(projectId: string): Promise<DnsQuotas> {
    const res = await requestJson<DnsQuotas>(this.session, { path: `${this.v2}/quotas/${encodeURIComponent(projectId)}`, operation: 'quotas.get' });
    return res.body;
  }

  private recordsetsPath(zoneId: string): string {
    return `${this.v2}/zones/${encodeURIComponent(zoneId)}/recordsets`;
  }
}
