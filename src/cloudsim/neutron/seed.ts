// What every Neutron simulator starts with: devstack's external `public` network and its
// 172.24.4.0/24 subnet (router gateways and floating IPs take their addresses from it).
import type { NeutronState } from './state.js';

/** Project ids by name (from the Keystone emulator), for owners. */
export type ProjectIds = Record<string, string>;

export function seedNeutron(state: NeutronState, projects: ProjectIds = {}): void {
  const network = state.addNetwork({
    name: 'public',
    projectId: projects.admin ?? '',
    external: true,
    shared: true,
    isDefault: true,
    providerNetworkType: 'flat',
    providerPhysicalNetwork: 'public',
    description: 'External network (floating IPs, load balancer VIPs)',
  });
  state.addSubnet({
    networkId: network.id,
    name: 'public-subnet',
    cidr: '172.24.4.0/24',
    gatewayIp: '172.24.4.1',
    enableDhcp: false,
    allocationPools: [{ start: '172.24.4.2', end: '172.24.4.254' }],
  });
}
