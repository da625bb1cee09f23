// Glance's images, in memory. Read-only through the API for now; tests and the seed add images here.
import { createHash, randomUUID } from 'node:crypto';
import type { AuditResource, Auditable, Snapshotable } from '../common/audit.js';
import { Faults } from '../common/faults.js';
import { IndexedMap } from '../common/indexed-map.js';

export type Visibility = 'public' | 'private' | 'shared' | 'community';

export interface Image {
  id: string;
  name: string | null;
  status: string;
  visibility: Visibility;
  /** Project id of the owner; null for images nobody owns. */
  owner: string | null;
  protected: boolean;
  os_hidden: boolean;
  disk_format: string | null;
  container_format: string | null;
  size: number | null;
  virtual_size: number | null;
  checksum: string | null;
  os_hash_algo: string | null;
  os_hash_value: string | null;
  min_disk: number;
  min_ram: number;
  tags: string[];
  /** Epoch ms. */
  created_at: number;
  updated_at: number;
  /** Custom properties, rendered as flat top-level keys (os_distro, os_version, hw_*...). */
  properties: Record<string, string>;
  /** Projects an image of visibility `shared` is shared with (accepted members). */
  members: string[];
}

export type NewImage = Partial<Omit<Image, 'name'>> & { name: string | null };

export class GlanceState implements Auditable, Snapshotable {
  /** `name`, `owner`: as the list filters compare them (String of the value, so `null` too). */
  readonly images = new IndexedMap<Image, 'name' | 'owner' | 'tag'>({ name: (i) => String(i.name), owner: (i) => String(i.owner), tag: (i) => i.tags });
  readonly faults = new Faults();
  /** [DEFAULT] limit_param_default and api_limit_max. */
  limits = { default: 25, max: 1000 };
  private clock = Date.parse('2026-01-01T00:00:00Z');

  /** Adds an active image (unless told otherwise); each new image is one second newer than the last. */
  addImage(input: NewImage): Image {
    this.clock += 1000;
    const size = input.size === undefined ? 1 << 20 : input.size;
    const id = input.id ?? randomUUID();
    const digest = (algo: string) => createHash(algo).update(id).digest('hex');
    const image: Image = {
      status: 'active',
      visibility: 'public',
      owner: null,
      protected: false,
      os_hidden: false,
      disk_format: 'qcow2',
      container_format: 'bare',
      virtual_size: size === null ? null : size * 4,
      checksum: size === null ? null : digest('md5'),
      os_hash_algo: size === null ? null : 'sha512',
      os_hash_value: size === null ? null : digest('sha512'),
      min_disk: 0,
      min_ram: 0,
      tags: [],
      created_at: this.clock,
      updated_at: this.clock,
      properties: {},
      members: [],
      ...input,
      id,
      size,
    };
    if (this.images.has(image.id)) throw new Error(`glance sim: image ${image.id} exists`);
    this.images.set(image.id, image);
    return image;
  }

  removeImage(id: string): void {
    this.images.delete(id);
  }

  /** The image named `name` (the first, when several share it); for tests. */
  byName(name: string): Image | undefined {
    return this.images.by('name', name).find((i) => i.name === name);
  }

  /** Images some project owns (those nobody owns are the cloud's own). */
  auditResources(): AuditResource[] {
    return [...this.images.values()]
      .filter((i) => i.owner !== null)
      .map((i) => ({ type: 'image', id: i.id, project_id: i.owner!, ...(i.name !== null ? { name: i.name } : {}), tags: [...i.tags] }));
  }

  snapshot(): unknown {
    return { images: [...this.images.values()], clock: this.clock };
  }

  restore(snapshot: unknown): void {
    const s = snapshot as { images: Image[]; clock: number };
    this.images.clear();
    for (const i of s.images) this.images.set(i.id, i);
    this.clock = s.clock;
  }
}
