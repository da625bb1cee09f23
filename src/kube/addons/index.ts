// The registered add-ons, in apply order (spec k8s-bootstrap §1.7). ADDON_MODULES in spec/registry.ts is this list.

import { calicoAddon } from './cni-calico/index.js';
import { cinderCsiAddon } from './cinder-csi/index.js';
import { dashboardAddon } from './dashboard/index.js';
import { cloudConfigAddon } from './cloud-config/index.js';
import { flannelAddon } from './cni-flannel/index.js';
import { dnsAutoscalerAddon } from './dns-autoscaler/index.js';
import { externalDnsAddon } from './external-dns/index.js';
import type { AddonModule } from './framework.js';
import { ingressAddon } from './ingress/index.js';
import { keystoneAuthAddon } from './keystone-auth/index.js';
import { manilaCsiAddon } from './manila-csi/index.js';
import { metricsServerAddon } from './metrics-server/index.js';
import { monitoringAddon } from './monitoring/index.js';
import { occmAddon } from './occm/index.js';

export const ADDONS: readonly AddonModule[] = [
  cloudConfigAddon,
  occmAddon,
  calicoAddon,
  flannelAddon,
  cinderCsiAddon,
  manilaCsiAddon,
  metricsServerAddon,
  dnsAutoscalerAddon,
  keystoneAuthAddon,
  ingressAddon,
  externalDnsAddon,
  dashboardAddon,
  monitoringAddon,
] as unknown as readonly AddonModule[];
