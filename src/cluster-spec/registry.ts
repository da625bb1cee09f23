// The ordered module registry. Core modules fill the spec's sections (later ones may read earlier ones): the
// core's own, with the optional capabilities' core-section modules (src/features/registry.ts) before node-ops;
// the add-ons' modules (CNI, CSI, ingress, ...) run after them and may read their sections. Read lazily: the
// features' steps import the parser, which imports this.
import { addons } from '../bootstrap/addons/index.js';
import { features } from '../features/registry.js';
import { cloudProviderModule, nodesModule } from './modules/cloud-provider.js';
import { kubernetesModule } from './modules/kubernetes.js';
import { networkModule } from './modules/network.js';
import { nodeOpsModule } from './modules/node-ops.js';
import { apiServerModule, octaviaModule } from './modules/octavia.js';
import type { FeatureModule } from './module.js';

let core: readonly FeatureModule[] | undefined;

/** The modules of the spec's core sections, in parse order. */
export function coreModules(): readonly FeatureModule[] {
  core ??= [
    nodesModule,
    kubernetesModule,
    networkModule,
    octaviaModule,
    apiServerModule,
    cloudProviderModule,
    ...features().flatMap((f) => (f.module ? [f.module] : [])),
    nodeOpsModule,
  ];
  return core;
}

/** Add-on feature modules (src/bootstrap/addons/index.ts): they run after the core modules and may read their sections. */
export const addonModules = (): readonly FeatureModule[] => addons();

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
