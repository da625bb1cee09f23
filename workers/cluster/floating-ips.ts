// Floating IPs: the API's, on the endpoint's port when the cluster asks for one; each node's, on its
// port, when floating_ip_enabled (Magnum's meaning: every master and minion got one from its Heat
// template), deleted with the node; at delete, those and the ones OCCM and the ingress controller
// made for the cluster's Services and Ingresses, before the servers. Each is recorded under a name
// (`kubeapi`, the server's name), found again by its port, tagged after the create.
import type { FloatingIp, NeutronClient } from '../../src/openstack/neutron.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { clusterDescription, clusterTag } from '../../src/steps/naming.js';
import type { RunContext, Step } from '../../src/steps/step.js';
import { clusterNet } from '../../src/steps/context.js';
import { purge } from '../../src/steps/ensure.js';

export const API_FIP = 'kubeapi';

/** OCCM's and octavia-ingress-controller's descriptions (cloud-provider-openstack, --cluster-name = our uuid). */
export const occmFloatingIp = (uuid: string): RegExp => new RegExp(`^Floating IP for Kubernetes (external service|ingress) .+ from cluster ${uuid}$`);

/** The recorded floating IP named `name` that still exists, else undefined (rows of vanished ones marked deleted). */
async function recorded(ctx: RunContext, n: NeutronClient, name: string): Promise<FloatingIp | undefined> {
  for (const row of await ctx.ledger.live('floatingip')) {
    if (row.name !== name) continue;
    const fip = await n.floatingIps.find(row.cloud_id);
    if (fip) return fip;
    await ctx.ledger.markDeleted('network', 'floatingip', row.cloud_id);
  }
  return undefined;
}

/**
 * A new floating IP on `portId`, recorded as `name` and tagged. Neutron refuses a second floating IP on a port's
 * address (409): when the port has one of this cluster's, named so (a create whose answer was lost, a timeout on
 * a busy Neutron, that went through after the lookup before this create), it is that one, adopted.
 */
async function create(ctx: RunContext, n: NeutronClient, name: string, portId: string | null, step: string, what: string): Promise<FloatingIp> {
  await ctx.checkpoint();
  const net = await clusterNet(ctx);
  const description = `${clusterDescription(ctx.cluster.uuid)} ${what}`;
  let fip: FloatingIp;
  try {
    fip = await n.floatingIps.create({ floating_network_id: net.externalNetworkId, ...(portId ? { port_id: portId } : {}), description });
  } catch (e) {
    const onPort = e instanceof OpenStackError && e.status === 409 && portId ? (await n.floatingIps.list({ port_id: portId }))[0] : undefined;
    if (onPort?.description !== description) throw e;
    fip = onPort;
  }
  await ctx.hooks.afterCreate?.('floatingip', fip.id);
  await ctx.ledger.record({ service: 'network', type: 'floatingip', cloudId: fip.id, name, step });
  await n.addTag('floatingips', fip.id, clusterTag(ctx.cluster.uuid));
  return fip;
}

/** `fip` tagged as the cluster's (a floating IP found on its port may be one whose tagging never happened: the worker retried after a timeout). */
async function tagged(ctx: RunContext, n: NeutronClient, fip: FloatingIp): Promise<FloatingIp> {
  const tag = clusterTag(ctx.cluster.uuid);
  if (!(fip.tags ?? []).includes(tag)) await n.addTag('floatingips', fip.id, tag);
  return fip;
}

/** The API's floating IP on `portId` (ledger, then a lookup by port, then a new one). */
export async function ensureFloatingIp(ctx: RunContext, portId: string): Promise<FloatingIp> {
  const n = await ctx.cloud().neutron();
  const mine = await recorded(ctx, n, API_FIP);
  if (mine) return tagged(ctx, n, mine.port_id === portId ? mine : await n.associateFloatingIp(mine.id, portId));
  const onPort = (await n.floatingIps.list({ port_id: portId }))[0];
  if (onPort) {
    await ctx.ledger.record({ service: 'network', type: 'floatingip', cloudId: onPort.id, name: API_FIP, step: 'api_lb' });
    return tagged(ctx, n, onPort);
  }
  return create(ctx, n, API_FIP, portId, 'api_lb', 'API');
}

/** The API's recorded floating IP, if it has one (without a load balancer: on a control plane's port). */
export async function apiFloatingIp(ctx: RunContext): Promise<FloatingIp | undefined> {
  return recorded(ctx, await ctx.cloud().neutron(), API_FIP);
}

/**
 * The node `name`'s floating IP on its port: the recorded one, else the one the port already has
 * (a create that never recorded it; or, without an API load balancer, the API's on the single control plane), else a new one.
 */
export async function ensureNodeFloatingIp(ctx: RunContext, name: string, portId: string): Promise<FloatingIp> {
  const n = await ctx.cloud().neutron();
  const mine = await recorded(ctx, n, name);
  if (mine) return tagged(ctx, n, mine.port_id === portId ? mine : await n.associateFloatingIp(mine.id, portId));
  const known = await onRecordedPorts(ctx, n);
  const onPort = known.ports.has(portId) ? known.fips.get(portId) : (await n.floatingIps.list({ port_id: portId }))[0];
  if (onPort) {
    if (!(onPort.description ?? '').endsWith(` node ${name}`)) return onPort;
    await ctx.ledger.record({ service: 'network', type: 'floatingip', cloudId: onPort.id, name, step: 'servers' });
    return tagged(ctx, n, onPort);
  }
  return create(ctx, n, name, portId, 'servers', `node ${name}`);
}

/**
 * The floating IPs on the cluster's recorded ports, by port: one list per run (Neutron ORs a repeated port_id) for
 * every node it gives one, rather than one list per node.
 */
function onRecordedPorts(ctx: RunContext, n: NeutronClient): Promise<{ ports: Set<string>; fips: Map<string, FloatingIp> }> {
  return ctx.memo('fips-on-ports', async () => {
    const ports = new Set((await ctx.ledger.live('port')).map((r) => r.cloud_id));
    const found = ports.size > 0 ? await n.floatingIps.list({ port_id: [...ports] }) : [];
    return { ports, fips: new Map(found.filter((f) => f.port_id).map((f) => [f.port_id!, f])) };
  });
}

/** The floating IPs recorded for the node `name` (its server going or gone): deleted, 404 counting as done. */
export async function dropNodeFloatingIp(ctx: RunContext, name: string): Promise<void> {
  const rows = (await ctx.ledger.live('floatingip')).filter((r) => r.name === name);
  if (rows.length === 0) return;
  const n = await ctx.cloud().neutron();
  for (const row of rows) {
    await n.floatingIps.delete(row.cloud_id); // already gone: false, not an error
    await ctx.ledger.markDeleted('network', 'floatingip', row.cloud_id);
  }
}

/**
 * Delete: the recorded and the tagged ones, asked of Neutron by tag. OCCM's and the ingress controller's for the
 * cluster (named by their description, §4.1) were recorded by the load-balancer purge, from their VIP ports.
 */
export const purgeFloatingIps: Step = {
  name: 'floating_ips',
  run: (ctx) =>
    purge(ctx, {
      service: 'network', type: 'floatingip',
      client: (cloud) => cloud.neutron(),
      find: (n) => n.floatingIps.list({ tags: clusterTag(ctx.cluster.uuid) }),
      delete: (n, id) => n.floatingIps.delete(id),
    }),
};
