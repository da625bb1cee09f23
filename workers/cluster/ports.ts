// The cluster's nodes as the cloud shows them and as the operation wants them. Observed: the
// servers carrying the cluster tag, each labelled by its metadata (node group, role, Kubernetes
// version, CA generation). Wanted: per node group, `node_count` servers that are not retiring; the
// missing ones get names derived from the operation (serverName), so every run of it plans the
// same names. Ports are made first, named after their server (IPs known before boot, §1.1 step 8),
// and deleted after their servers (Nova keeps a port it did not make).
import type { NodeGroupRow } from '../../src/db/entities/nodegroup.js';
import type { NodeRole } from '../../src/bootstrap/user-data/inputs.js';
import { networkPlan, type GroupRef } from '../../src/cluster-spec/network-plan.js';
import { freeIndexes, heldIndexes } from '../../src/cluster-spec/zones.js';
import type { NeutronPort } from '../../src/openstack/neutron.js';
import type { Server } from '../../src/openstack/nova-servers.js';
import { StepFailure } from '../../src/steps/errors.js';
import { clusterDescription, clusterTag, META, resourceName, serverName } from '../../src/steps/naming.js';
import type { RunContext, Step } from '../../src/steps/step.js';
import { clusterNet, clusterSpec, nodeGroups } from '../../src/steps/context.js';
import { ensure, purge } from '../../src/steps/ensure.js';
import { SG_ROLE } from './network.js';
import { nodeCount } from '../../src/preflight/quotas.js';


export interface ObservedServer {
  server: Server;
  name: string;
  nodegroup: string;
  role: NodeRole;
  version: string;
  caGeneration: number;
  /** Its index in its group; null for a server made before indexes were recorded. */
  index: number | null;
}

export interface PlannedNode {
  name: string;
  group: NodeGroupRow;
  role: NodeRole;
  /** Its index in its group (a freed one: a replacement goes where the node it replaces was). */
  index: number;
}

/**
 * How many polls a step that only watches the servers while it waits (servers_active, the waits for the API and
 * for the nodes) lets pass between two server lists: 5, so one list per waiting cluster every 10 s in production.
 */
export const WATCH_POLLS = 5;

/**
 * Once every server the last list showed was ACTIVE (the waits for the API and the nodes, which Kubernetes answers),
 * how many polls pass between two lists: 15, one every 30 s in production. A server in ERROR comes within seconds of
 * its boot, while the list is still taken every WATCH_POLLS.
 */
export const SETTLED_WATCH_POLLS = 15;

/**
 * The cluster's servers for a step that watches them while it waits: listed at most once every WATCH_POLLS polls
 * (kept for the operation's runs in this process), and that list is the run's (observedServers gives it too).
 * forgetWatched makes the next look list again.
 */
export function watchedServers(ctx: RunContext): Promise<ObservedServer[]> {
  return ctx.memo('servers', async () => {
    const w = await watch(ctx);
    const settled = w.servers.length > 0 && w.servers.every((s) => s.server.status === 'ACTIVE');
    if (Date.now() - w.at >= ctx.pollMs * (settled ? SETTLED_WATCH_POLLS : WATCH_POLLS)) {
      w.servers = await listServers(ctx);
      w.at = Date.now();
    }
    return w.servers;
  });
}

const watch = (ctx: RunContext) => ctx.memoRuns('servers-watch', async () => ({ at: -Infinity, servers: [] as ObservedServer[] }));

/** The next watchedServers lists again (the servers changed: one deleted, one made). */
export async function forgetWatched(ctx: RunContext): Promise<void> {
  (await watch(ctx)).at = -Infinity;
  ctx.forget('servers');
}

/** Servers of the cluster (by tag), not yet gone. */
export function observedServers(ctx: RunContext): Promise<ObservedServer[]> {
  return ctx.memo('servers', () => listServers(ctx));
}

function listServers(ctx: RunContext): Promise<ObservedServer[]> {
  return (async () => {
    const nova = await ctx.cloud().servers();
    const all = await nova.list({ tags: [clusterTag(ctx.cluster.uuid)] });
    await bindMaterialSeen(ctx, all);
    return all
      .filter((s) => s.status !== 'DELETED' && s.status !== 'SOFT_DELETED')
      .map((s) => {
        const md = (s.metadata ?? {}) as Record<string, string>;
        return {
          server: s,
          name: s.name,
          nodegroup: md[META.nodegroup] ?? '',
          role: (md[META.role] ?? 'worker') as NodeRole,
          version: md[META.version] ?? '',
          caGeneration: Number(md[META.caGeneration] ?? '1'),
          index: /^\d+$/.test(md[META.index] ?? '') ? Number(md[META.index]) : null,
        };
      });
  })();
}

/**
 * Servers young enough to hold an unused material token (made within NODE_MATERIAL_TTL_S) get their tokens bound
 * as they are seen: one whose create answer was lost exists before its ensure learns its id, and once it exists
 * it is no longer planned, so its ensure may not run again. A name listed twice (a duplicate boot) binds nothing.
 */
async function bindMaterialSeen(ctx: RunContext, all: readonly { id: string; name: string; created?: string; status?: string }[]): Promise<void> {
  const since = Date.now() - ctx.cloudFactory.nodeMaterial.ttlMs;
  const count = new Map<string, number>();
  for (const s of all) count.set(s.name, (count.get(s.name) ?? 0) + 1);
  const young = all.filter((s) => count.get(s.name) === 1 && s.status !== 'DELETED' && Date.parse(s.created ?? '') >= since);
  if (young.length > 0) await ctx.repos.nodeMaterial.bindSeen(ctx.cluster.uuid, young.map((s) => ({ name: s.name, id: s.id })));
}

/** The servers a run of this operation is retiring (resize's nodes_to_remove, replaced nodes). */
export type Retiring = (s: ObservedServer) => boolean;

/** Operations that retire servers register how they choose them (resize, upgrade, CA rotation). */
export const RETIRING = new Map<string, (ctx: RunContext) => Promise<Retiring>>();

export function retiringOf(ctx: RunContext): Promise<Retiring> {
  return ctx.memo('retiring', async () => (await RETIRING.get(ctx.op.kind)?.(ctx)) ?? (() => false));
}

export const groupLabel = (g: NodeGroupRow): string => (g.role === 'master' ? 'control-plane' : g.is_default ? 'worker' : g.name);
export const isControlPlane = (r: NodeRole): boolean => r === 'init' || r === 'control-plane';

/** The nodes to add: per group, node_count minus its live, non-retiring servers. */
export function plannedNodes(ctx: RunContext): Promise<PlannedNode[]> {
  return ctx.memo('plan', async () => {
    const retiring = await retiringOf(ctx);
    const spec = await clusterSpec(ctx);
    const servers = await observedServers(ctx);
    const taken = new Set(servers.map((s) => s.name));
    const anyControlPlane = servers.some((s) => isControlPlane(s.role));
    const out: PlannedNode[] = [];
    // A create plans every group, a repair every worker group; other operations only the group they name.
    const every = ctx.op.kind === 'create' || ctx.op.kind === 'repair';
    const target = every ? undefined : (ctx.op.params as { nodegroup?: string }).nodegroup;
    for (const g of await nodeGroups(ctx)) {
      if (ctx.op.kind === 'repair' && g.role === 'master') continue;
      if (!every && (g.uuid !== target || ctx.op.kind === 'nodegroup_delete')) continue;
      const live = servers.filter((s) => s.nodegroup === g.uuid && !retiring(s));
      let missing = Math.max(0, g.node_count - live.length);
      // The lowest indexes the group's staying nodes leave: the same ones on every run of the operation.
      const indexes = freeIndexes(heldIndexes(live).values(), missing);
      for (let i = 0; missing > 0; i++) {
        const name = serverName(spec.cluster.shortName, groupLabel(g), ctx.op.id, g.uuid, i);
        if (taken.has(name)) continue;
        // A node booted again after its server went to ERROR keeps its role (servers.ts, ensureServersActive).
        const again = (ctx.op.params.replacing as Record<string, { role: NodeRole }> | undefined)?.[name]?.role;
        const role: NodeRole = again ?? (g.role !== 'master' ? 'worker' : !anyControlPlane && !out.some((p) => isControlPlane(p.role)) ? 'init' : 'control-plane');
        out.push({ name, group: g, role, index: indexes[indexes.length - missing]! });
        missing--;
      }
    }
    return out;
  });
}

async function securityGroupId(ctx: RunContext, g: GroupRef): Promise<string> {
  const name = resourceName(ctx.cluster, SG_ROLE[g]);
  const row = (await ctx.ledger.live('security_group')).find((r) => r.name === name);
  if (!row) throw new StepFailure('NotFound', `Security group ${name} is not recorded.`, 'security_groups');
  return row.cloud_id;
}

/**
 * The port named `name` (made if absent): fixed IP on the cluster subnet, the role's security group. Ensured once
 * per operation (in this process): the ports step makes it, its server's boot names it.
 */
export function ensurePort(ctx: RunContext, name: string, role: NodeRole): Promise<NeutronPort> {
  return ctx.memoRuns(`port:${name}`, () => ensurePortOnce(ctx, name, role));
}

async function ensurePortOnce(ctx: RunContext, name: string, role: NodeRole): Promise<NeutronPort> {
  const n = await ctx.cloud().neutron();
  const net = await clusterNet(ctx);
  const spec = await clusterSpec(ctx, net.subnetCidr);
  const ref: GroupRef = isControlPlane(role) ? 'control-plane' : 'worker';
  const plan = networkPlan(spec).ports[ref];
  const sg = await securityGroupId(ctx, plan.securityGroup);
  return ensure(ctx, {
    step: 'ports', service: 'network', type: 'port', name,
    get: (id) => n.ports.get(id),
    // One list of the network's ports per run for every port it ensures (not one per port).
    findByName: async () => (await ctx.memo(`ports-on:${net.networkId}`, () => n.ports.list({ network_id: net.networkId }))).filter((x) => x.name === name),
    create: () =>
      n.ports.create({
        name,
        description: clusterDescription(ctx.cluster.uuid),
        network_id: net.networkId,
        fixed_ips: [{ subnet_id: net.subnetId }],
        security_groups: [sg],
        allowed_address_pairs: plan.allowedAddressPairs,
        // Taken at create only where ML2's tag_ports_during_bulk_creation driver is on; tagged after otherwise.
        tags: [clusterTag(ctx.cluster.uuid)],
      }),
    tag: (id) => n.addTag('ports', id, clusterTag(ctx.cluster.uuid)),
  });
}

/** Ports of the planned nodes, ahead of their servers. */
export const ensurePorts: Step = {
  name: 'ports',
  after: ['network', 'security_groups'],
  /** A port per node. */
  bill: ({ groups }) => ({ port: nodeCount(groups) }),
  async run(ctx) {
    for (const p of await plannedNodes(ctx)) await ensurePort(ctx, p.name, p.role);
  },
};

/** Delete, once the servers are gone: the recorded ports and those tagged as the cluster's (not the router's). */
export const purgePorts: Step = {
  name: 'ports',
  run: (ctx) =>
    purge(ctx, {
      service: 'network', type: 'port',
      client: (cloud) => cloud.neutron(),
      find: async (n) => (await n.ports.list({ tags: clusterTag(ctx.cluster.uuid) })).filter((p) => !(p.device_owner ?? '').startsWith('network:router')),
      delete: (n, id) => n.ports.delete(id),
    }),
};

/** Control-plane ports (live control-plane servers' and planned ones'), the first control plane's first. */
export function controlPlanePorts(ctx: RunContext): Promise<{ name: string; port: NeutronPort }[]> {
  return ctx.memo('cp-ports', async () => {
    const names = [
      // The first control plane first: the load balancer's first member is the one that answers first.
      ...(await observedServers(ctx)).filter((s) => isControlPlane(s.role)).sort((a, b) => Number(b.role === 'init') - Number(a.role === 'init')).map((s) => s.name),
      ...(await plannedNodes(ctx)).filter((p) => isControlPlane(p.role)).map((p) => p.name),
    ];
    const n = await ctx.cloud().neutron();
    const rows = await ctx.ledger.live('port');
    const out: { name: string; port: NeutronPort }[] = [];
    for (const name of names) {
      const row = rows.find((r) => r.name === name);
      if (!row) continue;
      // Only a port Neutron says is gone is left out: a failed look (a 5xx, no answer) is not an
      // absence, and reading it as one would take the control plane's load balancer member away.
      const port = await n.ports.find(row.cloud_id);
      if (port) out.push({ name, port });
    }
    return out;
  });
}
