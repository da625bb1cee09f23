// The registered add-ons, in apply order (spec k8s-bootstrap §1.7, each add-on's `order`): the core's (the cloud
// config, OCCM, the CNI) and the optional capabilities' (src/features/registry.ts). Read lazily, as the module
// registry is (src/cluster-spec/registry.ts).
import { features } from '../../features/registry.js';
import { cloudConfigAddon } from './cloud-config/index.js';
import { calicoAddon } from './cni-calico/index.js';
import { flannelAddon } from './cni-flannel/index.js';
import type { AddonModule } from './framework.js';
import { occmAddon } from './occm/index.js';

let all: readonly AddonModule[] | undefined;

export function addons(): readonly AddonModule[] {
  all ??= [cloudConfigAddon, occmAddon, calicoAddon, flannelAddon, ...features().flatMap((f) => (f.addon ? [f.addon] : []))].sort((a, b) => a.order - b.order);
  return all;
}
