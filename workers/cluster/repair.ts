// The repair operation (auto-healing, workers/auto-heal.ts): the unhealthy worker servers it names
// retire — drained through the Kubernetes API, their Node deleted, then the server and its port —
// while replacements boot in parallel (planned as for a resize: node_count minus the live,
// non-retiring servers of each worker group, so a server lost behind our back is replaced too).
// Nodes left by servers that no longer exist are deleted. UPDATE_IN_PROGRESS → UPDATE_COMPLETE, as
// the resize of Magnum's auto-healer.
import { kubeFor } from '../../src/steps/kube.js';
import type { OperationSpec, Step } from '../../src/steps/step.js';
import { completeNodeGroups } from './complete.js';
import { observedServers, RETIRING } from './ports.js';
import { drainAndForget } from './drain.js';
import { NODE_STEPS } from './scale.js';

const param = <T>(ctx: { op: { params: Record<string, unknown> } }, k: string): T | undefined => ctx.op.params[k] as T | undefined;

RETIRING.set('repair', async (ctx) => {
  const ids = new Set(param<string[]>(ctx, 'servers') ?? []);
  return (s) => ids.has(s.server.id);
});

/** Node objects whose server is gone (named by the health check); a live server of that name keeps its Node. */
const staleNodes: Step = {
  name: 'stale_nodes',
  after: [],
  async run(ctx) {
    const names = param<string[]>(ctx, 'stale_nodes') ?? [];
    if (names.length === 0) return;
    const live = new Set((await observedServers(ctx)).map((s) => s.name));
    const kube = await kubeFor(ctx);
    await drainAndForget(ctx, kube, names.filter((n) => !live.has(n)));
  },
};

export const repairOperation: OperationSpec = {
  kind: 'repair',
  parallel: true,
  steps: [...NODE_STEPS, staleNodes],
  finish: (ctx) => completeNodeGroups(ctx, 'UPDATE_COMPLETE'),
};
