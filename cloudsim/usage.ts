// What a project holds of each quota across the simulated services, counted the way each service counts
// it (Nova: live servers, those being deleted included; Neutron: the project's objects; Cinder: volumes
// and their sizes; Octavia: its five object kinds; Designate: recordsets per zone), and its high-water
// mark: the most of each it held at once while a watch lasted, sampled after every answered request of
// any service (what a test of a roll's peak reads).
import type { BarbicanState } from './barbican/state.js';
import type { CinderState } from './cinder/state.js';
import type { CallCounter } from './common/audit.js';
import type { DesignateState } from './designate/state.js';
import type { NeutronState } from './neutron/state.js';
import { QUOTA_RESOURCES } from './neutron/state.js';
import type { NovaState } from './nova/state.js';
import type { OctaviaState } from './octavia/state.js';

export interface ProjectUsage {
  instances: number;
  cores: number;
  ram: number;
  server_groups: number;
  /** The members of the project's largest server group (Nova's limit is per group). */
  server_group_members: number;
  volumes: number;
  gigabytes: number;
  network: number;
  subnet: number;
  router: number;
  port: number;
  floatingip: number;
  security_group: number;
  security_group_rule: number;
  load_balancer: number;
  listener: number;
  pool: number;
  member: number;
  health_monitor: number;
  /** The recordsets of the project's fullest zone (Designate's limit is per zone), its SOA and NS included. */
  zone_recordsets: number;
  secrets: number;
}

export interface UsageStates {
  nova: NovaState;
  neutron: NeutronState;
  cinder: CinderState;
  octavia: OctaviaState;
  designate: DesignateState;
  barbican: BarbicanState;
}

export function projectUsage(s: UsageStates, projectId: string): ProjectUsage {
  const nova = s.nova.usage(projectId);
  const groups = s.nova.serverGroups.by('project', projectId);
  const volumes = s.cinder.usage(projectId);
  const octavia = (m: { count(index: 'project', key: string): number }) => m.count('project', projectId);
  const zones = s.designate.zones.by('project', projectId);
  const neutron = Object.fromEntries(QUOTA_RESOURCES.map((r) => [r, s.neutron.usage(projectId, r)])) as Record<(typeof QUOTA_RESOURCES)[number], number>;
  return {
    instances: nova.instances,
    cores: nova.cores,
    ram: nova.ram,
    server_groups: nova.server_groups,
    server_group_members: Math.max(0, ...groups.map((g) => g.members.length)),
    volumes: volumes.volumes,
    gigabytes: volumes.gigabytes,
    ...neutron,
    load_balancer: octavia(s.octavia.loadbalancers),
    listener: octavia(s.octavia.listeners),
    pool: octavia(s.octavia.pools),
    member: octavia(s.octavia.members),
    health_monitor: octavia(s.octavia.healthmonitors),
    zone_recordsets: Math.max(0, ...zones.map((z) => s.designate.recordsetsOf(z.id).length)),
    secrets: s.barbican.secrets.count('project', projectId),
  };
}

export interface UsageWatch {
  /** The most of each quota the project held at once since the watch began. */
  peak(): ProjectUsage;
  stop(): void;
}

/** Samples the project's usage now and after every request any of `counters` answers, keeping each quota's maximum. */
export function watchUsage(s: UsageStates, counters: readonly CallCounter[], projectId: string): UsageWatch {
  const peak = projectUsage(s, projectId);
  const sample = () => {
    const now = projectUsage(s, projectId);
    for (const k of Object.keys(peak) as (keyof ProjectUsage)[]) peak[k] = Math.max(peak[k], now[k]);
  };
  const stops = counters.map((c) => c.onAnswered(sample));
  return {
    peak: () => {
      sample();
      return { ...peak };
    },
    stop: () => stops.forEach((stop) => stop()),
  };
}
