// Nova's resources, in memory: flavors, servers (with their timed lifecycle, see lifecycle.ts),
// keypairs, server groups and quotas, plus the other services Nova talks to (backends.ts). The
// routes enforce the API rules; tests and the seed may add flavors here directly.
import type { AuditResource } from '../common/audit.js';
import { SimClock, type SimTimer } from '../common/clock.js';
import { Faults } from '../common/faults.js';
import { IndexedMap } from '../common/indexed-map.js';
import { ConsoleLogs } from './console-log.js';
import { BootLog } from './boot-log.js';
import { anyImage, LocalNetworking, type NovaImages, type NovaNetworking, type NovaVolumes } from './backends.js';
import { DEFAULT_ZONES, type ComputeZone } from './hosts.js';
import type { Keypair } from './keypairs.js';
import { resume } from './lifecycle.js';
import { QUOTA_DEFAULTS, type NovaQuota, type QuotaUsage } from './quota.js';
import type { ServerGroup } from './server-groups.js';
import type { Server } from './servers.js';

export interface Flavor {
  /** The flavor id users see (Nova's flavorid): any string, usually short digits. */
  id: string;
  name: string;
  vcpus: number;
  /** MiB. */
  ram: number;
  /** GiB. */
  disk: number;
  ephemeral: number;
  /** MiB; 0 = none. */
  swap: number;
  rxtx_factor: number;
  isPublic: boolean;
  disabled: boolean;
  description: string | null;
  extraSpecs: Record<string, string>;
  /** Projects allowed to use a non-public flavor. */
  projects: string[];
  /** Epoch ms; sort key `created_at`. */
  createdAt: number;
}

export type NewFlavor = Partial<Flavor> & Pick<Flavor, 'id' | 'name' | 'vcpus' | 'ram' | 'disk'>;

export interface NovaBehaviour {
  /** Fraction of builds that end in ERROR with "No valid host was found" (drawn from the seeded stream). */
  bootErrorFraction: number;
  /** Never settle: servers stay BUILD, or deleting, forever. */
  stuck: boolean;
  /**
   * The availability zones servers may ask for, with the compute hosts the scheduler places servers on
   * (anti-affinity needs one per member); the first is the default zone (see hosts.ts).
   */
  zones: ComputeZone[];
  /**
   * nova.conf [cinder] cross_az_attach (Nova's default true): a server may use volumes of any zone, and the
   * volumes Nova makes for it (boot from volume) go to Cinder's default zone. False: they go to the server's
   * zone, its volumes must all be in its zone (a server asking for no zone is placed in theirs), and an
   * attach across zones is refused.
   */
  crossAzAttach: boolean;
}

/** A rule sending matching builds to ERROR (spec §8.13); the oldest matching rule wins. */
export interface BuildFailure {
  /** Only servers whose name contains this string or matches this pattern (any when absent). */
  name?: string | RegExp;
  /** The fault message; Nova's NoValidHost text by default. */
  message?: string;
  /** How many builds the rule fails before it goes away; unlimited when absent. */
  times?: number;
}

/** Who follows the life of servers (the simulated Kubernetes plays the servers' side). */
export interface NovaHooks {
  /** A server became ACTIVE, started deleting, was deleted or went to ERROR. */
  serverChanged?(s: Server): void;
}

export interface NovaStateOptions {
  clock?: SimClock;
  hooks?: NovaHooks;
  behaviour?: Partial<NovaBehaviour>;
  defaultQuota?: Partial<NovaQuota>;
  networking?: NovaNetworking;
  images?: NovaImages;
  volumes?: NovaVolumes;
}

/** What `snapshot()` writes down (plain JSON). */
export interface NovaSnapshot {
  flavors: Flavor[];
  servers: Server[];
  keypairs: Keypair[];
  serverGroups: ServerGroup[];
  quotas: Record<string, Partial<NovaQuota>>;
  seq: number;
  /** Console logs of the live servers (absent in snapshots older than them). */
  consoles?: Record<string, string[]>;
}

/** How long a deleted server stays listable with changes-since (real-world ms). */
const TOMBSTONE_MS = 3_600_000;

/** The key of a server in the `projectName` index. */
export const projectName = (projectId: string, name: string): string => `${projectId}|${name}`;

export class NovaState {
  readonly flavors = new Map<string, Flavor>();
  /** `deleted`: the tombstones (vm_state deleted), in the order they were deleted. */
  readonly servers = new IndexedMap<Server, 'project' | 'projectName' | 'tag' | 'reservation' | 'deleted'>({
    project: (s) => s.projectId,
    projectName: (s) => projectName(s.projectId, s.name),
    tag: (s) => s.tags,
    reservation: (s) => s.reservationId,
    deleted: (s) => (s.vmState === 'deleted' ? 'yes' : null),
  });
  /** By `${userId}/${name}`. */
  readonly keypairs = new IndexedMap<Keypair, 'user'>({ user: (k) => k.userId });
  readonly serverGroups = new IndexedMap<ServerGroup, 'project'>({ project: (g) => g.projectId });
  readonly quotas = new Map<string, Partial<NovaQuota>>();
  readonly faults = new Faults();
  /** What the guests wrote to their consoles. */
  readonly consoles = new ConsoleLogs();
  /** Every boot by project and name (not in the state file): GET /v1/boots of the admin API. */
  readonly boots = new BootLog();
  readonly clock: SimClock;
  readonly behaviour: NovaBehaviour;
  readonly networking: NovaNetworking;
  readonly images: NovaImages;
  readonly volumes: NovaVolumes | undefined;
  readonly hooks: NovaHooks;
  defaultQuota: NovaQuota;
  /** [api] max_limit: the largest page, also the page size when no limit is asked. */
  maxLimit = 1000;
  private buildFailures: BuildFailure[] = [];
  private readonly timers = new Map<string, SimTimer>();
  private seq = 0;

  constructor(opts: NovaStateOptions = {}) {
    this.clock = opts.clock ?? new SimClock();
    this.behaviour = {
      bootErrorFraction: 0,
      stuck: false,
      zones: DEFAULT_ZONES,
      crossAzAttach: true,
      ...opts.behaviour,
    };
    this.defaultQuota = { ...QUOTA_DEFAULTS, ...opts.defaultQuota };
    this.networking = opts.networking ?? new LocalNetworking();
    this.images = opts.images ?? anyImage;
    this.volumes = opts.volumes;
    this.hooks = opts.hooks ?? {};
  }

  /** Tells the hooks a server's life changed; their failures never disturb Nova. */
  notify(s: Server): void {
    try {
      this.hooks.serverChanged?.(s);
    } catch {
      // a hook's own problem
    }
  }

  addFlavor(input: NewFlavor): Flavor {
    if (this.flavors.has(input.id)) throw new Error(`nova sim: flavor ${input.id} exists`);
    const flavor: Flavor = {
      ephemeral: 0,
      swap: 0,
      rxtx_factor: 1.0,
      isPublic: true,
      disabled: false,
      description: null,
      extraSpecs: {},
      projects: [],
      createdAt: Date.now(),
      ...input,
    };
    this.flavors.set(flavor.id, flavor);
    return flavor;
  }

  removeFlavor(id: string): void {
    this.flavors.delete(id);
  }

  nextSeq(): number {
    return ++this.seq;
  }

  /** Runs `fn` after `delay` (a named distribution, or real-world ms), replacing the server's pending transition. */
  arm(serverId: string, delay: string | number, fn: () => void): void {
    this.timers.get(serverId)?.cancel();
    this.timers.set(
      serverId,
      this.clock.after(delay, () => {
        this.timers.delete(serverId);
        fn();
      }),
    );
  }

  disarm(serverId: string): void {
    this.timers.get(serverId)?.cancel();
    this.timers.delete(serverId);
  }

  close(): void {
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.clock.close();
  }

  /** Sends matching builds to ERROR; returns a function removing the rule. */
  failBuilds(rule: BuildFailure = {}): () => void {
    const copy = { ...rule };
    this.buildFailures.push(copy);
    return () => {
      this.buildFailures = this.buildFailures.filter((r) => r !== copy);
    };
  }

  /** The rule (counted as used) failing this build, if any. */
  takeBuildFailure(name: string): BuildFailure | undefined {
    const rule = this.buildFailures.find((r) => r.name === undefined || (typeof r.name === 'string' ? name.includes(r.name) : r.name.test(name)));
    if (rule?.times !== undefined && --rule.times <= 0) this.buildFailures = this.buildFailures.filter((r) => r !== rule);
    return rule;
  }

  quotaOf(projectId: string): NovaQuota {
    return { ...this.defaultQuota, ...this.quotas.get(projectId) };
  }

  setQuota(projectId: string, quota: Partial<NovaQuota>): void {
    this.quotas.set(projectId, { ...this.quotas.get(projectId), ...quota });
  }

  /** Servers not deleted yet (those being deleted still count). */
  liveServers(): Server[] {
    return [...this.servers.values()].filter((s) => s.vmState !== 'deleted');
  }

  usage(projectId: string, userId?: string): QuotaUsage {
    const mine = this.servers.by('project', projectId).filter((s) => s.vmState !== 'deleted');
    return {
      instances: mine.length,
      cores: mine.reduce((n, s) => n + s.flavor.vcpus, 0),
      ram: mine.reduce((n, s) => n + s.flavor.ram, 0),
      server_groups: this.serverGroups.count('project', projectId),
      key_pairs: userId === undefined ? 0 : this.keypairs.count('user', userId),
    };
  }

  keypairsOf(userId: string): Keypair[] {
    return this.keypairs.by('user', userId).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Live servers of a project with this name (those being deleted included). */
  serversNamed(projectId: string, name: string): Server[] {
    return this.servers.by('projectName', projectName(projectId, name)).filter((s) => s.vmState !== 'deleted');
  }

  /** Drops deleted servers older than an hour of simulated time (they only served changes-since), the oldest first. */
  purgeTombstones(): void {
    const horizon = this.clock.now() - TOMBSTONE_MS * Math.max(this.clock.timeScale, 0.001);
    const old: string[] = [];
    for (const id of this.servers.ids('deleted', 'yes')) {
      if ((this.servers.get(id)!.terminatedAt ?? 0) >= horizon) break;
      old.push(id);
    }
    for (const id of old) {
      this.servers.delete(id);
      this.consoles.forget(id);
    }
  }

  /** Live servers, keypairs and server groups, for the cross-service audit. */
  auditResources(): AuditResource[] {
    return [
      ...this.liveServers().map((s) => ({ type: 'server', id: s.id, project_id: s.projectId, name: s.name, tags: [...s.tags] })),
      ...[...this.keypairs.values()].map((k) => ({ type: 'keypair', id: k.name, project_id: k.projectId, name: k.name })),
      ...[...this.serverGroups.values()].map((g) => ({ type: 'server_group', id: g.id, project_id: g.projectId, name: g.name })),
    ];
  }

  snapshot(): NovaSnapshot {
    return structuredClone({
      flavors: [...this.flavors.values()],
      servers: this.liveServers(),
      keypairs: [...this.keypairs.values()],
      serverGroups: [...this.serverGroups.values()],
      quotas: Object.fromEntries(this.quotas),
      seq: this.seq,
      consoles: this.consoles.snapshot(),
    });
  }

  /** Loads a snapshot; builds and deletes under way then carry on from where they were. */
  restore(snapshot: unknown): void {
    const s = structuredClone(snapshot as NovaSnapshot);
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    for (const m of [this.flavors, this.servers, this.keypairs, this.serverGroups, this.quotas]) m.clear();
    for (const f of s.flavors) this.flavors.set(f.id, f);
    for (const v of s.servers) this.servers.set(v.id, v);
    for (const k of s.keypairs) this.keypairs.set(`${k.userId}/${k.name}`, k);
    for (const g of s.serverGroups) this.serverGroups.set(g.id, g);
    for (const [p, q] of Object.entries(s.quotas)) this.quotas.set(p, q);
    this.seq = s.seq;
    this.consoles.restore(s.consoles);
    for (const v of this.servers.values()) resume(this, v);
  }
}
