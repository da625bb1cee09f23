// Floating IPs: the API's, on the endpoint's port when the cluster asks for one (recorded, found again
// by its port, tagged after the create); at delete, that one and those OCCM and the ingress controller
// made for the cluster's Services, before the servers.
import type { FloatingIp } from '../../src/openstack/neutron.js';
import { clusterDescription, clusterTag } from '../naming.js';
import type { RunContext, Step } from '../runner.js';
import { clusterNet } from './context.js';
import { purge } from './ensure.js';

/** The floating IP on `portId` (ledger, then a lookup by port, then a new one). */
export async function ensureFloatingIp(ctx: RunContext, portId: string): Promise<FloatingIp> {
  const n = await ctx.cloud().neutron();
  for (const row of await ctx.ledger.live('floatingip')) {
    const fip = await n.floatingIps.get(row.cloud_id).catch(() => undefined);
    if (fip) {
      if (fip.port_id !== portId) return n.associateFloatingIp(fip.id, portId);
      return fip;
    }
    await ctx.ledger.markDeleted('network', 'floatingip', row.cloud_id);
  }
  const onPort = (await n.floatingIps.list({ port_id: portId } as never))[0];
  if (onPort) {
    await ctx.ledger.record({ service: 'network', type: 'floatingip', cloudId: onPort.id, name: 'kubeapi', step: 'api_lb' });
    return onPort;
  }
  await ctx.checkpoint();
  const net = await clusterNet(ctx);
  const fip = await n.floatingIps.create({ floating_network_id: net.externalNetworkId, port_id: portId, description: `${clusterDescription(ctx.cluster.uuid)} API` } as never);
  await ctx.hooks.afterCreate?.('floatingip', fip.id);
  await ctx.ledger.record({ service: 'network', type: 'floatingip', cloudId: fip.id, name: 'kubeapi', step: 'api_lb' });
  await n.addTag('floatingips' as never, fip.id, clusterTag(ctx.cluster.uuid));
  return fip;
}

/** Delete: the recorded and tagged ones, and OCCM's for the cluster's Services (named by their description, §4.1). */
export const purgeFloatingIps: Step = {
  name: 'floating_ips',
  run: (ctx) =>
    purge(ctx, {
      service: 'network', type: 'floatingip',
      client: (cloud) => cloud.neutron(),
      async find(n) {
        const uuid = ctx.cluster.uuid;
        const occm = new RegExp(`^Floating IP for Kubernetes .+ from cluster ${uuid}$`);
        const tagged = await n.floatingIps.list({ tags: clusterTag(uuid) } as never);
        return [...tagged, ...(await n.floatingIps.list()).filter((f) => occm.test(f.description ?? ''))];
      },
      delete: (n, id) => n.floatingIps.delete(id),
    }),
};
