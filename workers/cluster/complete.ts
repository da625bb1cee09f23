// The end of an operation that changed nodes: what the cloud and the cluster's API show is written
// back (node addresses per group, the group's Kubernetes version, the cluster's coe_version) in
// the transaction that ends the operation.
import { kubeFor } from '../../src/steps/kube.js';
import { succeed } from '../runner.js';
import type { RunContext } from '../../src/steps/step.js';
import { nodeGroups } from '../../src/steps/context.js';
import { observedServers } from './ports.js';
import { addressesOf } from './servers.js';

/** `end` ends the operation with the writes (succeed; rolledBack after a rollback). */
export async function completeNodeGroups(ctx: RunContext, status: string, only?: string, end: typeof succeed = succeed): Promise<unknown> {
  ctx.forget('servers');
  const servers = await observedServers(ctx);
  const version = (await (await kubeFor(ctx)).version()).gitVersion;
  const groups = await nodeGroups(ctx);
  const result = await end(ctx, async (em) => {
    for (const g of groups) {
      const mine = servers.filter((s) => s.nodegroup === g.uuid).sort((a, b) => a.name.localeCompare(b.name));
      const versions = [...new Set(mine.map((s) => s.version).filter(Boolean))];
      await ctx.repos.nodegroups.updateByUuid(em, g.uuid, {
          node_addresses: mine.flatMap((s) => addressesOf(s.server)),
          ...(only === undefined || only === g.uuid ? { status, status_reason: null } : {}),
          ...(versions.length === 1 ? { version: versions[0]!.startsWith('v') ? versions[0]! : `v${versions[0]!}` } : {}),
          updated_at: new Date(),
      });
    }
    await ctx.repos.clusters.update(ctx.cluster.uuid, { coe_version: version }, em);
  });
  return result;
}
