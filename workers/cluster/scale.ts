// Node changes after the create (k8s-bootstrap §5): resize and update (a node group's count, with
// named nodes_to_remove or else the newest), node group create/update/delete. New nodes join with
// a bootstrap token the worker registers in the cluster for the operation; removed nodes are
// cordoned, drained through the Eviction API (drain.ts), their Node deleted, then their server and port.
import type { KubeClient } from '../../src/kube/api-client.js';
import { isNotFound, OpenStackError } from '../../src/openstack/errors.js';
import { Wait } from '../../src/steps/errors.js';
import { kubeFor } from '../../src/steps/kube.js';
import { succeed } from '../runner.js';
import type { OperationSpec, RunContext, Step } from '../../src/steps/step.js';
import { completeNodeGroups } from './complete.js';
import { nodeGroups } from '../../src/steps/context.js';
import { syncMembers } from './api-lb.js';
import { isControlPlane, observedServers, plannedNodes, RETIRING, retiringOf, type ObservedServer, type Retiring } from './ports.js';
import { ensurePorts } from './ports.js';
import { bootstrapToken, ensureServerGroups, ensureServers, replaceBrokenServers } from './servers.js';
import { unready } from './bootstrap.js';
import { drainAndForget } from './drain.js';
import { dropNodeFloatingIp } from './floating-ips.js';
import { finishResize, rollBackResize, rollingBack } from './rollback.js';
import { dropOrphanVolumes } from './volumes.js';

const param = (ctx: RunContext, k: string): unknown => (ctx.op.params as Record<string, unknown>)[k];
const created = (s: ObservedServer): number => new Date((s.server as { created?: string }).created ?? 0).getTime();

/** Resize/update: the named nodes, then the newest of the group beyond its node_count; rolling back, those the operation booted. */
async function resizeRetiring(ctx: RunContext): Promise<Retiring> {
  const groupId = param(ctx, 'nodegroup') as string;
  const back = rollingBack(ctx);
  const named = new Set((back ? back.booted : ((param(ctx, 'nodes_to_remove') as string[] | undefined) ?? [])).map((x) => x.toLowerCase()));
  const g = (await nodeGroups(ctx)).find((x) => x.uuid === groupId);
  const mine = (await observedServers(ctx)).filter((s) => s.nodegroup === groupId);
  const out = new Set(mine.filter((s) => named.has(s.server.id.toLowerCase()) || named.has(s.name.toLowerCase())).map((s) => s.server.id));
  const keep = mine.filter((s) => !out.has(s.server.id)).sort((a, b) => created(a) - created(b) || a.name.localeCompare(b.name));
  const excess = Math.max(0, keep.length - (g?.node_count ?? keep.length));
  for (const s of keep.slice(keep.length - excess)) out.add(s.server.id);
  return (s) => out.has(s.server.id);
}

RETIRING.set('resize', resizeRetiring);
RETIRING.set('update', resizeRetiring);
RETIRING.set('nodegroup_delete', async (ctx) => {
  const groupId = param(ctx, 'nodegroup') as string;
  return (s) => s.nodegroup === groupId;
});

/** The operation's bootstrap token as a Secret in kube-system (k8s-bootstrap §1.6), valid one hour. */
export async function ensureJoinToken(ctx: RunContext, kube: KubeClient): Promise<void> {
  const [id, secret] = bootstrapToken(ctx).split('.') as [string, string];
  await kube.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      'token-id': id,
      'token-secret': secret,
      expiration: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
    },
  }, 'magnum');
}

export async function dropJoinToken(ctx: RunContext, kube: KubeClient): Promise<void> {
  const [id] = bootstrapToken(ctx).split('.') as [string];
  await kube.delete('v1', 'Secret', 'kube-system', `bootstrap-token-${id}`).catch(() => undefined);
}

/** Deletes a server (its floating IP first, as Heat did); its port goes once it is gone (dropOrphanPorts). Wait until then. */
export async function removeServer(ctx: RunContext, s: ObservedServer): Promise<void> {
  await dropNodeFloatingIp(ctx, s.name);
  const nova = await ctx.cloud().servers();
  try {
    await nova.delete(s.server.id);
  } catch (e) {
    if (!(e instanceof OpenStackError && e.kind === 'conflict') && !isNotFound(e)) throw e;
  }
  throw new Wait(ctx.pollMs, `server ${s.name} being deleted`);
}

/**
 * Ports of servers that are gone (the server's delete frees but keeps a pre-made port), and the volumes of
 * nodes that are gone (with their server) or were never booted. The ledger's rows of servers Nova no longer
 * has (removed, replaced) are marked deleted, so that what reads it (the stream) names only what exists.
 */
export async function dropOrphanPorts(ctx: RunContext, making: Iterable<string> = []): Promise<void> {
  const observed = await observedServers(ctx);
  const live = new Set(observed.map((s) => s.name));
  const planned = new Set([...(await plannedNodes(ctx)).map((p) => p.name), ...making]);
  const liveIds = new Set(observed.map((s) => s.server.id));
  for (const row of await ctx.ledger.live('server')) {
    if (liveIds.has(row.cloud_id) || (row.name !== null && planned.has(row.name))) continue;
    await ctx.ledger.markDeleted('compute', 'server', row.cloud_id);
  }
  const n = await ctx.cloud().neutron();
  for (const row of await ctx.ledger.live('port')) {
    if (!row.name || live.has(row.name) || planned.has(row.name)) continue;
    await dropNodeFloatingIp(ctx, row.name);
    await n.ports.delete(row.cloud_id); // already gone: false, not an error
    await ctx.ledger.markDeleted('network', 'port', row.cloud_id);
  }
  await dropOrphanVolumes(ctx, new Set([...live, ...planned]));
}

export const scaleDown: Step = {
  name: 'scale_down',
  condition: 'workers',
  after: [],
  async run(ctx) {
    const retiring = await (RETIRING.get(ctx.op.kind)?.(ctx) ?? Promise.resolve(() => false));
    const leaving = (await observedServers(ctx)).filter(retiring);
    if (leaving.length > 0) {
      await ctx.setCondition('workers', 'Unknown', 'Removing', `Removing ${leaving.map((s) => s.name).join(', ')}.`);
      const kube = await kubeFor(ctx);
      if (leaving.some((s) => isControlPlane(s.role))) await syncMembers(ctx, (port) => !leaving.some((s) => s.name === port));
      if (await kube.readyz()) await drainAndForget(ctx, kube, leaving.map((s) => s.name));
      for (const s of leaving) {
        try {
          await removeServer(ctx, s);
        } catch (e) {
          if (!(e instanceof Wait)) throw e;
        }
      }
      throw new Wait(ctx.pollMs, `${leaving.length} server(s) being removed`);
    }
    await dropOrphanPorts(ctx);
  },
};

export const joinToken: Step = {
  name: 'join_token',
  after: [],
  async run(ctx) {
    if ((await plannedNodes(ctx)).length === 0) return;
    await ensureJoinToken(ctx, await kubeFor(ctx));
  },
};

export const scaleUp: Step = {
  name: 'scale_up',
  condition: 'workers',
  after: ['ports', 'server_groups', 'join_token'],
  async run(ctx) {
    const planned = await plannedNodes(ctx);
    await ensureServers(ctx, planned);
    if (planned.length > 0) await ctx.setCondition('workers', 'Unknown', 'Joining', `${planned.map((p) => p.name).join(', ')} joining.`);
    // A broken server on its way out (a repair's) is not replaced; the others are, as the create's.
    const retiring = await retiringOf(ctx);
    await replaceBrokenServers(ctx, await observedServers(ctx), (s) => !retiring(s));
  },
};

/** Every remaining server a usable Node. */
export const nodesReady: Step = {
  name: 'nodes_ready',
  after: ['scale_up', 'scale_down'],
  async run(ctx) {
    ctx.forget('servers');
    const retiring = await retiringOf(ctx);
    const { changed } = await replaceBrokenServers(ctx, await observedServers(ctx), (s) => !retiring(s));
    if (changed) throw new Wait(ctx.pollMs, 'a server in ERROR being booted again');
    const servers = await observedServers(ctx);
    const kube = await kubeFor(ctx);
    const waiting = await unready(ctx, kube, servers);
    if (waiting.length > 0) {
      await ctx.setCondition('workers', 'Unknown', 'NodesNotReady', `Waiting for ${waiting.map((s) => s.name).join(', ')} to be Ready.`);
      throw new Wait(ctx.pollMs, `${waiting.length} node(s) not Ready`);
    }
    await dropJoinToken(ctx, kube);
    await ctx.setCondition('workers', 'True', 'Ready', `${servers.filter((s) => !isControlPlane(s.role)).length} worker node(s) Ready.`);
  },
};

export const NODE_STEPS: readonly Step[] = [ensureServerGroups, scaleDown, { ...ensurePorts, after: [] }, joinToken, scaleUp, nodesReady];

function nodeOperation(kind: 'resize' | 'update' | 'nodegroup_create', status: 'UPDATE_COMPLETE' | 'CREATE_COMPLETE'): OperationSpec {
  return {
    kind,
    parallel: true,
    steps: NODE_STEPS,
    finish: (ctx) => finishResize(ctx, status, param(ctx, 'nodegroup') as string),
    ...(kind === 'nodegroup_create' ? {} : { rollback: rollBackResize }),
  };
}

export const resizeOperation = nodeOperation('resize', 'UPDATE_COMPLETE');
export const updateOperation = nodeOperation('update', 'UPDATE_COMPLETE');
export const nodegroupCreateOperation = nodeOperation('nodegroup_create', 'CREATE_COMPLETE');

/** min/max only: nothing in the cloud changes. */
export const nodegroupUpdateOperation: OperationSpec = {
  kind: 'nodegroup_update',
  steps: [],
  finish: (ctx) => completeNodeGroups(ctx, 'UPDATE_COMPLETE', param(ctx, 'nodegroup') as string),
};

/** The group's servers go, then its server group, then its row. */
export const nodegroupDeleteOperation: OperationSpec = {
  kind: 'nodegroup_delete',
  parallel: true,
  steps: [
    scaleDown,
    {
      name: 'server_group',
      after: ['scale_down'],
      async run(ctx) {
        const g = (await nodeGroups(ctx)).find((x) => x.uuid === param(ctx, 'nodegroup'));
        if (!g) return;
        const nova = await ctx.cloud().novaResources();
        for (const r of await ctx.ledger.live('server_group')) {
          if (!r.name?.endsWith(`-${g.name}`)) continue;
          await nova.deleteServerGroup(r.cloud_id);
          await ctx.ledger.markDeleted(r.service, 'server_group', r.cloud_id);
        }
      },
    },
  ],
  async finish(ctx) {
    const groupId = param(ctx, 'nodegroup') as string;
    return succeed(ctx, async (em) => {
      await ctx.repos.nodegroups.remove(em, groupId);
    });
  },
};
