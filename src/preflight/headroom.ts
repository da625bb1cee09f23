// What the project uses and may use of each quota a bill needs, asked of the services that keep them with
// the caller's token: Nova's absolute limits, Neutron's quota details, Cinder's limits, Octavia's quota
// (its usage counted from the project's load balancers, listeners, pools and their members, health
// monitors), Designate's quotas (recordsets per zone, counted in the API's zone). A service the bill
// does not need is not asked; one not in the catalog, or without the quota call (404), is not checked.
import type { QuotaName, Usage } from './quotas.js';
import type { CallerCloud, CloudCaller } from '../openstack/caller.js';
import { errors } from '../domain/errors.js';
import { LB_ROLE, observerOnly } from './lb-role.js';
import { isForbidden } from '../openstack/errors.js';
import { isNotFound } from '../openstack/http.js';
import type { Headroom, Headrooms } from './assess.js';

const NEUTRON = ['network', 'subnet', 'router', 'port', 'floatingip', 'security_group', 'security_group_rule'] as const;

/** A load balancer (the API's, master_lb_enabled) by a user Octavia's role-based policy will not let make one. */
const lbRoleMissing = (project: string) => errors.cloudRoleMissing('load-balancer', LB_ROLE, 'a load balancer (master_lb_enabled)', project);

/** What a limit leaves, or undefined when the service does not report that limit. */
const headroom = (limit: number | undefined, used: number | undefined): Headroom | undefined => (limit === undefined ? undefined : { limit, used: used ?? 0 });

export async function projectHeadroom(who: CloudCaller, cloud: CallerCloud, needs: Usage, dnsZone: string | null): Promise<Headrooms> {
  const project = who.ctx.projectId ?? '';
  const out: Headrooms = {};
  const put = (k: QuotaName, h: Headroom | undefined) => {
    if (h) out[k] = h;
  };
  const needed = (...keys: QuotaName[]) => keys.some((k) => needs[k] > 0);
  const when = (type: string, keys: QuotaName[], read: () => Promise<void>) =>
    cloud.offers(type) && needed(...keys)
      ? read().catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        })
      : undefined;
  await Promise.all([
    when('compute', ['instances', 'cores', 'ram', 'server_groups', 'server_group_members'], async () => {
      const a = await cloud.novaResources().limits();
      put('instances', headroom(a.maxTotalInstances, a.totalInstancesUsed));
      put('cores', headroom(a.maxTotalCores, a.totalCoresUsed));
      put('ram', headroom(a.maxTotalRAMSize, a.totalRAMUsed));
      put('server_groups', headroom(a.maxServerGroups, a.totalServerGroupsUsed));
      // A limit per group; the bill needs the largest group's size.
      put('server_group_members', headroom(a.maxServerGroupMembers, 0));
    }),
    when('network', [...NEUTRON], async () => {
      const quota = await cloud.neutron().quotaDetails(project);
      for (const k of NEUTRON) {
        const q = quota[k];
        if (q) put(k, { limit: q.limit, used: q.used + (q.reserved ?? 0) });
      }
    }),
    when('block-storage', ['volumes', 'gigabytes'], async () => {
      const a = await cloud.cinder().limits();
      put('volumes', headroom(a.maxTotalVolumes, a.totalVolumesUsed));
      put('gigabytes', headroom(a.maxTotalVolumeGigabytes, a.totalGigabytesUsed));
    }),
    when('load-balancer', ['load_balancer', 'listener', 'pool', 'member', 'health_monitor'], async () => {
      const o = cloud.octavia();
      const mine = { project_id: project };
      const [quota, lbs, listeners, pools, monitors] = await Promise.all([
        o.quota(project),
        o.listLoadBalancers(mine),
        o.listeners.list(mine),
        o.pools.list(mine),
        o.healthMonitors.list(mine),
      ]).catch((e: unknown) => {
        // Octavia's shipped policy: reads need a load-balancer_* role, and making one load-balancer_member.
        throw isForbidden(e) ? lbRoleMissing(project) : e;
      });
      // Reads allowed by a role-based policy to an observer, who may not make a load balancer.
      if (observerOnly(who.ctx.roles)) throw lbRoleMissing(project);
      const members = pools.reduce((n, p) => n + (p.members?.length ?? 0), 0);
      put('load_balancer', headroom(quota.load_balancer ?? undefined, lbs.length));
      put('listener', headroom(quota.listener ?? undefined, listeners.length));
      put('pool', headroom(quota.pool ?? undefined, pools.length));
      put('member', headroom(quota.member ?? undefined, members));
      put('health_monitor', headroom(quota.health_monitor ?? undefined, monitors.length));
    }),
    dnsZone
      ? when('dns', ['zone_recordsets'], async () => {
          const d = cloud.designate();
          const zone = (await d.listZones({ name: dnsZone })).find((z) => z.name?.toLowerCase() === dnsZone.toLowerCase());
          // A zone the project does not have fails the create's DNS step, with its reason; no quota to weigh.
          if (!zone?.id) return;
          const [quotas, records] = await Promise.all([d.quotas(project), d.listRecordsets(zone.id)]);
          put('zone_recordsets', headroom(quotas.zone_recordsets, records.length));
        })
      : undefined,
  ]);
  return out;
}
