// Glance v2, read side (spec openstack-apis §5): show an image, list images with filters. The
// image object comes back unwrapped, with custom properties (os_distro, ...) as flat keys.
import { requestJson, toSearchParams, type Session } from './http.js';
import { collectPages } from './paging.js';

export type ImageVisibility = 'public' | 'private' | 'shared' | 'community';

export interface GlanceImage {
  id: string;
  name: string | null;
  status: string;
  visibility: ImageVisibility;
  owner?: string | null;
  protected: boolean;
  os_hidden: boolean;
  disk_format?: string | null;
  container_format?: string | null;
  size?: number | null;
  min_disk: number;
  min_ram: number;
  tags: string[];
  created_at: string;
  updated_at: string;
  /** Custom properties, flat: os_distro, os_version, hw_*, ... */
  [property: string]: unknown;
}

export interface ImageFilters {
  /** Exact name. */
  name?: string;
  status?: string;
  visibility?: ImageVisibility | 'all';
  owner?: string;
  /** Custom property filters, e.g. { os_distro: 'ubuntu' }. */
  properties?: Record<string, string>;
  /** Page size asked of Glance (default 25 there). */
  limit?: number;
  /** `sort=name:asc,...` style. */
  sort?: string;
}

interface ImageList {
  images: GlanceImage[];
  next?: string;
}

export class GlanceClient {
  private readonly v2: string;

  constructor(private readonly session: Session) {
    // Catalog URLs are usually bare (http://h:9292); tolerate a versioned one.
    this.v2 = /\/v2(\.\d+)?$/.test(session.baseUrl) ? '' : '/v2';
  }

  /** GET /v2/images/{id}: 404 (OpenStackError not_found) when missing or not visible to the caller. */
  async getImage(id: string): Promise<GlanceImage> {
    return (await requestJson<GlanceImage>(this.session, { path: `${this.v2}/images/${encodeURIComponent(id)}`, operation: 'images.get' })).body;
  }

  /** GET /v2/images with filters, following `next` through every page. */
  async listImages(filters: ImageFilters = {}): Promise<GlanceImage[]> {
    const { properties, ...core } = filters;
    const first = toSearchParams({ ...core, ...properties });
    return collectPages(this.session.service, first, async (query) => {
      const { body } = await requestJson<ImageList>(this.session, { path: `${this.v2}/images`, query, operation: 'images.list' });
      return { items: body.images, next: body.next };
    });
  }
}
