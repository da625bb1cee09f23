// Servers: one per planned node, on its pre-made port, in its zone (by its index in its group) and in
// its node group's server group (soft-anti-affinity within the zone), with the user-data of its role
// (kubeadm init, control-plane join, worker join) in the format its image reads (the node image
// contract), its group's Node labels and taints, its volumes (made first, in its zone: volumes.ts), and
// metadata naming its node group, role, Kubernetes version, CA generation and index. Deleted first of
// the nodes' resources (their ports and server groups after), waited for until Nova is done.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { NodeGroupRow } from '../../src/db/entities/nodegroup.js';
import type { UserDataInput } from '../../src/bootstrap/user-data/inputs.js';
import { renderNode, type RenderedNode } from '../../src/bootstrap/user-data/userdata.js';
import { materialLines } from '../../src/bootstrap/user-data/material.js';
import { imageProblem, imageVersionProblem, nodeImage, type NodeImage } from '../../src/cluster-spec/image.js';
import { apiOnControlPlaneFip } from '../../src/cluster-spec/api-endpoint.js';
import { groupNodeLabels } from '../../src/cluster-spec/node-labels.js';
import type { ClusterSpec, NodeVolume } from '../../src/cluster-spec/types.js';
import { groupZones, zoneOf } from '../../src/cluster-spec/zones.js';
import { isNotFound, OpenStackError } from '../../src/openstack/errors.js';
import { flavorOf, isUuidLike } from '../../src/openstack/ids.js';
import type { Server } from '../../src/openstack/nova-servers.js';
import { loadClusterPki } from '../../src/pki/store.js';
import type { ConditionType } from '../../src/domain/cluster-status.js';
import { StepFailure, Wait } from '../../src/steps/errors.js';
import { clusterTag, META, serverGroupName } from '../../src/steps/naming.js';
import type { RunContext, Step } from '../../src/steps/step.js';
import { endpoint } from './api-lb.js';
import { kmsInput } from '../../src/features/kms/steps.js';
import { clusterSpec, nodeGroups, template } from '../../src/steps/context.js';
import { ensure, purge, type Named } from '../../src/steps/ensure.js';
import { ensureNodeFloatingIp } from './floating-ips.js';
import { ensurePort, forgetWatched, isControlPlane, observedServers, retiringOf, watchedServers, type ObservedServer, type PlannedNode } from './ports.js';
import type { NodeRole } from '../../src/bootstrap/user-data/inputs.js';
import { nodeVolumes } from './volumes.js';

/** One server group per node group (k8s-bootstrap §1.1 step 7). */
export const ensureServerGroups: Step = {
  name: 'server_groups',
  after: [],
  /** One server group per node group, made for the group even while it has no node. */
  bill: ({ groups }) => ({ server_groups: groups.length, server_group_members: Math.max(0, ...groups.map((g) => g.count)) }),
  async run(ctx) {
    for (const g of await nodeGroups(ctx)) await serverGroup(ctx, g);
  },
};

/** A node group's server group id, ensured once per operation (in this process): each server's boot names it. */
function serverGroup(ctx: RunContext, g: NodeGroupRow): Promise<string> {
  return ctx.memoRuns(`server-group:${g.uuid}`, () => ensureServerGroup(ctx, g));
}

async function ensureServerGroup(ctx: RunContext, g: NodeGroupRow): Promise<string> {
  const nova = await ctx.cloud().novaResources();
  const name = serverGroupName(ctx.cluster, g.name);
  const sg = await ensure(ctx, {
    step: 'server_groups', service: 'compute', type: 'server_group', name,
    get: async (id) => ({ ...(await nova.getServerGroup(id)), description: name }),
    // No tags or descriptions on server groups: the full cluster uuid in the name marks ours.
    findByName: async () => (await nova.listServerGroups({ name })).map((x) => ({ ...x, description: name })),
    create: () => nova.createServerGroup({ name, policy: 'soft-anti-affinity' }),
  });
  return sg.id;
}

/** Delete, after the servers: the recorded server groups. */
export const purgeServerGroups: Step = {
  name: 'server_groups',
  run: (ctx) =>
    purge(ctx, {
      service: 'compute', type: 'server_group',
      client: (cloud) => cloud.novaResources(),
      delete: (nova, id) => nova.deleteServerGroup(id),
    }),
};

/** `[a-z0-9]{6}.[a-z0-9]{16}` derived from the cluster's credential secret and the operation (same in every run). */
export function bootstrapToken(ctx: RunContext): string {
  const secret = ctx.cloudFactory.credentialSecret(ctx.cluster);
  if (!secret) throw new StepFailure('NoCredential', 'The cluster has no application credential.');
  const digest = createHmac('sha256', secret).update(`bootstrap-token:${ctx.op.id}`).digest();
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 22; i++) s += alphabet[digest[i]! % 36];
  return `${s.slice(0, 6)}.${s.slice(6)}`;
}

/** A node image by id or name (its id and what its properties say), looked up once per operation (in this process). */
function resolveImage(ctx: RunContext, ref: string): Promise<{ id: string; image: NodeImage }> {
  return ctx.memoRuns(`image:${ref}`, () => lookupImage(ctx, ref));
}

async function lookupImage(ctx: RunContext, ref: string): Promise<{ id: string; image: NodeImage }> {
  const glance = await ctx.cloud().glance();
  // An id is asked for by id, a name by name: no probe that 404s.
  let found;
  if (isUuidLike(ref)) {
    try {
      found = await glance.getImage(ref);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  found ??= (await glance.listImages({ name: ref }))[0];
  if (!found) throw new StepFailure('ImageNotFound', `Image ${ref} not found.`);
  // The API checked the contract at create; the image may have changed since.
  const problem = imageProblem(found);
  if (problem) throw new StepFailure('UnsupportedImage', `Image ${ref} cannot boot Kubernetes nodes: ${problem}.`);
  return { id: found.id, image: nodeImage(found) };
}

/**
 * The image a node group's servers boot, its Kubernetes version checked against the cluster's. An upgrade
 * boots its new nodes from the image of the template it moves to (as magnum-cluster-api does).
 */
export async function groupImage(ctx: RunContext, group: NodeGroupRow, spec: ClusterSpec): Promise<{ id: string; image: NodeImage }> {
  const t = await template(ctx);
  const ref = ctx.op.kind === 'upgrade' ? t.image_id : group.image_id ?? t.image_id;
  if (!ref) throw new StepFailure('InvalidRequest', 'The cluster template names no image.');
  const found = await resolveImage(ctx, ref);
  const mismatch = imageVersionProblem(found.image, spec.kubernetes.version);
  if (mismatch) throw new StepFailure('ImageVersionMismatch', `Image ${ref}: ${mismatch}.`);
  return found;
}

/** A node group's container runtime volume: its docker_volume_size, of the label docker_volume_type. */
export function runtimeVolumeOf(spec: ClusterSpec, group: NodeGroupRow): NodeVolume | null {
  return group.docker_volume_size ? { sizeGb: group.docker_volume_size, type: spec.nodes.runtimeVolumeType } : null;
}

/** A flavor id by id or name, from one flavor list per operation (in this process): no probe by id. */
async function resolveFlavor(ctx: RunContext, ref: string): Promise<string> {
  const flavors = await ctx.memoRuns('flavors', async () => (await ctx.cloud().nova()).listFlavors());
  const found = flavorOf(flavors, ref);
  if (!found) throw new StepFailure('FlavorNotFound', `Flavor ${ref} not found.`);
  return found.id;
}

/** The user-data of a node of `role` named `name`. */
/** The node `p` as it boots with the one-time token `token`: its user-data (no secret) and its material. */
export async function renderPlannedNode(ctx: RunContext, p: PlannedNode, token: string): Promise<RenderedNode> {
  const spec = await clusterSpec(ctx);
  const ep = await endpoint(ctx);
  const pki = await ctx.memo('pki', async () => {
    const loaded = await loadClusterPki(ctx.ds, ctx.cloudFactory.secretBox, ctx.cluster.uuid);
    if (!loaded) throw new StepFailure('NotFound', 'The cluster has no certificate authority.', 'control_plane');
    return loaded;
  });
  const { image } = await groupImage(ctx, p.group, spec);
  const common = {
    nodeName: p.name,
    endpoint: { address: ep.internal, extraSans: apiSans(ep.internal, ep.external, spec.apiServer.dnsRecord?.name) },
    bootstrapToken: bootstrapToken(ctx),
    // During a CA rotation joiners also accept the previous CA, which still serves the API.
    ...(typeof ctx.op.params.previous_ca === 'string' ? { trustedCaCerts: [ctx.op.params.previous_ca] } : {}),
    image,
    nodeLabels: groupNodeLabels(p.group, p.group.node_labels),
    ...(p.group.node_taints?.length ? { nodeTaints: p.group.node_taints } : {}),
    runtimeVolume: runtimeVolumeOf(spec, p.group),
    material: { url: ctx.cloudFactory.nodeMaterial.url, token, ...(ctx.cloudFactory.nodeMaterial.caCert ? { caCert: ctx.cloudFactory.nodeMaterial.caCert } : {}) },
  };
  const kms = p.role === 'worker' ? undefined : await ctx.memo('kms', () => kmsInput(ctx));
  const input: UserDataInput =
    p.role === 'worker' ? { ...common, role: 'worker', caCert: pki.pki.ca.cert } : { ...common, role: p.role, pki: pki.pki, ...(kms ? { kms } : {}) };
  return renderNode(spec, input);
}

/**
 * The user-data of the server about to be made for `p`: its secrets are minted as one-time material (sealed, found
 * by the token's hash, expiring within NODE_MATERIAL_TTL_S), which the server fetches once at its first boot.
 */
async function mintedUserData(ctx: RunContext, p: PlannedNode): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const node = await renderPlannedNode(ctx, p, token);
  const hash = createHash('sha256').update(token).digest('hex');
  const now = new Date();
  await ctx.repos.nodeMaterial.mint({
    token_hash: hash,
    cluster_id: ctx.cluster.uuid,
    server_name: p.name,
    material: ctx.cloudFactory.secretBox.seal(materialLines(node.material), `node-material:${hash}`),
    expires_at: new Date(now.getTime() + ctx.cloudFactory.nodeMaterial.ttlMs),
    created_at: now,
  });
  return node.userData;
}

/** A node whose volumes Cinder is still making: its server waits for them. */
class VolumesPending extends Error {}

/**
 * The server of a planned node (its port first), created once: found again by name and tag. It goes in its
 * zone (by its index in its group), with its volumes made there first; undefined while Cinder makes them.
 */
export async function ensureServer(ctx: RunContext, p: PlannedNode): Promise<Named | undefined> {
  const nova = await ctx.cloud().servers();
  const spec = await clusterSpec(ctx);
  const t = await template(ctx);
  const port = await ensurePort(ctx, p.name, p.role);
  // Without a load balancer the control plane's floating IP is the API's (api_endpoint's, moved by the roll): not a node's own.
  const cp = isControlPlane(p.role);
  if (spec.nodeOps.floatingIp && !(cp && apiOnControlPlaneFip(spec))) await ensureNodeFloatingIp(ctx, p.name, port.id);
  const group = await serverGroup(ctx, p.group);
  const c = ctx.cluster;
  const flavorRef = p.group.flavor_id ?? (cp ? c.master_flavor_id ?? t.master_flavor_id : c.flavor_id ?? t.flavor_id);
  if (!flavorRef) throw new StepFailure('InvalidRequest', `No flavor for node group ${p.group.name}.`);
  const zone = zoneOf(groupZones(spec.nodes, p.group, c.labels), p.index);
  const generation = (await ctx.memo('pki-generation', async () => (await loadClusterPki(ctx.ds, ctx.cloudFactory.secretBox, c.uuid))?.generation ?? 1));
  try {
    // Nova's create answers the id only: the server as the ledger knows it (id, name, tag) is what comes back.
    const server = await ensure<Named>(ctx, {
      step: 'servers', service: 'compute', type: 'server', name: p.name,
      get: (id) => nova.get(id),
      // Nova takes the tag at create: one list of the cluster's servers per run for every server it ensures.
      findByName: async () => (await ctx.memo('servers-tagged', () => nova.list({ tags: [clusterTag(c.uuid)] }))).filter((x) => x.name === p.name),
      create: async () => {
        const { id: image } = await groupImage(ctx, p.group, spec);
        const volumes = await nodeVolumes(ctx, p, spec.nodes, runtimeVolumeOf(spec, p.group), image, zone);
        if (!volumes.ready) throw new VolumesPending();
        const body = {
          name: p.name,
          flavorRef: await resolveFlavor(ctx, flavorRef),
          // Booting from a volume: the image is the volume's source, not the server's.
          imageRef: spec.nodes.bootVolume ? '' : image,
          ...(volumes.mapping.length > 0 ? { block_device_mapping_v2: volumes.mapping } : {}),
          networks: [{ port: port.id }],
          user_data: Buffer.from(await mintedUserData(ctx, p)).toString('base64'),
          metadata: {
            [META.cluster]: c.uuid,
            [META.nodegroup]: p.group.uuid,
            [META.role]: p.role,
            [META.version]: spec.kubernetes.version,
            [META.caGeneration]: String(generation),
            [META.index]: String(p.index),
          },
          tags: [clusterTag(c.uuid)],
          ...(c.keypair ?? t.keypair_id ? { key_name: (c.keypair ?? t.keypair_id)! } : {}),
          ...(zone ? { availability_zone: zone } : {}),
        };
        const created = await nova.create(body, { group });
        // Only this server may now fetch the material its user-data names.
        await ctx.repos.nodeMaterial.bind(c.uuid, p.name, created.id);
        return { id: created.id, name: p.name, tags: [clusterTag(c.uuid)] };
      },
    });
    // A server found again after a crash between its create and the bind above: its material is its alone now.
    await ctx.repos.nodeMaterial.bind(c.uuid, p.name, server.id);
    ctx.forget('servers');
    return server;
  } catch (e) {
    if (e instanceof VolumesPending) return undefined;
    throw e;
  }
}

/** The servers of planned nodes; the step waits while Cinder makes the volumes of some. */
export async function ensureServers(ctx: RunContext, planned: readonly PlannedNode[]): Promise<void> {
  const waiting: string[] = [];
  for (const p of planned) if (!(await ensureServer(ctx, p))) waiting.push(p.name);
  if (waiting.length > 0) throw new Wait(ctx.pollMs, `the volumes of ${waiting.join(', ')} being made`);
}

/** Delete: the recorded servers and those tagged as the cluster's, waited for until Nova answers 404. */
export const purgeServers: Step = {
  name: 'servers',
  run: (ctx) =>
    purge(ctx, {
      service: 'compute', type: 'server', noun: 'server',
      client: (cloud) => cloud.servers(),
      find: (nova) => nova.list({ tags: [clusterTag(ctx.cluster.uuid)] }),
      async delete(nova, id) {
        try {
          await nova.get(id);
          await nova.delete(id);
        } catch (e) {
          if (isNotFound(e)) return false;
          // 409: already being deleted (or in a state that will pass); look again next time.
          if (!(e instanceof OpenStackError && e.kind === 'conflict')) throw e;
        }
        return 'going';
      },
    }),
};

/** A server in ERROR ends the operation with Nova's fault as the reason. */
export function failIfBroken(s: ObservedServer, condition: ConditionType, after = ''): void {
  if (s.server.status !== 'ERROR') return;
  const fault = faultOf(s);
  const reason = /no valid host/i.test(fault) ? 'NoValidHost' : /quota/i.test(fault) ? 'QuotaExceeded' : 'ServerError';
  throw new StepFailure(reason, `Server ${s.name} (${s.server.id}) is in ERROR: ${fault}${after}`, condition);
}

const faultOf = (s: ObservedServer): string => (s.server as { fault?: { message?: string } }).fault?.message ?? 'unknown fault';

/** How many times a node whose server went to ERROR gets a new one before the operation fails with Nova's fault. */
export const MAX_SERVER_REPLACEMENTS = 2;

/** A node being replaced (the operation's params, so a run elsewhere knows): what it is, the broken servers' ids. */
interface Replacing {
  role: NodeRole;
  index: number;
  group: string;
  broken: string[];
}

/** The operation's nodes whose servers went to ERROR, by name (`replacing` in its params). */
export function replacingOf(ctx: RunContext): Record<string, Replacing> {
  return (ctx.op.params.replacing ?? {}) as Record<string, Replacing>;
}

/**
 * Every server the create booted ACTIVE, each in ERROR seen at the next look (watchedServers: one server list per
 * WATCH_POLLS polls, shared with the steps waiting beside it) and replaced (replaceBrokenServers). Nothing waits for
 * it but readiness: the API's wait goes on beside it.
 */
export const ensureServersActive: Step = {
  name: 'servers_active',
  after: ['control_plane_init', 'workers'],
  async run(ctx) {
    const { pending } = await replaceBrokenServers(ctx, await watchedServers(ctx));
    if (pending.length > 0) throw new Wait(ctx.pollMs, `${pending.length} server(s) not ACTIVE yet`);
  },
};

/**
 * What every operation that waits for servers it booted does with them (create, resize, node group create, repair,
 * the upgrade's roll): each of `servers` in ERROR (those `mine` says the operation waits for) is read for Nova's fault,
 * its condition names it and the fault, and it is deleted and booted again under its name, role and index (new
 * user-data, so a new one-time token) up to MAX_SERVER_REPLACEMENTS times; then the operation fails with that fault.
 * `pending`: the servers of the operation not ACTIVE yet (those booted again included); `changed`: one was
 * deleted or booted (the list the caller holds is out of date).
 */
export async function replaceBrokenServers(ctx: RunContext, servers: ObservedServer[], mine: (s: ObservedServer) => boolean = () => true): Promise<{ pending: string[]; changed: boolean }> {
  const pending: string[] = [];
  let changed = false;
  for (const s of servers) {
    if (!mine(s)) continue;
    if (s.server.status === 'ERROR') {
      await replaceBroken(ctx, await withFault(ctx, s));
      changed = true;
    }
    if (s.server.status !== 'ACTIVE') pending.push(s.name);
  }
  // A broken server gone: its node boots again, while its group still wants that many (not after a rollback
  // returned the group to its size, whose retire took the node's port too).
  const present = new Set(servers.map((s) => s.name));
  const groups = await nodeGroups(ctx);
  const retiring = await retiringOf(ctx);
  const again: PlannedNode[] = [];
  for (const [name, r] of Object.entries(replacingOf(ctx))) {
    const group = groups.find((g) => g.uuid === r.group);
    if (present.has(name) || !group) continue;
    const live = servers.filter((x) => x.nodegroup === group.uuid && !retiring(x)).length + again.filter((a) => a.group.uuid === group.uuid).length;
    if (live < group.node_count) again.push({ name, group, role: r.role, index: r.index });
  }
  if (again.length > 0) {
    await ensureServers(ctx, again);
    pending.push(...again.map((p) => p.name));
    changed = true;
  }
  if (changed) await forgetWatched(ctx);
  return { pending, changed };
}

/**
 * The server in ERROR with Nova's fault: a real Nova leaves the fault out of its server lists (servers/detail), so it
 * is read from the server itself, one GET for a server in ERROR.
 */
export async function withFault(ctx: RunContext, s: ObservedServer): Promise<ObservedServer> {
  if ((s.server as { fault?: unknown }).fault) return s;
  try {
    return { ...s, server: await (await ctx.cloud().servers()).get(s.server.id) };
  } catch (e) {
    if (isNotFound(e)) return s;
    throw e;
  }
}

async function replaceBroken(ctx: RunContext, s: ObservedServer): Promise<void> {
  const condition: ConditionType = isControlPlane(s.role) ? 'control_plane' : 'workers';
  const all = replacingOf(ctx);
  const r = all[s.name] ?? { role: s.role, index: s.index ?? 0, group: s.nodegroup, broken: [] };
  if (!r.broken.includes(s.server.id)) {
    if (r.broken.length >= MAX_SERVER_REPLACEMENTS) failIfBroken(s, condition, ` (its node was booted ${r.broken.length + 1} times)`);
    r.broken = [...r.broken, s.server.id];
    const params = { ...ctx.op.params, replacing: { ...all, [s.name]: r } };
    await ctx.ds.transaction((em) => ctx.repos.operations.setParams(em, ctx.op.id, params));
    ctx.op = { ...ctx.op, params };
    await ctx.setCondition(condition, 'Unknown', 'ReplacingServer', `Server ${s.name} (${s.server.id}) is in ERROR: ${faultOf(s)} Booting it again (${r.broken.length} of ${MAX_SERVER_REPLACEMENTS}).`);
  }
  // Again on every look while it is there: a delete lost to a crash is sent again, one Nova is doing is harmless.
  const nova = await ctx.cloud().servers();
  try {
    await nova.delete(s.server.id);
  } catch (e) {
    if (!(e instanceof OpenStackError && e.kind === 'conflict')) throw e;
  }
  await ctx.ledger.markDeleted('compute', 'server', s.server.id);
}

/**
 * A server's IPv4 addresses as Magnum shows them (node_addresses, master_addresses): its floating
 * ones when it has some (Heat's kube_minion_external_ip), else its fixed ones.
 */
export function addressesOf(s: Server): string[] {
  const fixed: string[] = [];
  const floating: string[] = [];
  for (const list of Object.values((s.addresses ?? {}) as Record<string, { addr: string; version: number; 'OS-EXT-IPS:type'?: string }[]>)) {
    for (const a of list) if (a.version === 4) (a['OS-EXT-IPS:type'] === 'floating' ? floating : fixed).push(a.addr);
  }
  return floating.length > 0 ? floating : fixed;
}

export { observedServers };

/** The apiserver certificate's further names: the floating IP and the DNS name, when there are. */
function apiSans(internal: string, external: string, dnsName: string | undefined): string[] {
  return [...(external !== internal ? [external] : []), ...(dnsName ? [dnsName.replace(/\.$/, '')] : [])];
}
