// Octavia's load balancers and their children, in memory, with the provisioning state machine
// of spec openstack-apis §4.1: every mutation test-and-sets the LB (ACTIVE → PENDING_*), and a
// clock timer settles it (→ ACTIVE, ERROR or gone). Objects are kept in their API (snake_case)
// shape (resources.ts), each kind in an IndexedMap.
import type { OctaviaPolicy } from './policy.js';
import { randomUUID } from 'node:crypto';
import type { AuditResource, Auditable, Snapshotable } from '../common/audit.js';
import { SimClock, type DelayName, type SimTimer } from '../common/clock.js';
import { SimError } from '../common/errors.js';
import { Faults } from '../common/faults.js';
import { IndexedMap, type Indexed } from '../common/indexed-map.js';
import { QUOTA_NAMES, QUOTA_OF, type AnyObject, type Common, type HealthMonitor, type Kind, type Listener, type LoadBalancer, type Member, type OperatingStatus, type Pool, type Quota } from './resources.js';
import { LocalVipAllocator, type VipAllocator } from './vip.js';

export { KIND_NAMES, QUOTA_KEYS } from './resources.js';
export type { AnyObject, HealthMonitor, Kind, Listener, LoadBalancer, Member, OperatingStatus, Pool, ProvisioningStatus, Quota, QuotaKey } from './resources.js';

export interface OctaviaBehaviour {
  /** Fraction of LB creates that end in provisioning_status ERROR (drawn from the seeded PRNG). */
  createErrorFraction: number;
  /** Never settle: every PENDING_* stays forever (a stuck controller). */
  stuck: boolean;
  /** The API policy: 'admin_or_owner' (devstack's, the default) or 'default' (Zed's: load-balancer_* roles; policy.ts). */
  policy: OctaviaPolicy;
  /**
   * [task_flow] jobboard_enabled. False is Zed's default and its bug (Octavia 11's v2 controller worker drops the
   * `listeners` of a create flow without the jobboard): a fully populated load balancer goes ACTIVE while the
   * listeners, pools, members and health monitors of its create stay PENDING_CREATE for ever, so calls on such a
   * pool's members and health monitor are 409 "Pool … is immutable". Default true (the objects settle).
   */
  jobboard: boolean;
}

export interface OctaviaStateOptions {
  clock?: SimClock;
  vip?: VipAllocator;
  defaultQuota?: Partial<Quota>;
  behaviour?: Partial<OctaviaBehaviour>;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '');

interface OctaviaSnapshot {
  loadbalancers: LoadBalancer[];
  listeners: Listener[];
  pools: Pool[];
  members: Member[];
  healthmonitors: HealthMonitor[];
  quotas: Record<string, Partial<Quota>>;
  seq: number;
}

const KINDS: Kind[] = ['loadbalancer', 'listener', 'pool', 'member', 'healthmonitor'];

/**
 * What every kind is filed under: its project, name and tags; `lb`: the load balancer a child hangs
 * from; `pool`: the pool a member or health monitor belongs to, or a listener sends to (its default
 * pool); `vipAddress`, `vipPort`: a load balancer's VIP.
 */
export type OctaviaIndex = 'project' | 'name' | 'tag' | 'lb' | 'pool' | 'vipAddress' | 'vipPort';

const indexes = <T extends Common>(own: Partial<Record<OctaviaIndex, (o: T) => string | null>>): Record<OctaviaIndex, (o: T) => string | string[] | null> => ({
  project: (o) => o.project_id,
  name: (o) => o.name,
  tag: (o) => o.tags,
  lb: () => null,
  pool: () => null,
  vipAddress: () => null,
  vipPort: () => null,
  ...own,
});

export class OctaviaState implements Auditable, Snapshotable {
  readonly loadbalancers = new IndexedMap<LoadBalancer, OctaviaIndex>(indexes<LoadBalancer>({ vipAddress: (lb) => lb.vip_address, vipPort: (lb) => lb.vip_port_id }));
  readonly listeners = new IndexedMap<Listener, OctaviaIndex>(indexes<Listener>({ lb: (l) => l.loadbalancer_id, pool: (l) => l.default_pool_id }));
  readonly pools = new IndexedMap<Pool, OctaviaIndex>(indexes<Pool>({ lb: (p) => p.loadbalancer_id }));
  readonly members = new IndexedMap<Member, OctaviaIndex>(indexes<Member>({ lb: (m) => m.loadbalancer_id, pool: (m) => m.pool_id }));
  readonly healthmonitors = new IndexedMap<HealthMonitor, OctaviaIndex>(indexes<HealthMonitor>({ lb: (h) => h.loadbalancer_id, pool: (h) => h.pool_id }));
  readonly faults = new Faults();
  readonly clock: SimClock;
  readonly vip: VipAllocator;
  readonly behaviour: OctaviaBehaviour;
  defaultQuota: Quota;
  readonly quotas = new Map<string, Partial<Quota>>();
  /** pagination_max_limit. */
  maxLimit = 1000;
  enabledProviders = ['amphora', 'octavia'];
  private seq = 0;
  /** The children a jobboard-less create left PENDING_CREATE (behaviour.jobboard false). */
  private readonly abandoned = new Set<string>();
  private readonly timers = new Map<string, SimTimer>();

  constructor(opts: OctaviaStateOptions = {}) {
    this.clock = opts.clock ?? new SimClock();
    this.vip = opts.vip ?? new LocalVipAllocator();
    this.behaviour = { createErrorFraction: 0, stuck: false, policy: 'admin_or_owner', jobboard: true, ...opts.behaviour };
    this.defaultQuota = { load_balancer: -1, listener: -1, pool: -1, member: -1, health_monitor: -1, ...opts.defaultQuota };
  }

  close(): void {
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.clock.close();
  }

  // ---- helpers ---------------------------------------------------------------------------

  map(kind: Kind): Indexed<AnyObject, OctaviaIndex> {
    const maps: Record<Kind, Indexed<AnyObject, OctaviaIndex>> = {
      loadbalancer: this.loadbalancers,
      listener: this.listeners,
      pool: this.pools,
      member: this.members,
      healthmonitor: this.healthmonitors,
    };
    return maps[kind];
  }

  /** Files an object changed in place (its name, tags, default pool...) again in its kind's indexes. */
  refile(o: AnyObject): void {
    const maps: { get(id: string): unknown; refile(id: string): void }[] = [this.loadbalancers, this.listeners, this.pools, this.members, this.healthmonitors];
    for (const map of maps) if (map.get(o.id) === o) map.refile(o.id);
  }

  /** The children of a load balancer (listeners, pools, members, health monitors). */
  childrenOf(lbId: string): AnyObject[] {
    return [...this.listeners.by('lb', lbId), ...this.pools.by('lb', lbId), ...this.members.by('lb', lbId), ...this.healthmonitors.by('lb', lbId)];
  }

  common(projectId: string, body: { name?: unknown; admin_state_up?: unknown; tags?: unknown }): Common {
    return {
      id: randomUUID(),
      name: typeof body.name === 'string' ? body.name : '',
      project_id: projectId,
      provisioning_status: 'PENDING_CREATE',
      operating_status: 'OFFLINE',
      admin_state_up: typeof body.admin_state_up === 'boolean' ? body.admin_state_up : true,
      tags: Array.isArray(body.tags) ? (body.tags as string[]) : [],
      created_at: iso(this.clock.now()),
      updated_at: null,
      _seq: ++this.seq,
    };
  }

  touch(o: AnyObject): void {
    o.updated_at = iso(this.clock.now());
  }

  quotaOf(projectId: string): Quota {
    return { ...this.defaultQuota, ...this.quotas.get(projectId) };
  }

  setQuota(projectId: string, quota: Partial<Quota>): void {
    this.quotas.set(projectId, { ...this.quotas.get(projectId), ...quota });
  }

  /** 403 when adding `wanted` objects would exceed the project's quota. */
  checkQuota(projectId: string, wanted: Partial<Record<Kind, number>>): void {
    const quota = this.quotaOf(projectId);
    const over: string[] = [];
    for (const [kind, n] of Object.entries(wanted) as [Kind, number][]) {
      const key = QUOTA_OF[kind];
      const limit = quota[key];
      if (limit < 0 || n === 0) continue;
      const used = this.map(kind).count('project', projectId);
      if (used + n > limit) over.push(QUOTA_NAMES[key]);
    }
    if (over.length > 0) throw new SimError(403, `Quota has been met for resources: ${over.join(', ')}`);
  }

  listenersOf(lbId: string): Listener[] {
    return this.listeners.by('lb', lbId);
  }
  poolsOf(lbId: string): Pool[] {
    return this.pools.by('lb', lbId);
  }
  membersOf(poolId: string): Member[] {
    return this.members.by('pool', poolId);
  }
  listenersOfPool(poolId: string): Listener[] {
    return this.listeners.by('pool', poolId);
  }

  // ---- the state machine -----------------------------------------------------------------

  /**
   * The atomic test-and-set every mutation starts with (spec §4.1). Child operations and LB
   * updates need ACTIVE; an LB delete also accepts ERROR.
   */
  lock(lb: LoadBalancer, op: 'child' | 'update' | 'delete'): void {
    const ok = lb.provisioning_status === 'ACTIVE' || (op === 'delete' && lb.provisioning_status === 'ERROR');
    if (!ok) {
      throw new SimError(
        409,
        op === 'child'
          ? `Load Balancer ${lb.id} is immutable and cannot be updated.`
          : `Invalid state ${lb.provisioning_status} of loadbalancer resource ${lb.id}`,
      );
    }
    lb.provisioning_status = op === 'delete' ? 'PENDING_DELETE' : 'PENDING_UPDATE';
    this.touch(lb);
  }

  /**
   * A change to a pool's members or health monitor: the pool must be ACTIVE (Octavia tests it before it locks
   * the load balancer), then the load balancer is locked as for any child.
   */
  lockPool(lb: LoadBalancer, pool: Pool): void {
    if (lb.provisioning_status === 'ACTIVE' && pool.provisioning_status !== 'ACTIVE') throw new SimError(409, `Pool ${pool.id} is immutable and cannot be updated.`);
    this.lock(lb, 'child');
  }

  /** After the named delay, runs `apply` (the provider's work) and settles the LB. */
  settle(lb: LoadBalancer, delay: DelayName, apply: () => void): void {
    if (this.behaviour.stuck) return;
    this.timers.get(lb.id)?.cancel();
    const timer = this.clock.after(delay, () => {
      this.timers.delete(lb.id);
      apply();
      if (this.loadbalancers.has(lb.id) && lb.provisioning_status.startsWith('PENDING_')) {
        lb.provisioning_status = 'ACTIVE';
        this.touch(lb);
      }
      this.refreshOperating(lb);
    });
    this.timers.set(lb.id, timer);
  }

  /** A child of the LB was created, changed or marked for deletion: the provider applies it after the update delay. */
  childChanged(lb: LoadBalancer): void {
    this.settle(lb, 'octavia.loadbalancer.update', () => this.finishTree(lb.id));
  }

  /** The provider finished: PENDING_DELETE children go, PENDING_CREATE/UPDATE ones become `to`. */
  finishTree(lbId: string, to: 'ACTIVE' | 'ERROR' = 'ACTIVE'): void {
    for (const h of this.healthmonitors.by('lb', lbId)) {
      if (h.provisioning_status === 'PENDING_DELETE') {
        this.healthmonitors.delete(h.id);
        const pool = this.pools.get(h.pool_id);
        if (pool?.healthmonitor_id === h.id) pool.healthmonitor_id = null;
      }
    }
    for (const m of this.members.by('lb', lbId)) if (m.provisioning_status === 'PENDING_DELETE') this.members.delete(m.id);
    for (const p of this.pools.by('lb', lbId)) if (p.provisioning_status === 'PENDING_DELETE') this.removePool(p);
    for (const l of this.listeners.by('lb', lbId)) if (l.provisioning_status === 'PENDING_DELETE') this.listeners.delete(l.id);
    this.activateTree(lbId, to);
  }

  /** Marks every PENDING_CREATE/PENDING_UPDATE object of the LB's tree `to` (but those a jobboard-less create left behind). */
  activateTree(lbId: string, to: 'ACTIVE' | 'ERROR' = 'ACTIVE'): void {
    for (const o of this.childrenOf(lbId)) {
      if (this.abandoned.has(o.id)) continue;
      if (o.provisioning_status === 'PENDING_CREATE' || o.provisioning_status === 'PENDING_UPDATE') {
        o.provisioning_status = to;
        this.touch(o);
      }
    }
  }

  /** A fully populated create without the jobboard: the load balancer settles, the objects made with it never do. */
  abandonChildren(lbId: string): void {
    for (const o of this.childrenOf(lbId)) this.abandoned.add(o.id);
  }

  /** Operating statuses as a healthy amphora reports them (spec §4.1). */
  refreshOperating(lb: LoadBalancer): void {
    if (!this.loadbalancers.has(lb.id)) return;
    const up = (o: Common, online: OperatingStatus = 'ONLINE'): OperatingStatus =>
      o.provisioning_status === 'ERROR' ? 'ERROR' : o.provisioning_status === 'PENDING_CREATE' || !o.admin_state_up ? 'OFFLINE' : online;
    lb.operating_status = up(lb);
    for (const l of this.listenersOf(lb.id)) l.operating_status = up(l);
    for (const p of this.poolsOf(lb.id)) {
      const hm = p.healthmonitor_id ? this.healthmonitors.get(p.healthmonitor_id) : undefined;
      if (hm) hm.operating_status = up(hm);
      for (const m of this.membersOf(p.id)) m.operating_status = up(m, hm ? 'ONLINE' : 'NO_MONITOR');
      p.operating_status = up(p);
    }
  }

  /** Removes an LB and everything under it, releasing the VIP port. */
  removeLb(lb: LoadBalancer): void {
    for (const o of this.childrenOf(lb.id)) this.abandoned.delete(o.id);
    for (const p of this.poolsOf(lb.id)) this.removePool(p);
    for (const l of this.listenersOf(lb.id)) this.listeners.delete(l.id);
    this.loadbalancers.delete(lb.id);
    this.timers.get(lb.id)?.cancel();
    this.timers.delete(lb.id);
    this.vip.release(lb.vip_port_id);
  }

  removePool(p: Pool): void {
    for (const m of this.membersOf(p.id)) this.members.delete(m.id);
    if (p.healthmonitor_id) this.healthmonitors.delete(p.healthmonitor_id);
    for (const l of this.listenersOfPool(p.id)) {
      l.default_pool_id = null;
      this.listeners.refile(l.id);
    }
    this.pools.delete(p.id);
  }

  // ---- audit and persistence -------------------------------------------------------------

  auditResources(): AuditResource[] {
    return KINDS.flatMap((kind) =>
      [...this.map(kind).values()].map((o) => ({ type: kind, id: o.id, project_id: o.project_id, name: o.name, tags: [...o.tags] })),
    );
  }

  snapshot(): OctaviaSnapshot {
    return {
      loadbalancers: [...this.loadbalancers.values()],
      listeners: [...this.listeners.values()],
      pools: [...this.pools.values()],
      members: [...this.members.values()],
      healthmonitors: [...this.healthmonitors.values()],
      quotas: Object.fromEntries(this.quotas),
      seq: this.seq,
    };
  }

  /**
   * Loads a snapshot. The controller finished what was pending meanwhile: PENDING_DELETE objects
   * are gone (an LB's VIP port released), the other PENDING_* ones ACTIVE.
   */
  restore(snapshot: unknown): void {
    const s = snapshot as OctaviaSnapshot;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    const load = <T extends AnyObject>(map: IndexedMap<T, OctaviaIndex>, items: T[]) => {
      map.clear();
      for (const o of items) map.set(o.id, o);
    };
    load(this.loadbalancers, s.loadbalancers);
    load(this.listeners, s.listeners);
    load(this.pools, s.pools);
    load(this.members, s.members);
    load(this.healthmonitors, s.healthmonitors);
    this.quotas.clear();
    for (const [p, q] of Object.entries(s.quotas)) this.quotas.set(p, q);
    this.seq = s.seq;
    for (const lb of [...this.loadbalancers.values()]) {
      if (lb.provisioning_status === 'PENDING_DELETE') {
        this.removeLb(lb);
        continue;
      }
      this.finishTree(lb.id);
      if (lb.provisioning_status.startsWith('PENDING_')) lb.provisioning_status = 'ACTIVE';
      this.refreshOperating(lb);
    }
  }
}
