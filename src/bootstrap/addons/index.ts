// The registered add-ons, in apply order (spec k8s-bootstrap §1.7). ADDON_MODULES in spec/registry.ts is this list.

import { calicoAddon } from './cni-calico/index.js';
import { cinderCsiAddon } from '../../features/cinder-csi/addon.js';
import { dashboardAddon } from '../../features/dashboard/addon.js';
import { cloudConfigAddon } from './cloud-config/index.js';
import { flannelAddon } from './cni-flannel/index.js';
import { dnsAutoscalerAddon } from '../../features/dns-autoscaler/addon.js';
import { externalDnsAddon } from '../../features/external-dns/addon.js';
import type { AddonModule } from './framework.js';
import { ingressAddon } from '../../features/ingress/addon.js';
import { keystoneAuthAddon } from '../../features/keystone-auth/addon.js';
import { manilaCsiAddon } from '../../features/manila-csi/addon.js';
import { metricsServerAddon } from '../../features/metrics-server/addon.js';
import { monitoringAddon } from '../../features/monitoring/addon.js';
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
