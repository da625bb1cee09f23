// The ordered module registry. Core modules fill the spec's sections (later ones may read earlier ones);
// add-on feature modules (CNI manifests, CSI, ingress, …) append themselves to ADDON_MODULES.

import { ADDONS } from '../bootstrap/addons/index.js';
import { apiServerModule, octaviaModule } from './modules/octavia.js';
import { autoHealingModule } from '../features/auto-healing/module.js';
import { autoScalingModule } from '../features/auto-scaling/module.js';
import { cloudProviderModule, nodesModule } from './modules/cloud-provider.js';
import { kmsModule } from '../features/kms/module.js';
import { kubernetesModule } from './modules/kubernetes.js';
import { networkModule } from './modules/network.js';
import { nodeOpsModule } from './modules/node-ops.js';
import type { FeatureModule } from './module.js';

export const CORE_MODULES: readonly FeatureModule[] = [
  nodesModule,
  kubernetesModule,
  networkModule,
  octaviaModule,
  apiServerModule,
  cloudProviderModule,
  autoHealingModule,
  autoScalingModule,
  kmsModule,
  nodeOpsModule,
] as unknown as readonly FeatureModule[];

/** Add-on feature modules (src/kube/addons): they run after the core modules and may read their sections. */
export const ADDON_MODULES: readonly FeatureModule[] = ADDONS as unknown as readonly FeatureModule[];

/** label name → owning module; throws when two modules claim one label (a programming error). */
export function labelOwners(modules: readonly FeatureModule[]): Map<string, FeatureModule> {
  const owners = new Map<string, FeatureModule>();
  for (const m of modules) {
    for (const name of Object.keys(m.labels)) {
      const prev = owners.get(name);
      if (prev) throw new Error(`label ${name} is declared by both ${prev.key} and ${m.key}`);
      owners.set(name, m);
    }
  }
  return owners;
}
