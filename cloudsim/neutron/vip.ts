// Octavia's VIP ports as real Neutron ports (device_owner Octavia), so that they hold an address
// of the subnet and block NetworkInUse / SubnetInUse like on a real cloud. Structurally the
// octavia simulator's VipAllocator; cloud.ts passes `new NeutronVipAllocator(neutron.state)`.
import { SimError } from '../common/errors.js';
import { allocateFixedIps } from './ipam.js';
import { newMac } from './routes-ports.js';
import type { NeutronState } from './state.js';
import type { VipAllocator, VipPort, VipRequest } from '../octavia/vip.js';

export class NeutronVipAllocator implements VipAllocator {
  /** Ports this allocator created (a port the user passed in is not deleted on release). */
  private readonly created = new Set<string>();

  constructor(private readonly state: NeutronState) {}

  allocate(req: VipRequest): VipPort {
    const s = this.state;
    if (req.portId !== undefined) {
      const port = s.ports.get(req.portId);
      if (!port) throw new SimError(400, `Validation failure: Port ${req.portId} not found.`);
      const ip = port.fixedIps[0];
      if (!ip) throw new SimError(400, `Validation failure: Port ${req.portId} has no fixed IP.`);
      Object.assign(port, { deviceOwner: 'Octavia', deviceId: `lb-${req.lbId}` });
      s.refile(port);
      return this.view(port.id, ip.subnetId, ip.ipAddress, req);
    }
    let subnetId = req.subnetId;
    if (subnetId !== undefined && !s.subnets.has(subnetId)) throw new SimError(400, `Validation failure: Subnet ${subnetId} not found.`);
    if (subnetId === undefined && req.networkId !== undefined) {
      const network = s.networks.get(req.networkId);
      if (!network) throw new SimError(400, `Validation failure: Network ${req.networkId} not found.`);
      subnetId = network.subnets[0];
      if (!subnetId) throw new SimError(400, 'Validation failure: Supplied network does not contain a subnet.');
    }
    if (subnetId === undefined) throw new SimError(400, 'Validation failure: VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id.');
    const subnet = s.subnets.get(subnetId)!;
    const network = s.networks.get(subnet.networkId)!;
    const fixedIps = allocateFixedIps(s, network, [{ subnet_id: subnet.id, ...(req.address ? { ip_address: req.address } : {}) }]);
    const port = s.addPort({
      ...s.newStandard(req.projectId),
      name: `octavia-lb-${req.lbId}`,
      networkId: network.id,
      macAddress: newMac(s),
      fixedIps,
      deviceOwner: 'Octavia',
      deviceId: `lb-${req.lbId}`,
      adminStateUp: false,
    });
    this.created.add(port.id);
    return this.view(port.id, subnet.id, fixedIps[0]!.ipAddress, req);
  }

  release(portId: string): void {
    if (this.created.delete(portId)) this.state.ports.delete(portId);
  }

  private view(id: string, subnetId: string, address: string, req: VipRequest): VipPort {
    const port = this.state.ports.get(id)!;
    return { id, name: port.name, projectId: port.projectId, networkId: port.networkId, subnetId, address, deviceOwner: 'Octavia', deviceId: `lb-${req.lbId}`, adminStateUp: false };
  }
}
