// Neutron's networks, in memory. Read-only through the API for now; tests and the seed add networks here.
import { randomUUID } from 'node:crypto';
import { Faults } from '../common/faults.js';

export interface Network {
  id: string;
  name: string;
  /** Owning project id. */
  projectId: string;
  adminStateUp: boolean;
  status: string;
  shared: boolean;
  /** router:external. */
  external: boolean;
  mtu: number;
  subnets: string[];
  description: string;
  tags: string[];
  portSecurityEnabled: boolean;
  availabilityZoneHints: string[];
  availabilityZones: string[];
  isDefault: boolean;
  providerNetworkType: string;
  providerPhysicalNetwork: string | null;
  providerSegmentationId: number | null;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  revisionNumber: number;
}

export type NewNetwork = Partial<Network> & Pick<Network, 'name'>;

export class NeutronState {
  readonly networks = new Map<string, Network>();
  readonly faults = new Faults();

  addNetwork(input: NewNetwork): Network {
    const now = Date.now();
    const network: Network = {
      id: randomUUID(),
      projectId: '',
      adminStateUp: true,
      status: 'ACTIVE',
      shared: false,
      external: false,
      mtu: 1500,
      subnets: [],
      description: '',
      tags: [],
      portSecurityEnabled: true,
      availabilityZoneHints: [],
      availabilityZones: ['nova'],
      isDefault: false,
      providerNetworkType: 'vxlan',
      providerPhysicalNetwork: null,
      providerSegmentationId: null,
      createdAt: now,
      updatedAt: now,
      revisionNumber: 1,
      ...input,
    };
    if (this.networks.has(network.id)) throw new Error(`neutron sim: network ${network.id} exists`);
    this.networks.set(network.id, network);
    return network;
  }

  removeNetwork(id: string): void {
    this.networks.delete(id);
  }
}
