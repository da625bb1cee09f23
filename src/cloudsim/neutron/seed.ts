// The networks every Neutron simulator starts with: devstack's external `public` network.
import type { NeutronState } from './state.js';

/** Project ids by name (from the Keystone emulator), for owners. */
export type ProjectIds = Record<string, string>;

export function seedNeutron(state: NeutronState, projects: ProjectIds = {}): void {
  state.addNetwork({
    name: 'public',
    projectId: projects.admin ?? '',
    external: true,
    shared: true,
    isDefault: true,
    providerNetworkType: 'flat',
    providerPhysicalNetwork: 'public',
    description: 'External network (floating IPs, load balancer VIPs)',
  });
}
