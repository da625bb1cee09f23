// The Kubernetes side of a create (k8s-bootstrap §1.1 steps 10–14): every control plane boots
// while the load balancer builds, the first running kubeadm init; workers boot right after them
// (their join retries until the API answers); once /readyz answers through the endpoint the
// add-ons are applied in order and the other control planes join one at a time, each when the
// service gives it its turn (grantJoinTurn); the cluster is ready when every server is a Ready,
// initialised Node.
import { renderAddons, type RenderedAddon } from '../../src/bootstrap/addons/framework.js';
import { addons } from '../../src/bootstrap/addons/index.js';
import { nodeReady, type KubeClient, type KubeNode } from '../../src/kube/api-client.js';
import { JOIN_TURN_CONFIGMAP } from '../../src/bootstrap/user-data/host.js';
import { renderCloudConfig, type CloudCredential } from '../../src/bootstrap/cloudconf.js';
import { StepFailure, Wait } from '../../src/steps/errors.js';
import { kubeFor } from '../../src/steps/kube.js';
import type { RunContext, Step } from '../../src/steps/step.js';
import type { NodeGroupRow } from '../../src/db/entities/nodegroup.js';
import { groupZones, quorumLoss } from '../../src/cluster-spec/zones.js';
import { clusterNet, clusterSpec } from '../../src/steps/context.js';
import { apiFipIsNodes } from './api-lb.js';
import { diagnose, withDiagnosis } from './diagnose.js';
import { isControlPlane, observedServers, plannedNodes, watchedServers, type ObservedServer } from './ports.js';
import { ensureServers, failIfBroken } from './servers.js';
import { roleNodes } from '../../src/preflight/quotas.js';

const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';

/** Registered, Ready, with a provider id and without the cloud provider's taint. */
export function nodeUsable(n: KubeNode): boolean {
  return nodeReady(n) && !!n.spec?.providerID && !(n.spec?.taints ?? []).some((t) => t.key === UNINITIALIZED);
}

/**
 * Control planes spread over zones where losing one zone loses etcd's quorum (src/kube/zones.ts): allowed,
 * since every spread tolerates at least what one zone does (a cloud of two zones has no better one), but
 * said in the cluster's events, once per operation, naming the zone.
 */
async function warnZoneQuorum(ctx: RunContext, master: NodeGroupRow): Promise<void> {
  const spec = await clusterSpec(ctx);
  const zones = groupZones(spec.nodes, master, ctx.cluster.labels);
  const loss = quorumLoss(master.node_count, zones);
  if (!loss) return;
  await ctx.memoRuns('zone-quorum', () =>
    ctx.event(
      'control_plane',
      'ZoneQuorumAtRisk',
      `${master.node_count} control planes over ${zones.join(', ')}: losing ${loss.zone} (${loss.members} of them) loses etcd's quorum of ${loss.quorum}. 3 or 5 control planes over 3 zones survive the loss of any one.`,
      'warning',
    ),
  );
}

/** Every control plane boots at once, the first with kubeadm init; the others wait for their turn to join. */
export const ensureControlPlaneInit: Step = {
  name: 'control_plane_init',
  condition: 'control_plane',
  after: ['ports', 'server_groups', 'api_endpoint'],
  /**
   * Every control plane's server: its flavor, its volumes, its own floating IP (floating_ip_enabled) but the one
   * api_endpoint already put on the first control plane's port when it is the API's address.
   */
  bill: (input) => {
    const u = roleNodes(input, 'master');
    return apiFipIsNodes(input) ? { ...u, floatingip: (u.floatingip ?? 0) - 1 } : u;
  },
  async run(ctx) {
    const planned = (await plannedNodes(ctx)).filter((p) => isControlPlane(p.role));
    const init = planned.find((p) => p.role === 'init');
    if (init) await warnZoneQuorum(ctx, init.group);
    await ensureServers(ctx, planned);
    // A server in ERROR is ensureServersActive's: it boots the node again.
    if (init) await ctx.setCondition('control_plane', 'Unknown', 'Booting', `Booting ${init.name} (kubeadm init)${planned.length > 1 ? ` and ${planned.length - 1} more control plane(s)` : ''}.`);
  },
};

/**
 * Names `node` as the control plane that may join now (the ConfigMap its bootstrap script polls with
 * the bootstrap token, whose group may read that one ConfigMap and nothing else).
 */
export async function grantJoinTurn(kube: KubeClient, node: string): Promise<void> {
  const meta = { name: JOIN_TURN_CONFIGMAP, namespace: 'kube-system', labels: { 'app.kubernetes.io/managed-by': 'magnum' } };
  await kube.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [JOIN_TURN_CONFIGMAP], verbs: ['get'] }] }, 'magnum');
  await kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: JOIN_TURN_CONFIGMAP },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:bootstrappers:kubeadm:default-node-token' }],
  }, 'magnum');
  await kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { node } }, 'magnum');
}

/** Workers boot as soon as the first control plane does: their join retries until the API answers. */
export const ensureWorkers: Step = {
  name: 'workers',
  condition: 'workers',
  after: ['control_plane_init'],
  /** Every worker's server: its flavor, its volumes, its own floating IP (floating_ip_enabled). */
  bill: (input) => roleNodes(input, 'worker'),
  async run(ctx) {
    const wanted = (await plannedNodes(ctx)).filter((p) => p.role === 'worker');
    await ensureServers(ctx, wanted);
    if (wanted.length > 0) await ctx.setCondition('workers', 'Unknown', 'Booting', `Booting ${wanted.length} worker(s).`);
  },
};

/**
 * /readyz through the endpoint, once the load balancer is ACTIVE with its members (api_members):
 * before, nothing answers, and on a real cloud a connection to it hangs until its timeout.
 */
export const ensureApiReady: Step = {
  name: 'api_ready',
  condition: 'control_plane',
  after: ['control_plane_init', 'api_members'],
  async run(ctx) {
    const kube = await kubeFor(ctx);
    if (await kube.readyz()) return;
    const d = await diagnose(ctx, (await watchedServers(ctx)).filter((s) => s.role === 'init'));
    const reason = d?.finding.reason ?? 'Initializing';
    const message = withDiagnosis(`Waiting for the API at ${ctx.cluster.api_address} to answer /readyz.`, d);
    const c = ctx.cluster.conditions.control_plane;
    if (c?.reason !== reason || c.message !== message) await ctx.setCondition('control_plane', 'Unknown', reason, message);
    throw new Wait(ctx.pollMs, 'the API is not ready');
  },
};

/** The cloud credential the cluster's consumers are given: its current application credential. */
export function cloudCredential(ctx: RunContext): CloudCredential {
  const secret = ctx.cloudFactory.credentialSecret(ctx.cluster);
  if (!secret || !ctx.cluster.app_cred_id) throw new StepFailure('NoCredential', 'The cluster has no application credential.', 'addons');
  return { ...ctx.cloudFactory.identity, applicationCredentialId: ctx.cluster.app_cred_id, applicationCredentialSecret: secret };
}

/** Every enabled add-on rendered for the cluster as it is now (its current credential). */
export async function renderClusterAddons(ctx: RunContext): Promise<RenderedAddon[]> {
  const spec = await clusterSpec(ctx);
  const net = await clusterNet(ctx);
  const cloud = renderCloudConfig(spec, cloudCredential(ctx), { floatingNetworkId: net.externalNetworkId, subnetId: net.subnetId, networkName: net.networkName });
  return renderAddons(addons(), spec, { cloud });
}

/** Every add-on's objects, applied in order by server-side apply (idempotent). */
export async function applyAddons(ctx: RunContext, kube: KubeClient, rendered?: RenderedAddon[]): Promise<string[]> {
  const applied: string[] = [];
  for (const addon of rendered ?? (await renderClusterAddons(ctx))) {
    for (const o of addon.objects) await kube.apply(o, 'magnum');
    applied.push(addon.name);
  }
  return applied;
}

export const ensureAddons: Step = {
  name: 'addons',
  condition: 'addons',
  after: ['api_ready'],
  async run(ctx) {
    if (ctx.cluster.conditions.addons?.status === 'True') return;
    await ctx.setCondition('addons', 'Unknown', 'Applying', 'Applying the add-ons.');
    const applied = await applyAddons(ctx, await kubeFor(ctx));
    await ctx.setCondition('addons', 'True', 'Applied', `Applied: ${applied.join(', ')}.`);
  },
};

/** The other control planes join one at a time, in name order: the next gets its turn once the previous one is a Node. */
export const ensureControlPlaneJoins: Step = {
  name: 'control_plane_join',
  condition: 'control_plane',
  // Not after every member: a joining control plane reaches the API through the first one.
  after: ['api_ready', 'control_plane_init'],
  async run(ctx) {
    // The servers are there (their names are what it needs): looked at every few polls while the turns go round.
    const servers = await watchedServers(ctx);
    for (const s of servers) if (isControlPlane(s.role)) failIfBroken(s, 'control_plane');
    const kube = await kubeFor(ctx);
    const nodes = new Set((await kube.listNodes()).map((n) => n.metadata.name));
    const next = servers.filter((s) => isControlPlane(s.role) && !nodes.has(s.name)).sort((a, b) => a.name.localeCompare(b.name))[0];
    if (!next) return;
    const turn = await ctx.memo(`turn:${next.name}`, async () => {
      await grantJoinTurn(kube, next.name);
      return next.name;
    });
    const d = await diagnose(ctx, [next]);
    await ctx.setCondition('control_plane', 'Unknown', d?.finding.reason ?? 'Joining', withDiagnosis(`Control plane ${turn} is joining.`, d));
    throw new Wait(ctx.pollMs, `control plane ${turn} is joining`);
  },
};

/** Servers without a usable Node. */
export async function unready(ctx: RunContext, kube: KubeClient, servers: ObservedServer[]): Promise<ObservedServer[]> {
  return unreadyOf(new Map((await kube.listNodes()).map((n) => [n.metadata.name, n])), servers);
}

function unreadyOf(nodes: Map<string, KubeNode>, servers: ObservedServer[]): ObservedServer[] {
  return servers.filter((s) => {
    const n = nodes.get(s.name);
    return s.server.status !== 'ACTIVE' || !n || !nodeUsable(n);
  });
}

export const ensureReady: Step = {
  name: 'readiness',
  after: ['addons', 'control_plane_join', 'workers', 'servers_active'],
  async run(ctx) {
    // Every server was ACTIVE (servers_active): while the nodes join, the server list is looked at every few polls.
    const servers = await watchedServers(ctx);
    for (const s of servers) failIfBroken(s, isControlPlane(s.role) ? 'control_plane' : 'workers');
    if ((await plannedNodes(ctx)).length > 0) throw new Wait(ctx.pollMs, 'nodes still to be made');
    const kube = await kubeFor(ctx);
    if (!(await kube.readyz())) throw new Wait(ctx.pollMs, 'the API is not ready');
    const nodes = new Map((await kube.listNodes()).map((n) => [n.metadata.name, n]));
    const waiting = unreadyOf(nodes, servers);
    // Servers that run but never registered a Node: their consoles may say why.
    const d = await diagnose(ctx, waiting.filter((s) => !nodes.has(s.name)));
    const cps = servers.filter((s) => isControlPlane(s.role));
    const cpWaiting = waiting.filter((s) => isControlPlane(s.role));
    const wkWaiting = waiting.filter((s) => !isControlPlane(s.role));
    const about = (group: typeof waiting) => (d && group.some((s) => s.name === d.server) ? d : undefined);
    if (cpWaiting.length === 0) {
      if (ctx.cluster.conditions.control_plane?.status !== 'True') await ctx.setCondition('control_plane', 'True', 'Ready', `${cps.length} control plane node(s) Ready.`);
    } else {
      const cd = about(cpWaiting);
      await ctx.setCondition('control_plane', 'Unknown', cd?.finding.reason ?? 'NodesNotReady', withDiagnosis(`Waiting for ${cpWaiting.map((s) => s.name).join(', ')} to be Ready.`, cd));
    }
    if (wkWaiting.length === 0) {
      if (ctx.cluster.conditions.workers?.status !== 'True') await ctx.setCondition('workers', 'True', 'Ready', `${servers.length - cps.length} worker node(s) Ready.`);
    } else {
      const wd = about(wkWaiting);
      await ctx.setCondition('workers', 'Unknown', wd?.finding.reason ?? 'NodesNotReady', withDiagnosis(`Waiting for ${wkWaiting.map((s) => s.name).join(', ')} to be Ready.`, wd));
    }
    if (waiting.length > 0) throw new Wait(ctx.pollMs, `${waiting.length} node(s) not Ready`);
  },
};
