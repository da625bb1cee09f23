// Core module: how the service treats each node. Magnum's floating_ip_enabled (a template and
// cluster field, default true) gives every node a floating IP, as Magnum's Heat templates did
// (the API load balancer's follows master_lb_floating_ip_enabled, apiServer). A drain waits for
// the pods it evicted, retrying those a PodDisruptionBudget holds, for at most drain_timeout
// seconds; then the node goes anyway, as Cluster API does after its nodeDrainTimeout.

import { int, label } from '../labels/types.js';
import { defineModule } from '../module.js';
import type { NodeOpsSpec } from '../types.js';

export const DEFAULT_DRAIN_TIMEOUT_SECONDS = 600;

export const nodeOpsModule = defineModule({
  key: 'nodeOps',
  kind: 'core',
  labels: {
    drain_timeout: label(
      int(0, 86_400),
      `Not a Magnum label. magnum-cluster-api has none either. Seconds a node's drain waits for its evicted pods to be gone (evictions a PodDisruptionBudget refuses are retried) before the node is removed anyway, as Cluster API's nodeDrainTimeout; 0 = no limit. Default ${DEFAULT_DRAIN_TIMEOUT_SECONDS}.`,
    ),
  },
  resolve(l, ctx): NodeOpsSpec {
    return {
      floatingIp: ctx.cluster.floating_ip_enabled ?? ctx.template.floating_ip_enabled ?? true,
      drainTimeoutSeconds: l.drain_timeout ?? DEFAULT_DRAIN_TIMEOUT_SECONDS,
    };
  },
});
