// Manila's shares, in memory, with the timed life of a real share service: creating → available (with an
// export location) and deleting → gone; metadata, per-project quotas (shares, gigabytes). Access rules are
// not modelled: deleting a share takes its rules with it, as Manila does.
import { randomUUID } from 'node:crypto';
import type { AuditResource, Auditable, Snapshotable } from '../common/audit.js';
import { SimClock, type SimTimer } from '../common/clock.js';
import { SimError } from '../common/errors.js';
import { Faults } from '../common/faults.js';
import { IndexedMap } from '../common/indexed-map.js';

export interface Share {
  id: string;
  name: string | null;
  description: string | null;
  status: string;
  /** GiB. */
  size: number;
  shareProto: string;
  /** The share type's name. */
  shareType: string;
  shareNetworkId: string | null;
  availabilityZone: string;
  metadata: Record<string, string>;
  projectId: string;
  userId: string;
  exportLocations: string[];
  createdAt: string;
  updatedAt: string | null;
  seq: number;
}

/** A share type; shares name theirs (`share_type_name`). */
export interface ShareType {
  id: string;
  name: string;
  description: string | null;
  isPublic: boolean;
  extraSpecs: Record<string, string>;
}

/** devstack's default share type: no share servers of the driver's own (shares on a given share network or none). */
export const DEFAULT_SHARE_TYPE: ShareType = {
  id: '3b1e2a6c-8f0d-4c47-9a53-6d2f1e7b5c90',
  name: 'default',
  description: null,
  isPublic: true,
  extraSpecs: { driver_handles_share_servers: 'False', snapshot_support: 'True' },
};

export interface ManilaQuota {
  shares: number;
  gigabytes: number;
}

/** Statuses a share may be deleted from. */
export const DELETABLE = ['available', 'error', 'inactive'];
export const PROTOCOLS = ['NFS', 'CIFS', 'CEPHFS', 'GLUSTERFS', 'HDFS', 'MAPRFS'];

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000');

export class ManilaState implements Auditable, Snapshotable {
  readonly shares = new IndexedMap<Share, 'project'>({ project: (s) => s.projectId });
  /** Share types by id (configuration: the default type, not saved with the state). */
  readonly types = new IndexedMap<ShareType, 'name'>({ name: (t) => t.name }).set(DEFAULT_SHARE_TYPE.id, { ...DEFAULT_SHARE_TYPE });
  /** The type of shares that name none ([DEFAULT] default_share_type). */
  defaultTypeName = DEFAULT_SHARE_TYPE.name;
  readonly faults = new Faults();
  readonly clock: SimClock;
  /** Manila's defaults: 50 shares, 1000 GiB per project (-1 = unlimited). */
  defaultQuota: ManilaQuota = { shares: 50, gigabytes: 1000 };
  private seq = 0;
  private readonly timers = new Map<string, SimTimer>();

  constructor(opts: { clock?: SimClock } = {}) {
    this.clock = opts.clock ?? new SimClock();
  }

  close(): void {
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.clock.close();
  }

  private later(id: string, delay: 'manila.share.create' | 'manila.share.delete', fn: () => void): void {
    this.timers.get(id)?.cancel();
    this.timers.set(
      id,
      this.clock.after(delay, () => {
        this.timers.delete(id);
        fn();
      }),
    );
  }

  /** A type by id or name (404 in Manila's words when unknown). */
  typeOf(idOrName: string): ShareType {
    const t = this.types.get(idOrName) ?? this.types.first('name', idOrName);
    if (!t) throw new SimError(404, `Share type with name or ID ${idOrName} could not be found.`);
    return t;
  }

  private touch(s: Share): void {
    s.updatedAt = iso(this.clock.now());
  }

  create(input: Pick<Share, 'projectId' | 'userId' | 'size' | 'shareProto'> & Partial<Pick<Share, 'name' | 'description' | 'shareType' | 'shareNetworkId' | 'availabilityZone' | 'metadata'>>): Share {
    const type = this.typeOf(input.shareType ?? this.defaultTypeName);
    const q = this.defaultQuota;
    const mine = this.shares.by('project', input.projectId);
    if (q.shares >= 0 && mine.length + 1 > q.shares) throw new SimError(413, `Maximum number of shares allowed (${q.shares}) exceeded`);
    const used = mine.reduce((n, s) => n + s.size, 0);
    if (q.gigabytes >= 0 && used + input.size > q.gigabytes) {
      throw new SimError(413, `Requested share exceeds allowed project/user or share type gigabytes quota. (${input.size}G of ${q.gigabytes}G quota, ${used}G consumed)`);
    }
    const share: Share = {
      id: randomUUID(),
      name: input.name ?? null,
      description: input.description ?? null,
      status: 'creating',
      size: input.size,
      shareProto: input.shareProto,
      shareType: type.name,
      shareNetworkId: input.shareNetworkId ?? null,
      availabilityZone: input.availabilityZone ?? 'nova',
      metadata: { ...input.metadata },
      projectId: input.projectId,
      userId: input.userId,
      exportLocations: [],
      createdAt: iso(this.clock.now()),
      updatedAt: null,
      seq: ++this.seq,
    };
    this.shares.set(share.id, share);
    this.later(share.id, 'manila.share.create', () => {
      share.status = 'available';
      share.exportLocations = [`192.0.2.250:/shares/share-${share.id}`];
      this.touch(share);
    });
    return share;
  }

  delete(s: Share): void {
    if (!DELETABLE.includes(s.status)) throw new SimError(403, `Invalid share: Share status must be one of ('available', 'error', 'inactive').`);
    s.status = 'deleting';
    this.touch(s);
    this.later(s.id, 'manila.share.delete', () => this.shares.delete(s.id));
  }

  auditResources(): AuditResource[] {
    return [...this.shares.values()].map((s) => ({ type: 'share', id: s.id, project_id: s.projectId, ...(s.name ? { name: s.name } : {}) }));
  }

  snapshot(): unknown {
    return { shares: [...this.shares.values()], seq: this.seq };
  }

  /** Loads a snapshot; what was pending then has settled since (deletes done, creates available). */
  restore(snapshot: unknown): void {
    const s = snapshot as { shares: Share[]; seq?: number };
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.shares.clear();
    for (const sh of s.shares ?? []) {
      if (sh.status === 'deleting') continue;
      const settled = sh.status === 'creating' ? { status: 'available', exportLocations: [`192.0.2.250:/shares/share-${sh.id}`] } : {};
      this.shares.set(sh.id, { ...sh, ...settled });
    }
    this.seq = s.seq ?? this.shares.size;
  }
}
