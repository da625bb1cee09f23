// The flavors every Nova simulator starts with: devstack's m1 family with devstack's ids
// (m1.tiny, id 1, is left out: too small for a Kubernetes node).
import type { NovaState } from './state.js';

export function seedNova(state: NovaState): void {
  state.addFlavor({ id: '2', name: 'm1.small', vcpus: 1, ram: 2048, disk: 20 });
  state.addFlavor({ id: '3', name: 'm1.medium', vcpus: 2, ram: 4096, disk: 40 });
  state.addFlavor({ id: '4', name: 'm1.large', vcpus: 4, ram: 8192, disk: 80 });
  state.addFlavor({ id: '5', name: 'm1.xlarge', vcpus: 8, ram: 16384, disk: 160 });
}
