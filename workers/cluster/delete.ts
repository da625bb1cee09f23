// The delete operation (spec k8s-bootstrap §4.3, openstack-apis §3.2): every resource of the cluster, in
// reverse order of creation. Each purge sits beside the ensure of its resource and finds what to delete in the
// ledger AND by tag or deterministic name (so what a crashed create made without recording it goes too), 404
// counting as done; load balancers and servers are waited for by re-queueing, never by sleeping.
//
// In order: the API's DNS name, the load balancers (the API's and those OCCM made) and the floating IPs, all in
// front of the servers; the servers, and the node volumes none of them took; then what had to outlive them: ExternalDNS's records (nothing publishes
// them again), the KMS key (nothing decrypts with it any more), the ports Nova keeps; the network from the
// router down; the security groups and server groups; the volumes and shares of the CSI drivers (kept unless
// the cluster asked); last of the cloud, the application credential all of the above used. DELETE_COMPLETE is
// the row disappearing.
import { ClusterRepo } from '../../src/db/repos/clusters.js';
import { features } from '../../src/features/registry.js';
import type { OperationSpec } from '../../src/steps/step.js';
import { assemble } from './graph.js';
import { purgeLoadBalancers } from './lb-purge.js';
import { purgeCredential } from './credential.js';
import { purgeFloatingIps } from './floating-ips.js';
import { purgeNetworks, purgeRouters, purgeSecurityGroups, purgeSubnets } from './network.js';
import { purgePorts } from './ports.js';
import { purgeServerGroups, purgeServers } from './servers.js';
import { purgeNodeVolumes } from './volumes.js';

/** Ledger types the purges walk (with the children that go with a parent); anything else is logged and left, recorded. */
const KNOWN = new Set(['recordset', 'loadbalancer', 'listener', 'pool', 'healthmonitor', 'floatingip', 'server', 'secret', 'port', 'router', 'router_interface', 'subnet', 'network', 'security_group', 'server_group', 'volume']);

export const deleteOperation: OperationSpec = {
  kind: 'delete',
  overtakes: true,
  // In order; each feature's purges (src/features/registry.ts) where they say they go.
  steps: assemble(
    [
      purgeLoadBalancers,
      purgeFloatingIps,
      purgeServers,
      purgeNodeVolumes,
      purgePorts,
      purgeRouters,
      purgeSubnets,
      purgeNetworks,
      purgeSecurityGroups,
      purgeServerGroups,
      purgeCredential,
    ],
    features().flatMap((f) => f.delete ?? []),
    { sequential: true },
  ),
  /** DELETE_COMPLETE: the row goes (node groups, certificates, operations, events with it), and the walked ledger. */
  async finish(ctx) {
    for (const r of await ctx.ledger.live()) {
      if (!KNOWN.has(r.type)) ctx.log('ledger holds a resource this delete does not know; it is left and stays recorded', { type: r.type, id: r.cloud_id });
    }
    await ctx.ds.transaction(async (em) => {
      await ctx.ledger.dropDeleted(em);
      await new ClusterRepo(ctx.ds).remove(em, ctx.cluster.uuid);
    });
    ctx.log('cluster deleted');
    return { state: 'deleted' };
  },
};
