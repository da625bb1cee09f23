// Cinder's volumes and attachments, in memory, with the timed status lifecycle of spec
// openstack-apis §6: creating → available (or error), deleting → gone; reserved → in-use through
// the attachments API (or the attach/detach methods Nova's simulator can call later).
import { randomUUID } from 'node:crypto';
import type { AuditResource, Auditable, Snapshotable } from '../common/audit.js';
import { SimClock, type SimTimer } from '../common/clock.js';
import { SimError } from '../common/errors.js';
import { Faults } from '../common/faults.js';
import { IndexedMap } from '../common/indexed-map.js';

export interface Attachment {
  id: string;
  volumeId: string;
  serverId: string | null;
  hostName: string | null;
  device: string | null;
  mode: 'rw' | 'ro';
  /** reserved (no connector yet), attaching, attached. */
  status: 'reserved' | 'attaching' | 'attached';
  attachedAt: string | null;
}

export interface Volume {
  id: string;
  name: string | null;
  description: string | null;
  status: string;
  /** GiB. */
  size: number;
  volumeType: string;
  availabilityZone: string;
  bootable: boolean;
  multiattach: boolean;
  metadata: Record<string, string>;
  projectId: string;
  userId: string;
  snapshotId: string | null;
  sourceVolid: string | null;
  imageRef: string | null;
  createdAt: string;
  updatedAt: string | null;
  /** Creation order (sorting tie-break). */
  seq: number;
}

/** A volume type; volumes name theirs (`volume_type`). */
export interface VolumeType {
  id: string;
  name: string;
  description: string | null;
  isPublic: boolean;
  extraSpecs: Record<string, string>;
}

/** Cinder's own default type (since Train), what a volume gets when it names none. */
export const DEFAULT_VOLUME_TYPE: VolumeType = {
  id: '7d1a5b1e-5c0f-4f4e-9a8e-2b7c6f0d3e11',
  name: '__DEFAULT__',
  description: 'Default Volume Type',
  isPublic: true,
  extraSpecs: {},
};

export interface CinderQuota {
  volumes: number;
  gigabytes: number;
}

export interface CinderBehaviour {
  /** Fraction of creates that end in status `error` (seeded). */
  createErrorFraction: number;
  /** Never settle: volumes stay `creating` / `deleting` forever. */
  stuck: boolean;
}

export interface CinderStateOptions {
  clock?: SimClock;
  defaultQuota?: Partial<CinderQuota>;
  behaviour?: Partial<CinderBehaviour>;
}

/** Statuses a volume may be deleted from (spec §6). */
export const DELETABLE = ['available', 'error', 'error_restoring', 'error_extending', 'error_managing'];

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000');

interface CinderSnapshot {
  volumes: Volume[];
  attachments: Attachment[];
  quotas: Record<string, Partial<CinderQuota>>;
  seq: number;
}

export class CinderState implements Auditable, Snapshotable {
  readonly volumes = new IndexedMap<Volume, 'project' | 'name'>({ project: (v) => v.projectId, name: (v) => v.name });
  readonly attachments = new IndexedMap<Attachment, 'volume'>({ volume: (a) => a.volumeId });
  readonly faults = new Faults();
  readonly clock: SimClock;
  readonly behaviour: CinderBehaviour;
  defaultQuota: CinderQuota;
  readonly quotas = new Map<string, Partial<CinderQuota>>();
  /** Volume types by id (configuration: the default type, not saved with the state). */
  readonly types = new IndexedMap<VolumeType, 'name'>({ name: (t) => t.name }).set(DEFAULT_VOLUME_TYPE.id, { ...DEFAULT_VOLUME_TYPE });
  /** The type of volumes that name none ([DEFAULT] default_volume_type). */
  defaultTypeName = DEFAULT_VOLUME_TYPE.name;
  /** The storage availability zones; the first is where a volume that names none goes. */
  zones: string[] = ['nova'];
  /** osapi_max_limit. */
  maxLimit = 1000;
  private seq = 0;
  private readonly timers = new Map<string, SimTimer>();

  constructor(opts: CinderStateOptions = {}) {
    this.clock = opts.clock ?? new SimClock();
    this.behaviour = { createErrorFraction: 0, stuck: false, ...opts.behaviour };
    this.defaultQuota = { volumes: 10, gigabytes: 1000, ...opts.defaultQuota };
  }

  close(): void {
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.clock.close();
  }

  quotaOf(projectId: string): CinderQuota {
    return { ...this.defaultQuota, ...this.quotas.get(projectId) };
  }

  setQuota(projectId: string, quota: Partial<CinderQuota>): void {
    this.quotas.set(projectId, { ...this.quotas.get(projectId), ...quota });
  }

  /** A type by id or name, as Cinder's get_by_name_or_id (404 in Cinder's words when unknown). */
  typeOf(idOrName: string): VolumeType {
    const t = this.types.get(idOrName) ?? this.types.first('name', idOrName);
    if (t) return t;
    const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(idOrName);
    throw new SimError(404, uuid ? `Volume type ${idOrName} could not be found.` : `Volume type with name ${idOrName} could not be found.`);
  }

  attachmentsOf(volumeId: string): Attachment[] {
    return this.attachments.by('volume', volumeId);
  }

  /** The project's volumes and the GiB they hold. */
  usage(projectId: string): { volumes: number; gigabytes: number } {
    const mine = this.volumes.by('project', projectId);
    return { volumes: mine.length, gigabytes: mine.reduce((n, v) => n + v.size, 0) };
  }

  private later(v: Volume, delay: string, fn: () => void): void {
    if (this.behaviour.stuck) return;
    this.timers.get(v.id)?.cancel();
    this.timers.set(
      v.id,
      this.clock.after(delay, () => {
        this.timers.delete(v.id);
        fn();
      }),
    );
  }

  private touch(v: Volume): void {
    v.updatedAt = iso(this.clock.now());
  }

  /** 413 overLimit (Retry-After: 0) when the project cannot have one more volume of `size` GiB. */
  checkQuota(projectId: string, size: number): void {
    const q = this.quotaOf(projectId);
    const used = this.usage(projectId);
    const headers = { 'retry-after': '0' };
    if (q.gigabytes >= 0) {
      const consumed = used.gigabytes;
      if (consumed + size > q.gigabytes) {
        throw new SimError(
          413,
          `VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds allowed gigabytes quota. Requested ${size}G, quota is ${q.gigabytes}G and ${consumed}G has been consumed.`,
          'overLimit',
          headers,
        );
      }
    }
    if (q.volumes >= 0 && used.volumes + 1 > q.volumes) {
      throw new SimError(413, `VolumeLimitExceeded: Maximum number of volumes allowed (${q.volumes}) exceeded for quota 'volumes'.`, 'overLimit', headers);
    }
  }

  /** Adds a `creating` volume and arms its transition. */
  create(input: Partial<Volume> & Pick<Volume, 'size' | 'projectId' | 'userId'>): Volume {
    const now = iso(this.clock.now());
    const v: Volume = {
      id: randomUUID(),
      name: null,
      description: null,
      status: 'creating',
      volumeType: this.defaultTypeName,
      availabilityZone: this.zones[0] ?? 'nova',
      bootable: false,
      multiattach: false,
      metadata: {},
      snapshotId: null,
      sourceVolid: null,
      imageRef: null,
      createdAt: now,
      updatedAt: null,
      seq: ++this.seq,
      ...input,
    };
    this.volumes.set(v.id, v);
    const fail = this.clock.random.chance(this.behaviour.createErrorFraction);
    this.later(v, 'cinder.volume.create', () => {
      v.status = fail ? 'error' : 'available';
      this.touch(v);
    });
    return v;
  }

  /** 400 unless deletable; then `deleting` and gone after the delay. */
  delete(v: Volume): void {
    if (!DELETABLE.includes(v.status) || this.attachmentsOf(v.id).length > 0) {
      throw new SimError(
        400,
        'Invalid volume: Volume status must be available or error or error_restoring or error_extending or error_managing and must not be migrating, attached, belong to a group, have snapshots, awaiting a transfer, or be disassociated from snapshots after volume transfer.',
      );
    }
    v.status = 'deleting';
    this.touch(v);
    this.later(v, 'cinder.volume.delete', () => this.volumes.delete(v.id));
  }

  /** Reserves the volume for a server (attachment_create); with a connector it is attached at once. */
  reserve(v: Volume, serverId: string | null, connected: boolean, mode: 'rw' | 'ro' = 'rw'): Attachment {
    const ok = v.status === 'available' || v.status === 'downloading' || (v.multiattach && (v.status === 'in-use' || v.status === 'reserved'));
    if (!ok) {
      throw new SimError(400, `Invalid volume: Volume ${v.id} status must be available or downloading to reserve, but the current status is ${v.status}.`);
    }
    const a: Attachment = { id: randomUUID(), volumeId: v.id, serverId, hostName: null, device: null, mode, status: 'reserved', attachedAt: null };
    this.attachments.set(a.id, a);
    v.status = 'reserved';
    if (connected) this.complete(a);
    this.touch(v);
    return a;
  }

  /** The connector arrived / os-complete: the volume is in-use. */
  complete(a: Attachment, device?: string): void {
    const v = this.volumes.get(a.volumeId);
    a.status = 'attached';
    a.attachedAt ??= iso(this.clock.now());
    a.device = device ?? a.device ?? '/dev/vdb';
    if (v) {
      v.status = 'in-use';
      this.touch(v);
    }
  }

  /** attachment_delete: the volume is available again once its last attachment goes. */
  detach(a: Attachment): void {
    this.attachments.delete(a.id);
    const v = this.volumes.get(a.volumeId);
    if (v && this.attachmentsOf(v.id).length === 0) {
      v.status = 'available';
      this.touch(v);
    }
  }

  auditResources(): AuditResource[] {
    return [...this.volumes.values()].map((v) => ({
      type: 'volume',
      id: v.id,
      project_id: v.projectId,
      ...(v.name !== null ? { name: v.name } : {}),
      tags: Object.entries(v.metadata).map(([k, x]) => `${k}=${x}`),
    }));
  }

  snapshot(): CinderSnapshot {
    return {
      volumes: [...this.volumes.values()],
      attachments: [...this.attachments.values()],
      quotas: Object.fromEntries(this.quotas),
      seq: this.seq,
    };
  }

  /** Loads a snapshot; volumes `creating` then are `available` now, `deleting` ones gone. */
  restore(snapshot: unknown): void {
    const s = snapshot as CinderSnapshot;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.volumes.clear();
    this.attachments.clear();
    for (const v of s.volumes) {
      if (v.status === 'deleting') continue;
      this.volumes.set(v.id, v.status === 'creating' ? { ...v, status: 'available' } : v);
    }
    for (const a of s.attachments) if (this.volumes.has(a.volumeId)) this.attachments.set(a.id, a);
    this.quotas.clear();
    for (const [p, q] of Object.entries(s.quotas)) this.quotas.set(p, q);
    this.seq = s.seq;
  }
}
