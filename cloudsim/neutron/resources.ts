// Neutron's resources as the simulator holds them (camelCase; the routes render the API's
// snake_case): networks, subnets and their pools, ports and their fixed IPs, routers and their
// gateway, security groups and rules, floating IPs.

/** The standard attributes every Neutron resource carries. */
export interface Standard {
  id: string;
  /** Owning project id ('' for service-owned ports such as router gateways). */
  projectId: string;
  name: string;
  description: string;
  tags: string[];
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  revisionNumber: number;
}

export interface Network extends Standard {
  adminStateUp: boolean;
  status: string;
  shared: boolean;
  /** router:external. */
  external: boolean;
  mtu: number;
  subnets: string[];
  portSecurityEnabled: boolean;
  availabilityZoneHints: string[];
  availabilityZones: string[];
  isDefault: boolean;
  providerNetworkType: string;
  providerPhysicalNetwork: string | null;
  providerSegmentationId: number | null;
}

export type NewNetwork = Partial<Network> & Pick<Network, 'name'>;

export interface Pool {
  start: string;
  end: string;
}

export interface Subnet extends Standard {
  networkId: string;
  ipVersion: 4;
  /** Normalised, e.g. 10.0.0.0/24. */
  cidr: string;
  gatewayIp: string | null;
  enableDhcp: boolean;
  dnsNameservers: string[];
  allocationPools: Pool[];
  hostRoutes: { destination: string; nexthop: string }[];
}

export type NewSubnet = Partial<Subnet> & Pick<Subnet, 'networkId' | 'cidr'>;

export interface FixedIp {
  subnetId: string;
  ipAddress: string;
}

export interface Port extends Standard {
  networkId: string;
  macAddress: string;
  adminStateUp: boolean;
  status: string;
  fixedIps: FixedIp[];
  deviceId: string;
  deviceOwner: string;
  securityGroups: string[];
  portSecurityEnabled: boolean;
  allowedAddressPairs: { ip_address: string; mac_address: string }[];
  bindingHostId: string;
  bindingVnicType: string;
}

export interface GatewayInfo {
  networkId: string;
  enableSnat: boolean;
  /** The gateway port (device_owner network:router_gateway). */
  portId: string;
}

export interface Router extends Standard {
  adminStateUp: boolean;
  status: string;
  gateway: GatewayInfo | null;
}

export interface SecurityGroup extends Standard {
  stateful: boolean;
}

export interface SecurityGroupRule {
  id: string;
  projectId: string;
  securityGroupId: string;
  direction: 'ingress' | 'egress';
  ethertype: 'IPv4' | 'IPv6';
  protocol: string | null;
  portRangeMin: number | null;
  portRangeMax: number | null;
  remoteIpPrefix: string | null;
  remoteGroupId: string | null;
  /** null on the rules Neutron makes itself (a new group's egress rules, the default group's). */
  description: string | null;
  createdAt: number;
  updatedAt: number;
  revisionNumber: number;
  /** Neutron's standard attribute id, shown in a group's embedded rules only (0 in older state files). */
  standardAttrId?: number;
}

export interface FloatingIp extends Standard {
  floatingNetworkId: string;
  floatingIpAddress: string;
  /** The port holding the address (device_owner network:floatingip). */
  fipPortId: string;
  portId: string | null;
  fixedIpAddress: string | null;
  routerId: string | null;
}
