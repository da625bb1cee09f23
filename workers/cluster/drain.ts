// Draining nodes before their servers go (k8s-bootstrap §5): each is cordoned and marked with the
// time its drain started (an annotation on the Node, so a run elsewhere keeps the same deadline),
// its pods evicted through the Eviction API (DaemonSet and mirror pods stay, as kubectl drain and
// Cluster API leave them), evictions a PodDisruptionBudget refuses (429) retried on the next look,
// and the step waits until the evicted pods are gone. Past the cluster's drain_timeout the node
// goes anyway, as Cluster API does after nodeDrainTimeout, and an event says which pods were still
// there and why. A node whose kubelet is unreachable is not waited for: its pods cannot end.
import type { ConditionType } from '../../src/domain/cluster-status.js';
import { KubeError, type KubeClient, type KubePod } from '../../src/kube/api-client.js';
import { StepFailure, Wait } from '../../src/steps/errors.js';
import type { RunContext } from '../../src/steps/step.js';
import { clusterSpec } from '../../src/steps/context.js';

export const DRAIN_STARTED = 'magnum.openstack.org/drain-started';

const kept = (p: KubePod): boolean =>
  (p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet') || !!p.metadata.annotations?.['kubernetes.io/config.mirror'];
const podName = (p: KubePod): string => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`;

interface NodeDrain {
  node: string;
  /** Pods still there, and why when an eviction was refused. */
  waiting: { pod: string; blocked?: string }[];
  expired: boolean;
}

/** Cordons, evicts, and looks at one node; undefined when it is gone (nothing to wait for). */
async function drainOne(kube: KubeClient, name: string, timeoutSeconds: number): Promise<NodeDrain | undefined> {
  let node = await kube.getNode(name);
  if (!node) return undefined;
  let started = Date.parse(node.metadata.annotations?.[DRAIN_STARTED] ?? '');
  if (!node.spec?.unschedulable || Number.isNaN(started)) {
    const at = Number.isNaN(started) ? new Date().toISOString() : node.metadata.annotations![DRAIN_STARTED]!;
    node = (await kube.mergePatch('v1', 'Node', undefined, name, { metadata: { annotations: { [DRAIN_STARTED]: at } }, spec: { unschedulable: true } })) as typeof node | undefined;
    if (!node) return undefined;
    started = Date.parse(at);
  }
  const unreachable = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'Unknown') ?? false;
  const waiting: NodeDrain['waiting'] = [];
  for (const p of await kube.podsOn(name)) {
    if (kept(p)) continue;
    if (p.metadata.deletionTimestamp) {
      // Ending; on an unreachable node it never will (its kubelet is gone): not waited for.
      if (!unreachable) waiting.push({ pod: podName(p) });
      continue;
    }
    try {
      await kube.evict(p.metadata.namespace ?? 'default', p.metadata.name);
      waiting.push({ pod: podName(p) });
    } catch (e) {
      if (!(e instanceof KubeError)) throw e;
      if (e.status === 429) {
        waiting.push({ pod: podName(p), blocked: e.causes.map((c) => c.message).filter(Boolean).join('; ') || 'its PodDisruptionBudget' });
      } else if (e.status === 0 || e.status >= 500) {
        waiting.push({ pod: podName(p), blocked: e.message });
      } else throw new StepFailure('DrainFailed', `Evicting ${podName(p)} from ${name}: ${e.message}`);
    }
  }
  const expired = timeoutSeconds > 0 && Date.now() - started > timeoutSeconds * 1000;
  return { node: name, waiting, expired };
}

/**
 * Drains `names` and deletes their Nodes once drained (or past the deadline); Wait while any is
 * still draining. Nodes already gone count as drained.
 */
export async function drainAndForget(ctx: RunContext, kube: KubeClient, names: readonly string[], condition: ConditionType = 'workers'): Promise<void> {
  const timeout = (await clusterSpec(ctx).then((s) => s.nodeOps.drainTimeoutSeconds, () => 0));
  const busy: NodeDrain[] = [];
  for (const name of names) {
    const d = await drainOne(kube, name, timeout);
    if (!d) continue;
    if (d.waiting.length > 0 && !d.expired) {
      busy.push(d);
      continue;
    }
    if (d.waiting.length > 0) {
      const blocked = d.waiting.map((w) => (w.blocked ? `${w.pod} (${w.blocked})` : w.pod)).join(', ');
      ctx.log('drain timed out', { node: name, pods: d.waiting.map((w) => w.pod) });
      await ctx.event(condition, 'DrainTimeout', `Node ${name} was not drained within ${timeout} s (label drain_timeout): ${blocked} still there; the node is removed anyway.`, 'warning');
    }
    await kube.deleteNode(name);
  }
  if (busy.length === 0) return;
  for (const d of busy) {
    const blocked = d.waiting.filter((w) => w.blocked);
    if (blocked.length === 0) continue;
    const until = timeout > 0 ? `for at most ${timeout} s (label drain_timeout)` : 'without a time limit (drain_timeout=0)';
    // Once per node and operation (in this process): the first refusal is news, the retries are not.
    await ctx.memoRuns(`drain-blocked:${d.node}`, async () => {
      await ctx.event(condition, 'DrainBlocked', `Draining ${d.node}: ${blocked.map((w) => `${w.pod} (${w.blocked})`).join(', ')}; retrying ${until}.`, 'warning');
      return true;
    });
  }
  const what = busy.map((d) => `${d.node} (${d.waiting.length} pod(s))`).join(', ');
  await ctx.setCondition(condition, 'Unknown', 'Draining', `Draining ${what}.`);
  throw new Wait(ctx.pollMs, `draining ${what}`);
}
