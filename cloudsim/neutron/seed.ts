// What every Neutron simulator starts with: the networks and default quotas of the cloud's seed
// file (cloudsim/seed.yaml): devstack's external `public` network, its floating-IP pool moved to
// loopback (127.24.4.0/24, DHCP off).
import { defaultSeed, seedNetworkQuotas, seedNetworks, type ProjectIds } from '../seed.js';
import type { NeutronState } from './state.js';

export type { ProjectIds } from '../seed.js';

export function seedNeutron(state: NeutronState, projects: ProjectIds = {}): void {
  const seed = defaultSeed();
  seedNetworks(state, seed.networks, projects);
  seedNetworkQuotas(state, seed.quotas?.network);
}
