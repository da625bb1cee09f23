// The delete's load balancers (§4.2): the API's, tagged, and those cloud-provider-openstack made for the
// cluster's Services and Ingresses, asked of Octavia by the cluster's subnet (their VIP's) and known by their
// description, never by listing the project's all. The floating IPs OCCM made (on their VIPs, or on no port any
// more) are written into the ledger before the load balancers go (their ports go with them), so the floating-IP
// purge finds them by record.
import type { LoadBalancer } from '../../src/openstack/octavia.js';
import { clusterNet } from '../../src/steps/context.js';
import { isForbidden } from '../../src/openstack/errors.js';
import { purge } from '../../src/steps/ensure.js';
import { StepFailure } from '../../src/steps/errors.js';
import { clusterTag } from '../../src/steps/naming.js';
import type { RunContext, Step } from '../../src/steps/step.js';
import { occmFloatingIp } from './floating-ips.js';

/**
 * The descriptions cloud-provider-openstack gives the load balancers of a cluster (--cluster-name = our uuid):
 * OCCM's "Kubernetes external service <ns>/<name> from cluster <c>", octavia-ingress-controller's "Kubernetes
 * ingress <name> in namespace <ns> from cluster <c>", which it rewrites as "Kubernetes Ingress … from cluster <c>,
 * version: <resourceVersion>" once the Ingress is served.
 */
export const occmLoadBalancer = (uuid: string): RegExp =>
  new RegExp(`^Kubernetes (external service \\S+/\\S+|[Ii]ngress \\S+ in namespace \\S+) from cluster ${uuid}(, version: \\S+)?$`);

/** The ledger's floating-IP rows of those the cloud provider made (named so, apart from the API's and the nodes'). */
export const PROVIDER_FIP = 'cloud-provider';

/** The subnets the cluster's nodes (and so OCCM's VIPs) are on: the one it made (the ledger), else the fixed one. */
async function clusterSubnets(ctx: RunContext): Promise<string[]> {
  const rows = await ctx.ledger.live('subnet');
  if (rows.length > 0) return rows.map((r) => r.cloud_id);
  if (!ctx.cluster.fixed_subnet && !ctx.cluster.fixed_network) return [];
  try {
    return [(await clusterNet(ctx)).subnetId];
  } catch (e) {
    // No subnet any more: no VIP on it either.
    if (e instanceof StepFailure && e.reason === 'NotFound') return [];
    throw e;
  }
}

/**
 * The floating IPs the cloud provider made for the cluster, recorded: those on these load balancers' VIPs (asked of
 * Neutron by their ports, one call), and those on no port any more (`status=DOWN`: detached from their VIP, or kept
 * when their Service went, with OCCM's keep-floatingip annotation), known by the description OCCM gave them.
 */
async function recordProviderFloatingIps(ctx: RunContext, lbs: LoadBalancer[]): Promise<void> {
  const n = await ctx.cloud().neutron();
  const theirs = occmFloatingIp(ctx.cluster.uuid);
  const ports = lbs.flatMap((lb) => (lb.vip_port_id ? [lb.vip_port_id] : []));
  // The ones on no port are asked for once per operation: the purge runs again while its load balancers go.
  const [onVips, detached] = await Promise.all([
    ports.length > 0 ? n.floatingIps.list({ port_id: ports }) : [],
    ctx.memoRuns('provider-floating-ips-on-no-port', () => n.floatingIps.list({ status: 'DOWN' })),
  ]);
  const seen = new Set<string>();
  for (const f of [...onVips, ...detached]) {
    if (seen.has(f.id) || !theirs.test(f.description ?? '')) continue;
    seen.add(f.id);
    await ctx.ledger.record({ service: 'network', type: 'floatingip', cloudId: f.id, name: PROVIDER_FIP, step: 'load_balancers' });
  }
}

/** Delete: the API load balancer and those OCCM made for the cluster's Services and Ingresses, their children by cascade. */
export const purgeLoadBalancers: Step = {
  name: 'load_balancers',
  run: (ctx) =>
    purge(ctx, {
      service: 'load-balancer', type: 'loadbalancer', noun: 'load balancer', children: ['listener', 'pool', 'healthmonitor'],
      client: (cloud) => cloud.octavia(),
      async find(o) {
        const uuid = ctx.cluster.uuid;
        const occm = occmLoadBalancer(uuid);
        let found: LoadBalancer[];
        let theirs: LoadBalancer[] = [];
        try {
          found = await o.listLoadBalancers({ tags: clusterTag(uuid) });
          for (const subnet of await clusterSubnets(ctx)) {
            theirs = theirs.concat((await o.listLoadBalancers({ vip_subnet_id: subnet })).filter((lb) => occm.test(lb.description ?? '')));
          }
        } catch (e) {
          // Octavia's shipped policy lets only load-balancer_* roles list: a credential without one made no load
          // balancer, nor did OCCM with it (the same credential). With one recorded, the purge's failure says what to do.
          if (isForbidden(e) && (await ctx.ledger.live('loadbalancer')).length === 0) {
            ctx.log('load balancers not listed: the credential may not (Octavia policy), and none was made', { reason: e.message });
            return [];
          }
          throw e;
        }
        await recordProviderFloatingIps(ctx, theirs);
        return [...found, ...theirs];
      },
      async delete(o, id) {
        const status = await o.provisioningStatus(id);
        if (status === 'DELETED') return false;
        if (status === 'ACTIVE' || status === 'ERROR') await o.deleteLoadBalancer(id, { cascade: true });
        return 'going';
      },
    }),
};
