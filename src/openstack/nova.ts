// Nova v2.1, flavors (spec openstack-apis §2.7): show one, list them in detail. Pinned to
// microversion 2.1 unless asked otherwise; the catalog URL is used as-is (it ends in /v2.1).
// Servers, keypairs, server groups and limits live in nova-*.ts, pinned to NOVA_MICROVERSION.
import { requestJson, toSearchParams, type Session } from './http.js';
import { collectPages } from './paging.js';

export interface Link {
  rel: string;
  href: string;
}

export interface NovaFlavor {
  id: string;
  name: string;
  ram: number;
  vcpus: number;
  disk: number;
  'OS-FLV-EXT-DATA:ephemeral'?: number;
  'OS-FLV-DISABLED:disabled'?: boolean;
  'os-flavor-access:is_public'?: boolean;
  /** "" before 2.75, 0 from then on. */
  swap?: number | '';
  rxtx_factor?: number;
  description?: string | null;
  extra_specs?: Record<string, string>;
  links: Link[];
}

export interface FlavorFilters {
  /** true (default in Nova), false, or 'none' for both (admin). */
  isPublic?: boolean | 'none';
  minRam?: number;
  minDisk?: number;
  /** Page size asked of Nova. */
  limit?: number;
}

interface FlavorList {
  flavors: NovaFlavor[];
  flavors_links?: Link[];
}

/**
 * The microversion the worker's Nova clients pin (spec §2.1): tags in the create body (2.52),
 * server group `policy` (2.64), BDM volume_type (2.67), unknown list filters refused (2.75).
 */
export const NOVA_MICROVERSION = '2.79';

/** The session sending `OpenStack-API-Version: compute <microversion>` on every call. */
export function computeSession(session: Session, microversion: string = NOVA_MICROVERSION): Session {
  return { ...session, headers: { ...session.headers, 'openstack-api-version': `compute ${microversion}` } };
}

export class NovaClient {
  private readonly session: Session;

  constructor(session: Session, microversion = '2.1') {
    this.session = computeSession(session, microversion);
  }

  /** GET /flavors/{id}: 404 (OpenStackError not_found) when no such flavor is visible. */
  async getFlavor(id: string): Promise<NovaFlavor> {
    const res = await requestJson<{ flavor: NovaFlavor }>(this.session, { path: `/flavors/${encodeURIComponent(id)}`, operation: 'flavors.get' });
    return res.body.flavor;
  }

  /** GET /flavors/detail, following `flavors_links` next through every page. */
  async listFlavors(filters: FlavorFilters = {}): Promise<NovaFlavor[]> {
    const first = toSearchParams({
      is_public: filters.isPublic === undefined ? undefined : String(filters.isPublic),
      minRam: filters.minRam,
      minDisk: filters.minDisk,
      limit: filters.limit,
    });
    return collectPages(this.session.service, first, async (query) => {
      const { body } = await requestJson<FlavorList>(this.session, { path: '/flavors/detail', query, operation: 'flavors.list' });
      return { items: body.flavors, next: body.flavors_links?.find((l) => l.rel === 'next')?.href };
    });
  }
}
