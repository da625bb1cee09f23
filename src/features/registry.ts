// The optional capabilities, each whole in its folder: its labels and its part of the spec (a core section, or
// an add-on's spec.features[key]), what it installs in the cluster (an add-on), and its steps in the create and
// delete graphs, each with its bill and its purge. The spec's module registry (src/cluster-spec/registry.ts), the
// add-ons' apply order (src/bootstrap/addons/index.ts) and the worker's graphs (workers/cluster/create.ts,
// delete.ts) are made from this list (features()); a feature's steps say where they go (`after`, `before`), so the core names
// none of them. Order: core-section modules in their parse order, then add-ons in apply order.
import type { AddonModule } from '../bootstrap/addons/framework.js';
import type { FeatureModule } from '../cluster-spec/module.js';
import type { Step } from '../steps/step.js';
import { ensureApiDnsRecord, purgeDnsRecords } from './api-dns/steps.js';
import { autoHealingModule } from './auto-healing/module.js';
import { autoScalingModule } from './auto-scaling/module.js';
import { cinderCsiAddon } from './cinder-csi/addon.js';
import { purgeVolumes } from './cinder-csi/steps.js';
import { dashboardAddon } from './dashboard/addon.js';
import { dnsAutoscalerAddon } from './dns-autoscaler/addon.js';
import { externalDnsAddon } from './external-dns/addon.js';
import { ensureExternalDnsZone, purgeExternalDnsRecords } from './external-dns/steps.js';
import { ingressAddon } from './ingress/addon.js';
import { ensureIngressDnsRecord, purgeIngressDnsRecord } from './ingress/steps.js';
import { keystoneAuthAddon } from './keystone-auth/addon.js';
import { kmsModule } from './kms/module.js';
import { ensureKmsKey, purgeKmsKey } from './kms/steps.js';
import { manilaCsiAddon } from './manila-csi/addon.js';
import { ensureManilaService, purgeShares } from './manila-csi/steps.js';
import { metricsServerAddon } from './metrics-server/addon.js';
import { monitoringAddon } from './monitoring/addon.js';

export interface Feature {
  /** Its folder under src/features/. */
  name: string;
  /** A module filling a core section of the spec (auto-healing, KMS, ...). */
  module?: FeatureModule;
  /** An add-on: its module (spec.features[key]) and what it renders and applies. */
  addon?: AddonModule;
  /** Its steps in the create graph (each with its bill) and in the delete graph (its purges). */
  create?: readonly Step[];
  delete?: readonly Step[];
}

let registered: readonly Feature[] | undefined;

/**
 * Every feature, read when first asked: a feature's steps reach the spec parser, whose module registry reads this
 * list, so the list is made only once every module has loaded, whichever of them was loaded first.
 */
export function features(): readonly Feature[] {
  registered ??= [
    { name: 'auto-healing', module: autoHealingModule },
    { name: 'auto-scaling', module: autoScalingModule },
    { name: 'kms', module: kmsModule, create: [ensureKmsKey], delete: [purgeKmsKey] },
    { name: 'cinder-csi', addon: cinderCsiAddon, delete: [purgeVolumes] },
    { name: 'manila-csi', addon: manilaCsiAddon, create: [ensureManilaService], delete: [purgeShares] },
    { name: 'metrics-server', addon: metricsServerAddon },
    { name: 'dns-autoscaler', addon: dnsAutoscalerAddon },
    { name: 'keystone-auth', addon: keystoneAuthAddon },
    { name: 'api-dns', create: [ensureApiDnsRecord], delete: [purgeDnsRecords] },
    { name: 'ingress', addon: ingressAddon, create: [ensureIngressDnsRecord], delete: [purgeIngressDnsRecord] },
    { name: 'external-dns', addon: externalDnsAddon, create: [ensureExternalDnsZone], delete: [purgeExternalDnsRecords] },
    { name: 'dashboard', addon: dashboardAddon },
    { name: 'monitoring', addon: monitoringAddon },
  ];
  return registered;
}
