// The images every Glance simulator starts with: two that drivers support, one without os_distro,
// one private to the demo project.
import type { GlanceState } from './state.js';

/** Project ids by name (from the Keystone emulator), for owners. */
export type ProjectIds = Record<string, string>;

const GiB = 1024 ** 3;

export function seedGlance(state: GlanceState, projects: ProjectIds = {}): void {
  const admin = projects.admin ?? null;
  state.addImage({
    name: 'cirros',
    owner: admin,
    size: 21_430_272,
    min_disk: 1,
    properties: { hw_rng_model: 'virtio' },
  });
  state.addImage({
    name: 'ubuntu-24.04',
    owner: admin,
    size: Math.round(0.6 * GiB),
    min_disk: 10,
    properties: { os_distro: 'ubuntu', os_version: '24.04', os_type: 'linux', hw_architecture: 'x86_64' },
  });
  state.addImage({
    name: 'fedora-coreos-40',
    owner: admin,
    size: Math.round(0.8 * GiB),
    min_disk: 10,
    properties: { os_distro: 'fedora-coreos', os_version: '40', os_type: 'linux', hw_architecture: 'x86_64' },
  });
  if (projects.demo) {
    state.addImage({
      name: 'demo-private-coreos',
      visibility: 'private',
      owner: projects.demo,
      size: Math.round(0.8 * GiB),
      properties: { os_distro: 'fedora-coreos', os_version: '40' },
    });
  }
}
