// Rolling replacement (k8s-bootstrap §5, §6): upgrade and CA rotation replace nodes, control
// planes first and one at a time, then the workers of the group with a surge of the upgrade's
// max_batch_size (at most the group's outdated nodes): the new nodes join and are Ready before as
// many old ones are drained and deleted (the ports those kept go before the next batch's are made,
// so the roll holds no more than its surge: src/kube/bill.ts rollBill). A node is outdated when its server
// metadata shows another Kubernetes version (upgrade) or an older CA generation (rotation).
import { loadCa, loadClusterPki, rotateClusterPki, sealContext } from '../../src/pki/store.js';
import { StepFailure, Wait } from '../../src/steps/errors.js';
import { ACCESS, forgetKubeIdentity, kubeFor } from '../../src/steps/kube.js';
import { serverName } from '../../src/steps/naming.js';
import type { OperationSpec, RunContext, Step } from '../../src/steps/step.js';
import { controlPlaneFixed, apiOnControlPlaneFip } from '../../src/cluster-spec/api-endpoint.js';
import { moveApiFloatingIp, syncMembers } from './api-lb.js';
import { applyAddons, grantJoinTurn, nodeUsable } from './bootstrap.js';
import { completeNodeGroups } from './complete.js';
import { clusterSpec, effectiveLabels, nodeGroups, template } from '../../src/steps/context.js';
import { isControlPlane, observedServers, type ObservedServer } from './ports.js';
import { drainAndForget } from './drain.js';
import { dropOrphanPorts, ensureJoinToken, removeServer } from './scale.js';
import { ensureServerGroups, ensureServers, failIfBroken, replaceBrokenServers, withFault } from './servers.js';
import { freeIndexes, heldIndexes } from '../../src/cluster-spec/zones.js';

const param = <T>(ctx: RunContext, k: string): T | undefined => (ctx.op.params as Record<string, unknown>)[k] as T | undefined;

type Outdated = (s: ObservedServer) => boolean;

/** Nodes replaced at once per worker group: the upgrade's max_batch_size (1 when absent, and for a CA rotation). */
const batchSize = (ctx: RunContext): number => Math.max(1, Math.floor(Number(param<number>(ctx, 'max_batch_size') ?? 1)) || 1);

/** Which servers the operation replaces: control planes always, workers of its node group (all groups for a rotation). */
async function outdatedOf(ctx: RunContext): Promise<Outdated> {
  const group = param<string>(ctx, 'nodegroup');
  if (ctx.op.kind === 'upgrade') {
    const version = (await clusterSpec(ctx)).kubernetes.version;
    const groups = await nodeGroups(ctx);
    const master = groups.find((g) => g.role === 'master')?.uuid;
    const target = groups.find((g) => g.uuid === group);
    // A default group's upgrade is the cluster's: control planes first; another group follows the cluster.
    const inScope = (s: ObservedServer) => s.nodegroup === group || (target?.is_default === true && s.nodegroup === master);
    return (s) => inScope(s) && s.version !== version;
  }
  const generation = (await loadClusterPki(ctx.ds, ctx.cloudFactory.secretBox, ctx.cluster.uuid))?.generation ?? 1;
  return (s) => s.caGeneration < generation;
}

export const roll: Step = {
  name: 'roll',
  condition: 'control_plane',
  after: ['server_groups'],
  async run(ctx) {
    const outdated = await outdatedOf(ctx);
    // The roll's new servers in ERROR are booted again as the create's are; an outdated one in ERROR ends it.
    const { changed } = await replaceBrokenServers(ctx, await observedServers(ctx), (s) => !outdated(s));
    if (changed) {
      ctx.forget('servers');
      throw new Wait(ctx.pollMs, 'a server in ERROR being booted again');
    }
    const servers = await observedServers(ctx);
    for (const s of servers) if (s.server.status === 'ERROR') failIfBroken(await withFault(ctx, s), isControlPlane(s.role) ? 'control_plane' : 'workers');
    const old = servers.filter(outdated).sort((a, b) => Number(isControlPlane(b.role)) - Number(isControlPlane(a.role)) || a.name.localeCompare(b.name));
    const first = old[0];
    if (!first) {
      // Every node replaced: the ports the old servers kept (and a failed earlier attempt's) go.
      await dropOrphanPorts(ctx);
      return;
    }
    const condition = isControlPlane(first.role) ? 'control_plane' : 'workers';
    // The API refuses such an operation at the request; a run of one begun before that check still stops here.
    const fixed = isControlPlane(first.role) ? controlPlaneFixed(await clusterSpec(ctx)) : null;
    if (fixed) throw new StepFailure('NotSupported', `The control plane cannot be replaced: ${fixed}.`, condition);
    const groups = await nodeGroups(ctx);
    const g = groups.find((x) => x.uuid === first.nodegroup);
    if (!g) throw new StepFailure('NotFound', `Server ${first.name} belongs to no node group.`, condition);
    const controlPlane = isControlPlane(first.role);
    const kube = await kubeFor(ctx);
    const inGroup = servers.filter((s) => s.nodegroup === g.uuid);
    const oldInGroup = inGroup.filter(outdated).sort((a, b) => a.name.localeCompare(b.name));
    // A surge of max_batch_size (control planes one at a time: etcd keeps its quorum), never more than the group's outdated nodes.
    const batch = Math.min(controlPlane ? 1 : batchSize(ctx), oldInGroup.length);
    const target = g.node_count + batch;
    if (inGroup.length < target) {
      const spec = await clusterSpec(ctx);
      const taken = new Set(servers.map((s) => s.name));
      // Each new node takes the index (so the zone) of an outdated node no new one replaces yet, in their order.
      const held = heldIndexes(inGroup);
      const covered = new Set(inGroup.filter((s) => !outdated(s)).map((s) => held.get(s.name)));
      const replacing = [...new Set(oldInGroup.map((s) => held.get(s.name)!))].filter((i) => !covered.has(i));
      replacing.push(...freeIndexes(held.values(), target - inGroup.length));
      const names: string[] = [];
      for (let i = 0; names.length < target - inGroup.length; i++) {
        const name = serverName(spec.cluster.shortName, g.role === 'master' ? 'control-plane' : g.is_default ? 'worker' : g.name, ctx.op.id, g.uuid, i);
        if (!taken.has(name)) names.push(name);
      }
      // The ports the previous batch's servers kept go before this batch's are made: the roll holds at most its surge.
      // This batch's own (a port and volumes made while Cinder makes the rest) are not the group's plan: kept by name.
      await dropOrphanPorts(ctx, names);
      await ensureJoinToken(ctx, kube);
      const role = controlPlane ? 'control-plane' : 'worker';
      await ensureServers(ctx, names.map((name, k) => ({ name, group: g, role, index: replacing[k]! })));
      if (controlPlane) {
        await grantJoinTurn(kube, names[0]!);
        ctx.forget('servers');
        ctx.forget('cp-ports');
        await syncMembers(ctx).catch((e) => { if (!(e instanceof Wait)) throw e; });
      }
      const replaced = oldInGroup.slice(0, batch).map((s) => s.name).join(', ');
      await ctx.setCondition(condition, 'Unknown', 'Replacing', `${names.join(', ')} joining to replace ${replaced}.`);
      throw new Wait(ctx.pollMs, `${names.join(', ')} joining`);
    }
    const fresh = inGroup.filter((s) => !outdated(s));
    const nodes = new Map((await kube.listNodes()).map((n) => [n.metadata.name, n]));
    const joining = fresh.filter((s) => { const n = nodes.get(s.name); return s.server.status !== 'ACTIVE' || !n || !nodeUsable(n); });
    if (joining.length > 0) {
      // Every run grants the joining control plane its turn and its load balancer member again
      // (both idempotent): the run that booted it may have ended before it could (killed, a
      // retryable error); the node waits for its turn, and removing the old member later must not
      // leave the API without one.
      if (controlPlane) {
        await grantJoinTurn(kube, joining[0]!.name);
        await syncMembers(ctx).catch((e) => {
          if (!(e instanceof Wait)) throw e;
        });
      }
      await ctx.setCondition(condition, 'Unknown', 'Replacing', `${joining.map((s) => s.name).join(', ')} joining to replace ${oldInGroup.slice(0, batch).map((s) => s.name).join(', ')}.`);
      throw new Wait(ctx.pollMs, `${joining[0]!.name} joining`);
    }
    // The surge is Ready: as many outdated nodes as it added go (their load balancer members first).
    const retiring = oldInGroup.slice(0, inGroup.length - g.node_count);
    const names = new Set(retiring.map((s) => s.name));
    if (controlPlane) await syncMembers(ctx, (port) => !names.has(port));
    // Without a load balancer the API's floating IP moves to the new control plane before the old one goes.
    if (controlPlane && apiOnControlPlaneFip(await clusterSpec(ctx))) await moveApiFloatingIp(ctx, fresh[0]!.name);
    await drainAndForget(ctx, kube, [...names], condition);
    await ctx.setCondition(condition, 'Unknown', 'Replacing', `Removing ${[...names].join(', ')}.`);
    for (const s of retiring) {
      await removeServer(ctx, s).catch((e) => { if (!(e instanceof Wait)) throw e; });
    }
    throw new Wait(ctx.pollMs, `${retiring.length} server(s) being removed`);
  },
};

/** After the control planes are replaced: add-ons whose versions follow Kubernetes' (OCCM, CSI, ...). */
const reapplyAddons: Step = {
  name: 'addons',
  after: ['roll'],
  async run(ctx) {
    await applyAddons(ctx, await kubeFor(ctx));
    if (ctx.cluster.conditions.control_plane?.status !== 'True') await ctx.setCondition('control_plane', 'True', 'Ready', 'Control plane up to date.');
    if (ctx.cluster.conditions.workers?.status !== 'True') await ctx.setCondition('workers', 'True', 'Ready', 'Workers up to date.');
  },
};

export const upgradeOperation: OperationSpec = {
  kind: 'upgrade',
  parallel: true,
  steps: [ensureServerGroups, roll, reapplyAddons],
  async finish(ctx) {
    const target = param<string>(ctx, 'cluster_template');
    const g = (await nodeGroups(ctx)).find((x) => x.uuid === param<string>(ctx, 'nodegroup'));
    if (target && g?.is_default) {
      await ctx.repos.clusters.update(ctx.cluster.uuid, { cluster_template_id: target, labels: effectiveLabels(ctx, await template(ctx)) });
    }
    // The groups rolled (the control planes' and the one named) now run the new template's image.
    const t = await template(ctx);
    if (target && g) {
      const rolled = (await nodeGroups(ctx)).filter((x) => x.role === 'master' || x.uuid === g.uuid).map((x) => x.uuid);
      await ctx.ds.transaction(async (em) => {
        for (const uuid of rolled) await ctx.repos.nodegroups.updateByUuid(em, uuid, { image_id: t.image_id });
      });
    }
    return completeNodeGroups(ctx, 'UPDATE_COMPLETE');
  },
};

/** New CAs (an ensure: a retried run finds them), the previous kubernetes CA kept sealed in the operation for the roll. */
const rotatePki: Step = {
  name: 'rotate_pki',
  after: [],
  async run(ctx) {
    if (param<string>(ctx, 'previous_ca')) return;
    const box = ctx.cloudFactory.secretBox;
    await ctx.ds.transaction(async (em) => {
      const previous = await loadCa(em, box, ctx.cluster.uuid, 'kubernetes');
      if (!previous) throw new StepFailure('NotFound', 'The cluster has no certificate authority.', 'control_plane');
      const from = param<number>(ctx, 'from_generation');
      const rotated = await rotateClusterPki(em, box, ctx.cluster, from !== undefined ? { fromGeneration: from } : {});
      if (!rotated.rotated) throw new StepFailure('Conflict', 'The CAs were rotated by an earlier run whose previous CA was not kept; rotate again.', 'control_plane');
      const params = { ...ctx.op.params, previous_ca: previous.cert, previous_ca_key: box.seal(previous.key, `${sealContext(ctx.cluster.uuid, 'kubernetes')}:previous`), generation: rotated.generation };
      await ctx.repos.operations.setParams(em, ctx.op.id, params);
      ctx.op = { ...ctx.op, params };
    });
    forgetKubeIdentity(ctx.cluster.uuid);
    ctx.forget('kube');
    ctx.forget('pki');
    ctx.forget('pki-generation');
  },
};

ACCESS.set('rotate_ca', async (ctx) => {
  const cert = param<string>(ctx, 'previous_ca');
  const sealed = param<string>(ctx, 'previous_ca_key');
  if (!cert || !sealed) return {};
  const generation = param<number>(ctx, 'generation') ?? 0;
  const oldControlPlanes = (await observedServers(ctx)).some((s) => isControlPlane(s.role) && s.caGeneration < generation);
  // The API trusts the CAs of its live control planes: the old identity works until the last old one goes.
  const previous = { cert, key: ctx.cloudFactory.secretBox.open(sealed, `${sealContext(ctx.cluster.uuid, 'kubernetes')}:previous`) };
  return { trust: [cert], ...(oldControlPlanes ? { identityCa: previous } : {}) };
});

export const rotateCaOperation: OperationSpec = {
  kind: 'rotate_ca',
  parallel: true,
  steps: [rotatePki, { ...ensureServerGroups, after: ['rotate_pki'] }, roll, reapplyAddons],
  async finish(ctx) {
    forgetKubeIdentity(ctx.cluster.uuid);
    ctx.forget('kube');
    return completeNodeGroups(ctx, 'UPDATE_COMPLETE');
  },
};
