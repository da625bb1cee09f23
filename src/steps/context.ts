// What the steps of an operation read about their cluster, once per run: the template, the typed
// spec (the one parser; no label is read here), the node groups and the network the cluster uses.
import type { ClusterTemplateRow } from '../db/entities/cluster-template.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import { parseClusterSpec } from '../cluster-spec/parse.js';
import type { ClusterSpec } from '../cluster-spec/types.js';
import { isNotFound } from '../openstack/errors.js';
import { isUuidLike } from '../openstack/ids.js';
import type { NeutronClient, NeutronNetwork, NeutronSubnet } from '../openstack/neutron.js';
import { StepFailure } from './errors.js';
import type { RunContext } from './step.js';

export function template(ctx: RunContext): Promise<ClusterTemplateRow> {
  return ctx.memo('template', async () => {
    // An upgrade builds its new nodes from the template it moves to.
    const target = ctx.op.kind === 'upgrade' ? (ctx.op.params as { cluster_template?: string }).cluster_template : undefined;
    const uuid = target ?? ctx.cluster.cluster_template_id;
    const t = await ctx.repos.templates.byUuid(uuid);
    if (!t) throw new StepFailure('NotFound', `Cluster template ${uuid} not found.`, 'network');
    return t;
  });
}

export function nodeGroups(ctx: RunContext): Promise<NodeGroupRow[]> {
  return ctx.memo('nodegroups', () => ctx.repos.clusters.nodegroups([ctx.cluster.uuid]));
}

/**
 * A network or subnet named by id or by name (templates and clusters accept both): a UUID by id (then by name, a
 * name may look like one), anything else by name at once, never probed by id.
 */
async function byIdOrName<T>(ref: string, get: () => Promise<T>, list: () => Promise<T[]>): Promise<T | undefined> {
  if (isUuidLike(ref)) {
    try {
      return await get();
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  return (await list())[0];
}

export const findNetwork = (n: NeutronClient, ref: string): Promise<NeutronNetwork | undefined> =>
  byIdOrName(ref, () => n.getNetwork(ref), () => n.listNetworks({ name: ref }));

export const findSubnet = (n: NeutronClient, ref: string): Promise<NeutronSubnet | undefined> =>
  byIdOrName(ref, () => n.subnets.get(ref), () => n.subnets.list({ name: ref }));

/**
 * The cluster's spec, parsed by the one parser from template, cluster, node groups and labels; a cluster on
 * a fixed subnet with that subnet's CIDR (looked up when the caller does not give it).
 */
export function clusterSpec(ctx: RunContext, given?: string): Promise<ClusterSpec> {
  return ctx.memo(`spec:${given ?? ''}`, async () => {
    const subnetCidr = given ?? (ctx.cluster.fixed_subnet ? (await clusterNet(ctx)).subnetCidr : undefined);
    const groups = await nodeGroups(ctx);
    const count = (role: string) => groups.filter((g) => g.role === role).reduce((a, g) => a + g.node_count, 0);
    const t = await template(ctx);
    return parseClusterSpec({
      template: t,
      cluster: { ...ctx.cluster, master_count: count('master'), node_count: count('worker') },
      labels: effectiveLabels(ctx, t),
      ...(subnetCidr !== undefined ? { subnetCidr } : {}),
    }).spec;
  });
}

/** The cluster's labels; an upgrade takes the version its target template names (kube_tag). */
export function effectiveLabels(ctx: RunContext, t: ClusterTemplateRow): Record<string, string> {
  if (ctx.op.kind !== 'upgrade' || t.labels.kube_tag === undefined) return ctx.cluster.labels;
  return { ...ctx.cluster.labels, kube_tag: t.labels.kube_tag };
}

export interface ClusterNet {
  networkId: string;
  networkName: string;
  subnetId: string;
  subnetCidr: string;
  externalNetworkId: string;
}

/** The network the nodes live on: the fixed one, or the one the network step made (its ledger). */
export function clusterNet(ctx: RunContext): Promise<ClusterNet> {
  // The ids do not change while an operation lasts: learnt once for all its runs in this process.
  return ctx.memoRuns('net', async () => {
    const c = ctx.cluster;
    const n = await ctx.cloud().neutron();
    const t = await template(ctx);
    const external = t.external_network_id ? await findNetwork(n, t.external_network_id) : undefined;
    if (!external) throw new StepFailure('NotFound', `External network ${t.external_network_id ?? '(none)'} not found.`, 'network');
    let subnet: NeutronSubnet | undefined;
    if (c.fixed_subnet) subnet = await findSubnet(n, c.fixed_subnet);
    else if (c.fixed_network) {
      const net = await findNetwork(n, c.fixed_network);
      if (net) subnet = (await n.subnets.list({ network_id: net.id })).find((s) => s.ip_version === 4);
    } else {
      const row = (await ctx.ledger.live('subnet'))[0];
      if (row) subnet = await n.subnets.get(row.cloud_id);
    }
    if (!subnet) throw new StepFailure('NotFound', `The cluster's subnet (${c.fixed_subnet ?? c.fixed_network ?? 'created'}) was not found.`, 'network');
    const network = await n.networks.get(subnet.network_id);
    return { networkId: network.id, networkName: network.name ?? '', subnetId: subnet.id, subnetCidr: subnet.cidr, externalNetworkId: external.id };
  });
}
