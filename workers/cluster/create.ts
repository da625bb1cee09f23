// The create operation (k8s-bootstrap §1.1) as a graph of idempotent steps, everything independent
// in parallel: network and security groups and server groups first; ports; the API endpoint (load
// balancer POST, floating IP) and its listener, pool, members, monitor and DNS name while every
// control plane and the workers boot; then /readyz, the add-ons, the other control planes joining
// one at a time (each waits for its turn, granted through the API), and readiness. CREATE_COMPLETE records the API address, the Kubernetes version and addresses.
import type { OperationSpec } from '../../src/steps/step.js';
import { ensureApiEndpoint, ensureApiListener, ensureApiMembers, ensureApiMonitor } from './api-lb.js';
import { ensureAddons, ensureApiReady, ensureControlPlaneInit, ensureControlPlaneJoins, ensureReady, ensureWorkers } from './bootstrap.js';
import { completeNodeGroups } from './complete.js';
import { ensureApiDnsRecord } from '../../src/features/api-dns/steps.js';
import { ensureExternalDnsZone } from '../../src/features/external-dns/steps.js';
import { ensureIngressDnsRecord } from '../../src/features/ingress/steps.js';
import { ensureKmsKey } from '../../src/features/kms/steps.js';
import { ensureManilaService } from '../../src/features/manila-csi/steps.js';
import { ensureNetwork, ensureSecurityGroups } from './network.js';
import { ensurePorts } from './ports.js';
import { ensureServerGroups } from './servers.js';

export const createOperation: OperationSpec = {
  kind: 'create',
  deadline: true,
  parallel: true,
  steps: [
    ensureNetwork,
    ensureSecurityGroups,
    ensureServerGroups,
    ensureKmsKey,
    ensurePorts,
    ensureApiEndpoint,
    ensureApiListener,
    ensureApiMembers,
    ensureApiMonitor,
    ensureApiDnsRecord,
    ensureIngressDnsRecord,
    ensureExternalDnsZone,
    ensureManilaService,
    ensureControlPlaneInit,
    ensureWorkers,
    ensureApiReady,
    ensureAddons,
    ensureControlPlaneJoins,
    ensureReady,
  ],
  finish: (ctx) => completeNodeGroups(ctx, 'CREATE_COMPLETE'),
};
