// The create operation (k8s-bootstrap §1.1) as a graph of idempotent steps, everything independent
// in parallel: network and security groups and server groups first; ports; the API endpoint (load
// balancer POST, floating IP) and its listener, pool, members, monitor and DNS name while every
// control plane and the workers boot; then /readyz, the add-ons, the other control planes joining
// one at a time (each waits for its turn, granted through the API), and readiness. CREATE_COMPLETE records the API address, the Kubernetes version and addresses.
import { features } from '../../src/features/registry.js';
import type { OperationSpec } from '../../src/steps/step.js';
import { assemble } from './graph.js';
import { ensureApiEndpoint, ensureApiListener, ensureApiMembers, ensureApiMonitor } from './api-lb.js';
import { ensureAddons, ensureApiReady, ensureControlPlaneInit, ensureControlPlaneJoins, ensureReady, ensureWorkers } from './bootstrap.js';
import { completeNodeGroups } from './complete.js';
import { ensureNetwork, ensureSecurityGroups } from './network.js';
import { ensurePorts } from './ports.js';
import { ensureServerGroups, ensureServersActive } from './servers.js';

export const createOperation: OperationSpec = {
  kind: 'create',
  deadline: true,
  parallel: true,
  // The core's steps, then each feature's (src/features/registry.ts), placed by what they come after and before.
  steps: assemble(
    [
      ensureNetwork,
      ensureSecurityGroups,
      ensureServerGroups,
      ensurePorts,
      ensureApiEndpoint,
      ensureApiListener,
      ensureApiMembers,
      ensureApiMonitor,
      ensureControlPlaneInit,
      ensureWorkers,
      ensureServersActive,
      ensureApiReady,
      ensureAddons,
      ensureControlPlaneJoins,
      ensureReady,
    ],
    features().flatMap((f) => f.create ?? []),
  ),
  finish: (ctx) => completeNodeGroups(ctx, 'CREATE_COMPLETE'),
};
