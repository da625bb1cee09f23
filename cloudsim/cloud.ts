// The simulated cloud behind a Keystone: Glance, Nova, Neutron, Octavia, Cinder, Designate, Manila and Barbican
// listening on one host, each validating tokens against that Keystone and registered in its catalog,
// plus the simulator's admin API (audit, call counters, fault rules, state file). The Keystone is the
// emulator (its state is read directly) or an external one (see external-identity.ts).
// The cloud starts from the seed file, or from a saved state file when one exists.
import type { FastifyInstance } from 'fastify';
import { createAdminSim, type AdminSim } from './admin/index.js';
import { auditCloud, callsOf, type CloudAudit } from './audit.js';
import { projectUsage, watchUsage, type ProjectUsage, type UsageWatch } from './usage.js';
import { createBarbicanSim, type BarbicanSim } from './barbican/index.js';
import { createCinderSim, type CinderSim } from './cinder/index.js';
import type { CallCounter } from './common/audit.js';
import { SimClock, type SimClockOptions } from './common/clock.js';
import type { FaultConfig } from './common/fault-config.js';
import type { Faults } from './common/faults.js';
import type { ServiceCredentials } from './common/keystone-auth.js';
import { callCounter } from './common/service-app.js';
import { createDesignateSim, type DesignateSim, type DnsQuota } from './designate/index.js';
import { createGlanceSim, type GlanceSim } from './glance/index.js';
import type { KeystoneSim } from './keystone/index.js';
import { KubeSim } from './kube/index.js';
import { createManilaSim, type ManilaSim } from './manila/index.js';
import { createNeutronSim, type NeutronSim } from './neutron/index.js';
import type { BootReport } from './nova/boot-log.js';
import { createNovaSim, type NovaSim } from './nova/index.js';
import { zonesOf } from './nova/hosts.js';
import { NeutronVipAllocator } from './neutron/vip.js';
import { createOctaviaSim, type OctaviaSim, type Quota as LbQuota } from './octavia/index.js';
import { readSnapshot, restoreCloud, snapshotCloud, StateSaver, type CloudSnapshot } from './persistence.js';
import { defaultSeed, seedFlavors, seedImages, seedNetworkQuotas, seedNetworks, type CloudSeed } from './seed.js';

export const SERVICES = ['glance', 'nova', 'neutron', 'octavia', 'cinder', 'designate', 'manila', 'barbican'] as const;
export type ServiceName = (typeof SERVICES)[number];
/** The catalog's service name of each service type. */
const CATALOG_NAMES = { image: 'glance', compute: 'nova', network: 'neutron', 'load-balancer': 'octavia', 'block-storage': 'cinderv3', dns: 'designate', sharev2: 'manilav2', 'key-manager': 'barbican', 'cloudsim-admin': 'cloudsim' } as const;

/** What the cloud needs from its Keystone besides token validation. */
export interface CloudIdentity {
  /** Project ids by name, in the default domain. */
  projects(): Promise<Record<string, string>>;
  /** The name of a project, for the audit; undefined when not known (yet). */
  projectName(id: string): string | undefined;
  /** Makes `url` the public and internal endpoint of the service type, replacing ones that point elsewhere. */
  registerEndpoint(type: string, name: string, url: string): Promise<void>;
}

/** The emulator's state as the identity: read and written in process. */
export function emulatorIdentity(keystone: KeystoneSim): CloudIdentity {
  const state = keystone.state;
  return {
    projects: async () =>
      Object.fromEntries([...state.projects.values()].filter((p) => p.domainId === 'default').map((p) => [p.name, p.id])),
    projectName: (id) => state.projects.get(id)?.name,
    registerEndpoint: async (type, name, url) => {
      state.catalog.upsert({ type, name, url });
    },
  };
}

export interface CloudSimOptions {
  /** The Keystone emulator; its state is saved with the cloud's. Give this or `identity`. */
  keystone?: KeystoneSim;
  /** An external Keystone (externalIdentity()); used when `keystone` is absent. */
  identity?: CloudIdentity;
  /** The Keystone v3 URL the services validate tokens at (…/v3). */
  authUrl: string;
  /** The services' own Keystone user (needs the service or admin role to validate tokens). */
  credentials: ServiceCredentials;
  host: string;
  /** The host advertised in the catalog (default: host). */
  publicHost?: string;
  /** 0 (any free port) when absent. */
  ports?: Partial<Record<ServiceName | 'admin', number>>;
  /** Timing of the asynchronous transitions (timeScale, seed, delays); realistic and randomly seeded when absent. */
  clock?: SimClockOptions;
  /** The starting contents; the shipped seed file (cloudsim/seed.yaml) when absent. */
  seed?: CloudSeed;
  /** Fault rules active from the start, by service. */
  faults?: FaultConfig;
  /** Keep the cloud (the emulator's Keystone included) in this file: loaded at start when present, saved every `intervalMs` (default 30 s) and on close. */
  persist?: { file: string; intervalMs?: number; log?: (message: string) => void };
}

export interface CloudSims {
  glance: GlanceSim;
  nova: NovaSim;
  neutron: NeutronSim;
  octavia: OctaviaSim;
  cinder: CinderSim;
  designate: DesignateSim;
  manila: ManilaSim;
  barbican: BarbicanSim;
  admin: AdminSim;
  /** The simulated Kubernetes API of each cluster booted with kubeadm user-data (cloudsim/kube). */
  kube: KubeSim;
  /** The clock every service's delays and fault draws come from (its seed replays a run); closed by close(). */
  clock: SimClock;
  /** The catalog URLs, by service type (block-storage still holds its %(project_id)s placeholder). */
  urls: {
    image: string;
    compute: string;
    network: string;
    'load-balancer': string;
    'block-storage': string;
    dns: string;
    sharev2: string;
    'key-manager': string;
    'cloudsim-admin': string;
  };
  /** Each service's fault rules. */
  faults: Record<ServiceName, Faults>;
  /** Every live resource, by owning project (only `projectId`'s when given). */
  audit(projectId?: string): CloudAudit;
  /** What the project holds now of each quota, as the services count it. */
  usage(projectId: string): ProjectUsage;
  /** The project's high-water mark of each quota from now on, sampled after every answered request. */
  watchUsage(projectId: string): UsageWatch;
  /** Calls per operation since the start (or the last reset), keyed like 'nova POST /servers'. */
  calls(): Record<string, number>;
  resetCalls(): void;
  /** Servers Nova booted, and the names booted more than once (duplicate boots), by project. */
  boots(projectId?: string): BootReport;
  /** The whole cloud as the state file holds it. */
  snapshot(): CloudSnapshot;
  /** True when the cloud was loaded from the state file rather than seeded. */
  restored: boolean;
  close(): Promise<void>;
}

/** Default quotas given as data (seed file) onto a state's typed defaults, known keys only. */
function withDefaults<T extends object>(defaults: T, given: Record<string, number> | undefined): T {
  const out = { ...defaults };
  for (const [k, v] of Object.entries(given ?? {})) if (k in out) (out as Record<string, number>)[k] = v;
  return out;
}

export async function startCloudSims(opts: CloudSimOptions): Promise<CloudSims> {
  const identity = opts.keystone ? emulatorIdentity(opts.keystone) : opts.identity;
  if (!identity) throw new Error('startCloudSims needs the Keystone emulator or an external identity');
  const saved = opts.persist ? readSnapshot(opts.persist.file) : undefined;
  if (opts.keystone && saved?.services.keystone !== undefined) opts.keystone.state.restore(saved.services.keystone);
  // With the emulator in this process the services ask it in process (the same validation, no HTTP hop per call).
  const keystone = { authUrl: opts.authUrl, credentials: opts.credentials, ...(opts.keystone ? { inProcess: opts.keystone.callerOf } : {}) };
  const projects = await identity.projects();
  const seed = opts.seed ?? defaultSeed();
  const quotas = seed.quotas ?? {};
  const clock = new SimClock(opts.clock);
  const glance = createGlanceSim({ keystone, projects, seed: false });
  const neutron = createNeutronSim({ keystone, projects, seed: false });
  const octavia = createOctaviaSim({ keystone, clock: clock.fork('octavia'), vip: new NeutronVipAllocator(neutron.state) });
  const cinder = createCinderSim({ keystone, clock: clock.fork('cinder') });
  const designate = createDesignateSim({ keystone, clock: clock.fork('designate') });
  const manila = createManilaSim({ keystone, clock: clock.fork('manila') });
  const barbican = createBarbicanSim({ keystone });
  const nova = createNovaSim({ keystone, clock: clock.fork('nova'), glance: glance.state, neutron: neutron.state, cinder: cinder.state });
  const kube = new KubeSim({
    states: { glance: glance.state, nova: nova.state, neutron: neutron.state, octavia: octavia.state },
    clock: clock.fork('kube'),
    listen: { host: opts.host, advertised: opts.publicHost ?? opts.host },
  });
  nova.state.hooks.serverChanged = (s) => kube.serverChanged(s);

  // Default quotas are configuration: from the seed file, also for a restored cloud.
  seedNetworkQuotas(neutron.state, quotas.network);
  octavia.state.defaultQuota = withDefaults<LbQuota>(octavia.state.defaultQuota, quotas['load-balancer']);
  cinder.state.defaultQuota = withDefaults(cinder.state.defaultQuota, quotas['block-storage']);
  designate.state.defaultQuota = withDefaults<DnsQuota>(designate.state.defaultQuota, quotas.dns);
  nova.state.defaultQuota = withDefaults(nova.state.defaultQuota, quotas.compute);
  // So are the availability zones and their hosts.
  if (seed.availability_zones) {
    nova.state.behaviour.zones = zonesOf(seed.availability_zones);
    cinder.state.zones = seed.availability_zones.map((z) => z.name);
  }
  if (seed.cross_az_attach !== undefined) nova.state.behaviour.crossAzAttach = seed.cross_az_attach;
  if (seed.octavia_policy !== undefined) octavia.state.behaviour.policy = seed.octavia_policy;
  if (seed.octavia_jobboard !== undefined) octavia.state.behaviour.jobboard = seed.octavia_jobboard;

  // Neutron before Octavia: restoring an LB being deleted releases its VIP port.
  // The simulated clusters after Nova: they follow its restored servers.
  const services = { glance: glance.state, nova: nova.state, neutron: neutron.state, octavia: octavia.state, cinder: cinder.state, designate: designate.state, manila: manila.state, barbican: barbican.state, kube };
  const states = opts.keystone ? { keystone: opts.keystone.state, ...services } : services;
  const restored = saved ? restoreCloud(services, saved) : new Set<string>();
  if (saved) kube.resume();
  if (!restored.has('glance')) seedImages(glance.state, seed.images, projects);
  if (!restored.has('neutron')) seedNetworks(neutron.state, seed.networks, projects);
  if (!restored.has('nova')) {
    // Nova's own seed gives way to the seed file.
    nova.state.flavors.clear();
    seedFlavors(nova.state, seed.flavors);
  }

  const apps: Record<ServiceName, { app: FastifyInstance; state: { faults: Faults } }> = { glance, nova, neutron, octavia, cinder, designate, manila, barbican };
  const faults = Object.fromEntries(SERVICES.map((s) => [s, apps[s].state.faults])) as Record<ServiceName, Faults>;
  for (const s of SERVICES) {
    faults[s].useRandom(clock.fork(`faults.${s}`).random);
    for (const rule of opts.faults?.[s] ?? []) faults[s].add(rule);
  }
  const counters = Object.fromEntries(SERVICES.map((s) => [s, callCounter(apps[s].app)])) as Record<ServiceName, CallCounter>;
  const projectName = (id: string) => identity.projectName(id);
  const snapshot = () => snapshotCloud(states);
  const saver = opts.persist ? new StateSaver(opts.persist.file, snapshot, opts.persist.intervalMs ?? 30_000, opts.persist.log) : undefined;
  const usageStates = { nova: nova.state, neutron: neutron.state, cinder: cinder.state, octavia: octavia.state, designate: designate.state, barbican: barbican.state };
  const cloud = {
    audit: (projectId?: string) => auditCloud(states, projectName, projectId),
    usage: (projectId: string) => projectUsage(usageStates, projectId),
    watchUsage: (projectId: string) => watchUsage(usageStates, Object.values(counters), projectId),
    calls: () => callsOf(counters),
    resetCalls: () => Object.values(counters).forEach((c) => c.reset()),
    boots: (projectId?: string) => nova.state.boots.report(projectId),
    faults,
    snapshot,
  };
  const admin = createAdminSim({
    keystone,
    target: {
      ...cloud,
      kube,
      save: () => {
        saver?.save();
        return saver !== undefined;
      },
    },
  });

  const started: FastifyInstance[] = [];
  const close = async (save = true) => {
    await Promise.all(started.map((app) => app.close()));
    // Apps never started still own timers only once used; close their state too.
    octavia.state.close();
    cinder.state.close();
    designate.state.close();
    manila.state.close();
    nova.state.close();
    await kube.close();
    clock.close();
    saver?.stop(save);
  };
  const listen = async (app: FastifyInstance, port: number | undefined) => {
    const address = await app.listen({ host: opts.host, port: port ?? 0 });
    started.push(app);
    return opts.publicHost ? `http://${opts.publicHost}:${new URL(address).port}` : address;
  };
  try {
    const urls = {
      image: await listen(glance.app, opts.ports?.glance),
      compute: `${await listen(nova.app, opts.ports?.nova)}/v2.1`,
      network: await listen(neutron.app, opts.ports?.neutron),
      'load-balancer': await listen(octavia.app, opts.ports?.octavia),
      'block-storage': `${await listen(cinder.app, opts.ports?.cinder)}/v3/%(project_id)s`,
      dns: await listen(designate.app, opts.ports?.designate),
      sharev2: `${await listen(manila.app, opts.ports?.manila)}/v2`,
      'key-manager': await listen(barbican.app, opts.ports?.barbican),
      'cloudsim-admin': `${await listen(admin.app, opts.ports?.admin)}/v1`,
    };
    for (const [type, name] of Object.entries(CATALOG_NAMES)) await identity.registerEndpoint(type, name, urls[type as keyof CloudSims['urls']]);
    // Cinder also under its older type, as devstack registers it: Horizon and cinderclient look for volumev3.
    await identity.registerEndpoint('volumev3', 'cinderv3', urls['block-storage']);
    return { glance, nova, neutron, octavia, cinder, designate, manila, barbican, admin, kube, clock, urls, ...cloud, restored: saved !== undefined, close: () => close() };
  } catch (e) {
    // Nothing ran: the state file keeps what it had.
    await close(false);
    throw e;
  }
}
