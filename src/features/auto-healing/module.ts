// Core module: auto-healing (Magnum's auto_healing_* labels). No healer runs in the cluster: the
// service's periodic health check replaces worker nodes that stay unhealthy (Node not Ready, no
// Node for a booted server, server in ERROR) for longer than a grace period, with a surge of one,
// unless too many are unhealthy at once (then it is the cloud or the network, not the nodes).

import { bool, int, label, oneOf } from '../../cluster-spec/labels/types.js';
import { defineModule } from '../../cluster-spec/module.js';
import type { AutoHealingSpec } from '../../cluster-spec/types.js';

/** More unhealthy workers than this share of the cluster's workers: nothing is replaced (Cluster API's maxUnhealthy). */
export const MAX_UNHEALTHY_PERCENT = 40;

export const autoHealingModule = defineModule({
  key: 'autoHealing',
  kind: 'core',
  labels: {
    auto_healing_enabled: label(bool, "Replace worker nodes that stay unhealthy (the service's health check does it; no healer runs in the cluster). Default false."),
    auto_healing_controller: label(
      oneOf(['draino', 'magnum-auto-healer'] as const),
      'Accepted for compatibility: either value means the service-side replacement (draino only cordoned; magnum-auto-healer needed Heat).', { ignored: 'without auto_healing_enabled=true' }
    ),
    auto_healing_unhealthy_seconds: label(
      int(10, 86_400),
      'Not a Magnum label. How long a worker stays unhealthy before it is replaced (magnum-auto-healer: unhealthy-duration). Default 300.', { ignored: 'without auto_healing_enabled=true' }
    ),
  },
  resolve(l, ctx): AutoHealingSpec {
    const enabled = l.auto_healing_enabled ?? false;
    if (!enabled && (l.auto_healing_controller !== undefined || l.auto_healing_unhealthy_seconds !== undefined)) {
      for (const name of ['auto_healing_controller', 'auto_healing_unhealthy_seconds'] as const) if (l[name] !== undefined) ctx.ignore(name);
    }
    return { enabled, unhealthySeconds: l.auto_healing_unhealthy_seconds ?? 300, maxUnhealthyPercent: MAX_UNHEALTHY_PERCENT };
  },
});
