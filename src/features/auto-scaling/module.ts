// Core module: autoscaling of worker node groups (Magnum's auto_scaling_enabled, min_node_count, max_node_count).
// cluster-autoscaler's magnum provider cannot drive this service (it maps nodes to node groups through Heat
// stacks), so, like auto-healing, the service does it: its periodic health pass adds nodes for pods the scheduler
// cannot place and removes nodes that have run nothing but DaemonSet pods for a while, within each group's
// min_node_count..max_node_count. It never evicts a workload to scale down.

import { bool, int, label } from '../../cluster-spec/labels/types.js';
import { defineModule } from '../../cluster-spec/module.js';
import type { AutoScalingSpec } from '../../cluster-spec/types.js';

export const autoScalingModule = defineModule({
  key: 'autoScaling',
  kind: 'core',
  labels: {
    auto_scaling_enabled: label(
      bool,
      "Scale worker node groups with their pods, within min_node_count..max_node_count of each group (the service does it: up for pods the scheduler cannot place, down for nodes that run only DaemonSet pods; no cluster-autoscaler runs in the cluster). Default false.",
    ),
    min_node_count: label(int(0, 10_000), 'Seeds the default worker group\'s min_node_count (the autoscaler\'s lower bound; resize refuses to go below it). Default 0.'),
    max_node_count: label(int(1, 10_000), "Seeds the default worker group's max_node_count (the autoscaler's upper bound; resize refuses to go above it). With auto_scaling_enabled and no value: node_count + 1, as Magnum's autoscaler had."),
    autoscaler_scale_down_unneeded_seconds: label(
      int(0, 86_400),
      "Not a Magnum label. How long a worker must run only DaemonSet pods before the autoscaler removes it (cluster-autoscaler's --scale-down-unneeded-time). Default 600.", { ignored: 'without auto_scaling_enabled=true' }
    ),
  },
  resolve(l, ctx): AutoScalingSpec {
    const enabled = l.auto_scaling_enabled ?? false;
    if (l.min_node_count !== undefined && l.max_node_count !== undefined && l.min_node_count > l.max_node_count) {
      ctx.reject('max_node_count', `Must be at least min_node_count (${l.min_node_count}).`);
    }
    if (!enabled && l.autoscaler_scale_down_unneeded_seconds !== undefined) ctx.ignore('autoscaler_scale_down_unneeded_seconds');
    return { enabled, minNodeCount: l.min_node_count ?? 0, maxNodeCount: l.max_node_count ?? null, scaleDownUnneededSeconds: l.autoscaler_scale_down_unneeded_seconds ?? 600 };
  },
});
