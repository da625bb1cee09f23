// Designate's zones and recordsets, in memory, with the asynchronous life of a real pool: every
// change leaves the object PENDING (action CREATE, UPDATE or DELETE) until a clock timer settles
// it (→ ACTIVE with action NONE, or gone). A zone starts with its managed SOA and NS recordsets.
import { randomUUID } from 'node:crypto';
import type { AuditResource, Auditable, Snapshotable } from '../common/audit.js';
import { SimClock, type SimTimer } from '../common/clock.js';
import { Faults } from '../common/faults.js';
import { IndexedMap } from '../common/indexed-map.js';

export type Status = 'PENDING' | 'ACTIVE' | 'ERROR';
export type Action = 'CREATE' | 'UPDATE' | 'DELETE' | 'NONE';

export interface Zone {
  id: string;
  projectId: string;
  name: string;
  email: string;
  ttl: number;
  serial: number;
  status: Status;
  action: Action;
  description: string | null;
  type: 'PRIMARY' | 'SECONDARY';
  masters: string[];
  attributes: Record<string, string>;
  version: number;
  createdAt: string;
  updatedAt: string | null;
  /** Creation order (sorting tie-break). */
  seq: number;
}

export interface RecordSet {
  id: string;
  zoneId: string;
  projectId: string;
  name: string;
  type: string;
  records: string[];
  ttl: number | null;
  description: string | null;
  status: Status;
  action: Action;
  /** SOA and NS: kept by Designate itself. */
  managed: boolean;
  version: number;
  createdAt: string;
  updatedAt: string | null;
  seq: number;
}

/** Designate's per-project quotas ([DEFAULT] quota_*); -1 is unlimited. */
export interface DnsQuota {
  zones: number;
  zone_recordsets: number;
  zone_records: number;
  recordset_records: number;
}

export const DEFAULT_DNS_QUOTA: DnsQuota = { zones: 10, zone_recordsets: 500, zone_records: 500, recordset_records: 20 };

/** The pool's nameservers, in every zone's NS recordset and SOA. */
export const NAMESERVERS = ['ns1.cloudsim.test.'];

/** Designate's timestamps: microseconds, no zone (2026-01-01T00:00:00.123000). */
export const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '000');

export interface DesignateStateOptions {
  clock?: SimClock;
  defaultQuota?: Partial<DnsQuota>;
}

export class DesignateState implements Auditable, Snapshotable {
  readonly zones = new IndexedMap<Zone, 'project' | 'name'>({ project: (z) => z.projectId, name: (z) => z.name });
  readonly recordsets = new IndexedMap<RecordSet, 'zone' | 'project'>({ zone: (r) => r.zoneId, project: (r) => r.projectId });
  readonly faults = new Faults();
  readonly clock: SimClock;
  defaultQuota: DnsQuota;
  readonly quotas = new Map<string, Partial<DnsQuota>>();
  /** [service:api] default_limit_v2 and max_limit_v2. */
  limits = { default: 20, max: 1000 };
  private seq = 0;
  private readonly timers = new Map<string, SimTimer>();

  constructor(opts: DesignateStateOptions = {}) {
    this.clock = opts.clock ?? new SimClock();
    this.defaultQuota = { ...DEFAULT_DNS_QUOTA, ...opts.defaultQuota };
  }

  close(): void {
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.clock.close();
  }

  quotaOf(projectId: string): DnsQuota {
    return { ...this.defaultQuota, ...this.quotas.get(projectId) };
  }

  recordsetsOf(zoneId: string): RecordSet[] {
    return this.recordsets.by('zone', zoneId);
  }

  zoneByName(name: string): Zone | undefined {
    return this.zones.first('name', name);
  }

  private now(): string {
    return iso(this.clock.now());
  }

  /** A new zone, PENDING CREATE, with its SOA and NS recordsets; ACTIVE after the delay. */
  createZone(input: Pick<Zone, 'projectId' | 'name' | 'email'> & Partial<Pick<Zone, 'ttl' | 'description' | 'type' | 'masters' | 'attributes'>>): Zone {
    const zone: Zone = {
      id: randomUUID(),
      ttl: 3600,
      description: null,
      type: 'PRIMARY',
      masters: [],
      attributes: {},
      ...input,
      serial: Math.floor(this.clock.now() / 1000),
      status: 'PENDING',
      action: 'CREATE',
      version: 1,
      createdAt: this.now(),
      updatedAt: null,
      seq: ++this.seq,
    };
    this.zones.set(zone.id, zone);
    if (zone.type === 'PRIMARY') {
      this.addRecordSet(zone, { name: zone.name, type: 'SOA', records: [this.soa(zone)], managed: true });
      this.addRecordSet(zone, { name: zone.name, type: 'NS', records: [...NAMESERVERS], managed: true });
    }
    this.settleZone(zone, 'designate.zone.create');
    return zone;
  }

  private soa(zone: Zone): string {
    return `${NAMESERVERS[0]} ${zone.email.replace('@', '.')}. ${zone.serial} 3584 600 86400 3600`;
  }

  /** A zone change (PATCH, or a recordset change): new serial, PENDING UPDATE until the pool has it. */
  touchZone(zone: Zone): void {
    zone.serial = Math.max(zone.serial + 1, Math.floor(this.clock.now() / 1000));
    zone.version++;
    zone.updatedAt = this.now();
    zone.status = 'PENDING';
    zone.action = 'UPDATE';
    const soa = this.recordsetsOf(zone.id).find((r) => r.type === 'SOA');
    if (soa) soa.records = [this.soa(zone)];
    this.settleZone(zone, 'designate.zone.update');
  }

  deleteZone(zone: Zone): void {
    zone.status = 'PENDING';
    zone.action = 'DELETE';
    zone.version++;
    zone.updatedAt = this.now();
    for (const r of this.recordsetsOf(zone.id)) {
      this.timers.get(r.id)?.cancel();
      this.timers.delete(r.id);
    }
    this.later(zone.id, 'designate.zone.delete', () => this.removeZone(zone));
  }

  private removeZone(zone: Zone): void {
    for (const r of this.recordsetsOf(zone.id)) this.recordsets.delete(r.id);
    this.zones.delete(zone.id);
  }

  addRecordSet(zone: Zone, input: Pick<RecordSet, 'name' | 'type' | 'records'> & Partial<Pick<RecordSet, 'ttl' | 'description' | 'managed'>>): RecordSet {
    const rs: RecordSet = {
      id: randomUUID(),
      zoneId: zone.id,
      projectId: zone.projectId,
      ttl: null,
      description: null,
      managed: false,
      ...input,
      status: 'PENDING',
      action: 'CREATE',
      version: 1,
      createdAt: this.now(),
      updatedAt: null,
      seq: ++this.seq,
    };
    this.recordsets.set(rs.id, rs);
    if (!rs.managed) {
      this.touchZone(zone);
      this.settleRecordSet(rs);
    }
    return rs;
  }

  updateRecordSet(zone: Zone, rs: RecordSet, changes: Partial<Pick<RecordSet, 'records' | 'ttl' | 'description'>>): void {
    Object.assign(rs, changes);
    rs.version++;
    rs.updatedAt = this.now();
    rs.status = 'PENDING';
    rs.action = 'UPDATE';
    this.touchZone(zone);
    this.settleRecordSet(rs);
  }

  deleteRecordSet(zone: Zone, rs: RecordSet): void {
    rs.status = 'PENDING';
    rs.action = 'DELETE';
    rs.updatedAt = this.now();
    this.touchZone(zone);
    this.later(rs.id, 'designate.recordset.update', () => this.recordsets.delete(rs.id));
  }

  private later(id: string, delay: string, fn: () => void): void {
    this.timers.get(id)?.cancel();
    this.timers.set(
      id,
      this.clock.after(delay, () => {
        this.timers.delete(id);
        fn();
      }),
    );
  }

  /** The pool answered: the zone (and its managed recordsets, on create) are ACTIVE. */
  private settleZone(zone: Zone, delay: string): void {
    this.later(zone.id, delay, () => {
      if (zone.action === 'DELETE') return;
      zone.status = 'ACTIVE';
      zone.action = 'NONE';
      for (const r of this.recordsetsOf(zone.id)) {
        if (r.managed && r.status === 'PENDING') {
          r.status = 'ACTIVE';
          r.action = 'NONE';
        }
      }
    });
  }

  private settleRecordSet(rs: RecordSet): void {
    this.later(rs.id, 'designate.recordset.update', () => {
      if (rs.action === 'DELETE') return;
      rs.status = 'ACTIVE';
      rs.action = 'NONE';
    });
  }

  auditResources(): AuditResource[] {
    const zones = [...this.zones.values()].map((z) => ({ type: 'zone', id: z.id, project_id: z.projectId, name: z.name }));
    const rrsets = [...this.recordsets.values()]
      .filter((r) => !r.managed)
      .map((r) => ({ type: 'recordset', id: r.id, project_id: r.projectId, name: `${r.name} ${r.type}` }));
    return [...zones, ...rrsets];
  }

  snapshot(): unknown {
    return { zones: [...this.zones.values()], recordsets: [...this.recordsets.values()], quotas: Object.fromEntries(this.quotas), seq: this.seq };
  }

  /** Loads a snapshot; what was pending then has settled since (deletes done, the rest ACTIVE). */
  restore(snapshot: unknown): void {
    const s = snapshot as { zones: Zone[]; recordsets: RecordSet[]; quotas?: Record<string, Partial<DnsQuota>>; seq?: number };
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.zones.clear();
    this.recordsets.clear();
    this.quotas.clear();
    for (const z of s.zones) if (z.action !== 'DELETE') this.zones.set(z.id, { ...z, status: z.status === 'PENDING' ? 'ACTIVE' : z.status, action: 'NONE' });
    for (const r of s.recordsets) {
      if (r.action === 'DELETE' || !this.zones.has(r.zoneId)) continue;
      this.recordsets.set(r.id, { ...r, status: r.status === 'PENDING' ? 'ACTIVE' : r.status, action: 'NONE' });
    }
    for (const [p, q] of Object.entries(s.quotas ?? {})) this.quotas.set(p, q);
    this.seq = s.seq ?? this.zones.size + this.recordsets.size;
  }
}
