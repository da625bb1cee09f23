// Cinder v3 (spec openstack-apis §6): volumes (create 202 → creating → available; delete 202 →
// deleting → 404), the project's absolute limits and quota usage. The catalog URL already holds
// /v3/{project_id}. A 413 here is the quota, not a rate limit: never retried.
import type { components, operations } from '../../openapi/openstack/cinder.js';
import { deleted } from './collection.js';
import { requestJson, toSearchParams, type Session } from './http.js';
import { collectPages } from './paging.js';

type S = components['schemas'];

export type Volume = S['Volume'];
export type VolumeCreate = S['VolumeCreate'];
export type VolumeLimits = S['AbsoluteLimits'];
export type VolumeQuotaUsage = S['QuotaSetUsage'];

export interface VolumeFilters {
  name?: string;
  status?: string;
  /** Volumes having all of these metadata items. */
  metadata?: Record<string, string>;
  limit?: number;
}

export class CinderClient {
  private readonly session: Session;

  /** `microversion`: sent as `OpenStack-API-Version: volume <v>` when given (Cinder's default is 3.0). */
  constructor(session: Session, microversion?: string) {
    this.session = microversion ? { ...session, headers: { ...session.headers, 'openstack-api-version': `volume ${microversion}` } } : session;
  }

  /** POST /volumes → 202, status creating. Tag it with metadata to find it again (spec §7.5). */
  async createVolume(volume: VolumeCreate): Promise<Volume> {
    const res = await requestJson<{ volume: Volume }>(this.session, { method: 'POST', path: '/volumes', body: { volume }, operation: 'volumes.create' });
    return res.body.volume;
  }

  async getVolume(id: string): Promise<Volume> {
    const res = await requestJson<{ volume: Volume }>(this.session, { path: `/volumes/${encodeURIComponent(id)}`, operation: 'volumes.get' });
    return res.body.volume;
  }

  /** GET /volumes/detail with filters, following `volumes_links` next through every page. */
  async listVolumes(filters: VolumeFilters = {}): Promise<Volume[]> {
    type Query = NonNullable<operations['listVolumesDetail']['parameters']['query']>;
    const query: Query = {
      ...(filters.name !== undefined ? { name: filters.name } : {}),
      ...(filters.status !== undefined ? { status: filters.status } : {}),
      ...(filters.metadata ? { metadata: JSON.stringify(filters.metadata) } : {}),
      ...(filters.limit !== undefined ? { limit: filters.limit } : {}),
    };
    return collectPages(this.session.service, toSearchParams(query), async (q) => {
      const { body } = await requestJson<{ volumes: Volume[]; volumes_links?: { rel: string; href: string }[] }>(this.session, {
        path: '/volumes/detail',
        query: q,
        operation: 'volumes.list',
      });
      return { items: body.volumes, next: body.volumes_links?.find((l) => l.rel === 'next')?.href };
    });
  }

  /** DELETE /volumes/{id} (400 while attached or not in a final state); false when already gone. */
  deleteVolume(id: string, opts: { cascade?: boolean } = {}): Promise<boolean> {
    return deleted(() =>
      requestJson(this.session, {
        method: 'DELETE',
        path: `/volumes/${encodeURIComponent(id)}`,
        ...(opts.cascade ? { query: { cascade: true } } : {}),
        operation: 'volumes.delete',
      }),
    );
  }

  /** GET /os-availability-zone: the storage zones a volume may ask for, and whether each is available. */
  async listAvailabilityZones(): Promise<{ zoneName: string; zoneState: { available: boolean } }[]> {
    const res = await requestJson<{ availabilityZoneInfo: { zoneName: string; zoneState: { available: boolean } }[] }>(this.session, {
      path: '/os-availability-zone',
      operation: 'availability_zones.list',
    });
    return res.body.availabilityZoneInfo;
  }

  /** GET /limits: maxTotal* and total*Used of the caller's project (-1 = unlimited). */
  async limits(): Promise<VolumeLimits> {
    const res = await requestJson<{ limits: { absolute: VolumeLimits } }>(this.session, { path: '/limits', operation: 'limits.get' });
    return res.body.limits.absolute;
  }

  /** GET /os-quota-sets/{project}?usage=true: limit, in_use and reserved per resource. */
  async quotaUsage(projectId: string): Promise<VolumeQuotaUsage> {
    const res = await requestJson<{ quota_set: VolumeQuotaUsage }>(this.session, {
      path: `/os-quota-sets/${encodeURIComponent(projectId)}`,
      query: { usage: true },
      operation: 'quota_sets.get',
    });
    return res.body.quota_set;
  }
}
