// Hibernate and wake (issue 28), each an idempotent ensure over the cluster's servers as Nova shows them (by the
// cluster's tag), so a run that crashed anywhere carries on from what Nova says:
//   hibernate: the workers shelved (Nova's shelve; with shelved_offload_time 0 they end SHELVED_OFFLOADED, off
//     their hosts), then the control planes, so the API answers while the workers stop and etcd stops last.
//     Draining is not meaningful: every node stops, the pods are back with them on wake.
//   wake: the control planes and the workers unshelved (at once), then /readyz through the endpoint, then every
//     node Ready; the row's hibernation mark is cleared in the transaction that ends the operation.
// A server in ERROR ends the step (terminal); a step past HIBERNATION_DEADLINE_MS fails with the servers it waits
// for. The conditions say what happens: workers and control_plane show Hibernating / Hibernated / Waking.
import { nodeReady } from '../../src/kube/api-client.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { StepFailure, Wait } from '../../src/steps/errors.js';
import { kubeFor } from '../../src/steps/kube.js';
import type { ConditionType } from '../../src/domain/cluster-status.js';
import type { OperationSpec, RunContext, Step } from '../../src/steps/step.js';
import { succeed } from '../runner.js';
import { isControlPlane, observedServers, type ObservedServer } from './ports.js';

/** How long shelving or unshelving every server (and the nodes' return) may take. */
export const HIBERNATION_DEADLINE_MS = 30 * 60_000;

type Which = 'workers' | 'control_plane';
const of = (which: Which) => (s: ObservedServer) => (which === 'control_plane') === isControlPlane(s.role);
const noun = (which: Which) => (which === 'control_plane' ? 'control plane' : 'worker');
const taskOf = (s: ObservedServer): string | null => s.server['OS-EXT-STS:task_state'] ?? null;
const describe = (s: ObservedServer): string => `${s.name} (${s.server.status}${taskOf(s) ? `, ${taskOf(s)}` : ''})`;

/** Asks Nova for an action; a 409 means the server moved meanwhile (the next look sees where it went). */
async function act(ctx: RunContext, s: ObservedServer, action: 'shelve' | 'unshelve'): Promise<void> {
  const nova = await ctx.cloud().servers();
  try {
    await (action === 'shelve' ? nova.shelve(s.server.id) : nova.unshelve(s.server.id));
  } catch (e) {
    if (!(e instanceof OpenStackError && e.status === 409)) throw e;
  }
}

function pastDeadline(ctx: RunContext, what: string, waiting: ObservedServer[], condition: ConditionType): void {
  if (Date.now() - new Date(ctx.op.created_at).getTime() <= HIBERNATION_DEADLINE_MS) return;
  throw new StepFailure('HibernationTimeout', `${what} did not finish within ${HIBERNATION_DEADLINE_MS / 60_000} minutes: ${waiting.map(describe).join(', ')}.`, condition);
}

/** A condition change only when it says something new (one timeline entry per change, not per poll). */
async function say(ctx: RunContext, type: ConditionType, status: 'True' | 'Unknown', reason: string, message: string): Promise<void> {
  const c = ctx.cluster.conditions[type];
  if (c?.status !== status || c.reason !== reason || c.message !== message) await ctx.setCondition(type, status, reason, message);
}

function failIfError(servers: ObservedServer[], condition: ConditionType): void {
  const broken = servers.find((s) => s.server.status === 'ERROR');
  if (broken) throw new StepFailure('ServerError', `Server ${broken.name} is in ERROR: ${broken.server.fault?.message ?? 'unknown fault'}.`, condition);
}

/** Shelves the servers of `which` until each is SHELVED_OFFLOADED. */
function shelveStep(which: Which, after: string[]): Step {
  return {
    name: `hibernate_${which}`,
    condition: which,
    after,
    async run(ctx) {
      const mine = (await observedServers(ctx)).filter(of(which));
      failIfError(mine, which);
      const waiting = mine.filter((s) => s.server.status !== 'SHELVED_OFFLOADED');
      if (waiting.length === 0) {
        await say(ctx, which, 'True', 'Hibernated', `${mine.length} ${noun(which)} server(s) shelved (SHELVED_OFFLOADED): off their hosts, their ports and volumes kept.`);
        return;
      }
      for (const s of waiting) if ((s.server.status === 'ACTIVE' || s.server.status === 'SHUTOFF') && taskOf(s) === null) await act(ctx, s, 'shelve');
      pastDeadline(ctx, `Shelving the ${noun(which)} servers`, waiting, which);
      await say(ctx, which, 'Unknown', 'Hibernating', `Shelving ${waiting.length} of ${mine.length} ${noun(which)} server(s): ${waiting.map((s) => s.name).join(', ')}.`);
      ctx.forget('servers');
      throw new Wait(ctx.pollMs, `${waiting.length} ${noun(which)} server(s) not yet SHELVED_OFFLOADED`);
    },
  };
}

/** Unshelves the servers of `which` until each is ACTIVE. */
function unshelveStep(which: Which): Step {
  return {
    name: `wake_${which}`,
    condition: which,
    after: [],
    async run(ctx) {
      const mine = (await observedServers(ctx)).filter(of(which));
      failIfError(mine, which);
      const waiting = mine.filter((s) => s.server.status !== 'ACTIVE' || taskOf(s) !== null);
      if (waiting.length === 0) return;
      for (const s of waiting) if ((s.server.status === 'SHELVED_OFFLOADED' || s.server.status === 'SHELVED') && taskOf(s) === null) await act(ctx, s, 'unshelve');
      pastDeadline(ctx, `Unshelving the ${noun(which)} servers`, waiting, which);
      await say(ctx, which, 'Unknown', 'Waking', `Unshelving ${waiting.length} of ${mine.length} ${noun(which)} server(s): ${waiting.map((s) => s.name).join(', ')}.`);
      ctx.forget('servers');
      throw new Wait(ctx.pollMs, `${waiting.length} ${noun(which)} server(s) not yet ACTIVE`);
    },
  };
}

const wakeApi: Step = {
  name: 'wake_api',
  condition: 'control_plane',
  after: ['wake_control_plane'],
  async run(ctx) {
    if (await (await kubeFor(ctx)).readyz()) return;
    pastDeadline(ctx, `The API at ${ctx.cluster.api_address}`, (await observedServers(ctx)).filter(of('control_plane')), 'control_plane');
    await say(ctx, 'control_plane', 'Unknown', 'Waking', `Control planes ACTIVE; waiting for the API at ${ctx.cluster.api_address} to answer /readyz.`);
    throw new Wait(ctx.pollMs, 'the API is not ready');
  },
};

const wakeNodes: Step = {
  name: 'wake_nodes',
  after: ['wake_api', 'wake_workers'],
  async run(ctx) {
    const servers = await observedServers(ctx);
    const nodes = new Map((await (await kubeFor(ctx)).listNodes()).map((n) => [n.metadata.name, n]));
    const unready = servers.filter((s) => {
      const n = nodes.get(s.name);
      return !n || !nodeReady(n);
    });
    for (const which of ['control_plane', 'workers'] as const) {
      const mine = servers.filter(of(which));
      const waiting = unready.filter(of(which));
      if (waiting.length === 0) await say(ctx, which, 'True', 'Ready', `${mine.length} ${noun(which)} node(s) Ready after the wake.`);
      else await say(ctx, which, 'Unknown', 'Waking', `Waiting for ${waiting.map((s) => s.name).join(', ')} to be Ready again.`);
    }
    if (unready.length === 0) return;
    pastDeadline(ctx, 'The nodes’ return', unready, 'workers');
    ctx.forget('servers');
    throw new Wait(ctx.pollMs, `${unready.length} node(s) not Ready`);
  },
};

export const hibernateOperation: OperationSpec = {
  kind: 'hibernate',
  parallel: true,
  steps: [shelveStep('workers', []), shelveStep('control_plane', ['hibernate_workers'])],
  finish: async (ctx) => {
    await ctx.event('hibernation', 'Hibernated', 'Every server of the cluster is shelved (SHELVED_OFFLOADED): its compute is free until it is woken.');
    return succeed(ctx);
  },
};

export const wakeOperation: OperationSpec = {
  kind: 'wake',
  parallel: true,
  steps: [unshelveStep('control_plane'), unshelveStep('workers'), wakeApi, wakeNodes],
  finish: async (ctx) => {
    await ctx.event('hibernation', 'Awake', 'Every server is ACTIVE again, the API answers and every node is Ready.');
    return succeed(ctx, (em) => ctx.repos.clusters.update(ctx.cluster.uuid, { hibernation: 'awake', hibernated_at: null }, em));
  },
};
