// The VIP port of a load balancer (spec openstack-apis §4.2). Octavia creates a Neutron port
// synchronously during the POST: in the whole cloud, neutron/vip.ts's NeutronVipAllocator makes a
// real one; an Octavia simulator alone keeps its VIP ports in its own state (LocalVipAllocator).
import { randomUUID } from 'node:crypto';
import { SimError } from '../common/errors.js';
import { IndexedMap } from '../common/indexed-map.js';

export interface VipRequest {
  projectId: string;
  lbId: string;
  subnetId?: string | undefined;
  networkId?: string | undefined;
  portId?: string | undefined;
  address?: string | undefined;
}

/** The port as Neutron would show it. */
export interface VipPort {
  id: string;
  name: string;
  projectId: string;
  networkId: string;
  subnetId: string;
  address: string;
  deviceOwner: 'Octavia';
  deviceId: string;
  adminStateUp: false;
}

export interface VipAllocator {
  /** Creates the VIP port (throws a SimError 400 for an unknown subnet/network, 409 when the subnet is full). */
  allocate(req: VipRequest): VipPort;
  /** Deletes the port when the load balancer is gone. */
  release(portId: string): void;
}

export interface SubnetInfo {
  id: string;
  networkId: string;
  cidr: string;
}

/** Where subnets come from (the Neutron simulator, once it has them). */
export interface SubnetSource {
  subnet(id: string): SubnetInfo | undefined;
  subnetsOfNetwork(networkId: string): SubnetInfo[];
}

const toInt = (ip: string): number => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const toIp = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** IPv4 hosts of a CIDR, skipping the network address, the usual gateway (.1) and the broadcast. */
function* hosts(cidr: string): Generator<string> {
  const [base, bits] = cidr.split('/');
  const prefix = Number(bits);
  if (!base || !/^\d+\.\d+\.\d+\.\d+$/.test(base) || !(prefix >= 0 && prefix <= 30)) return;
  const size = 2 ** (32 - prefix);
  const start = Math.floor(toInt(base) / size) * size;
  for (let n = start + 2; n < start + size - 1; n++) yield toIp(n);
}

/**
 * Ports kept in Octavia's state. Without a SubnetSource, every VIP comes from `fallbackCidr`
 * (the subnet/network ids are recorded as given); with one, subnets must exist.
 */
export class LocalVipAllocator implements VipAllocator {
  readonly ports = new IndexedMap<VipPort, 'subnet'>({ subnet: (p) => p.subnetId });

  constructor(
    private readonly source?: SubnetSource,
    private readonly fallbackCidr = '10.0.0.0/24',
  ) {}

  allocate(req: VipRequest): VipPort {
    let subnet: SubnetInfo | undefined;
    if (this.source) {
      if (req.subnetId) {
        subnet = this.source.subnet(req.subnetId);
        if (!subnet) throw new SimError(400, `Validation failure: Subnet ${req.subnetId} not found.`);
      } else if (req.networkId) {
        subnet = this.source.subnetsOfNetwork(req.networkId)[0];
        if (!subnet) throw new SimError(400, `Validation failure: Supplied network does not contain a subnet.`);
      }
    }
    const cidr = subnet?.cidr ?? this.fallbackCidr;
    const subnetId = subnet?.id ?? req.subnetId ?? `subnet-${cidr}`;
    const networkId = subnet?.networkId ?? req.networkId ?? `network-${cidr}`;
    const used = new Set(this.ports.by('subnet', subnetId).map((p) => p.address));
    let address = req.address;
    if (address !== undefined && used.has(address)) {
      throw new SimError(409, `IP address ${address} already allocated in subnet ${subnetId}`);
    }
    if (address === undefined) {
      for (const ip of hosts(cidr)) {
        if (!used.has(ip)) {
          address = ip;
          break;
        }
      }
    }
    if (address === undefined) throw new SimError(409, `No more IP addresses available on network ${networkId}.`);
    const port: VipPort = {
      id: req.portId ?? randomUUID(),
      name: `octavia-lb-${req.lbId}`,
      projectId: req.projectId,
      networkId,
      subnetId,
      address,
      deviceOwner: 'Octavia',
      deviceId: `lb-${req.lbId}`,
      adminStateUp: false,
    };
    this.ports.set(port.id, port);
    return port;
  }

  release(portId: string): void {
    this.ports.delete(portId);
  }
}
