// Security groups, port settings and the API load balancer shape, as plain data the workers apply (spec §1.2, §1.3).

import { NODE_EXPORTER_PORT, type MonitoringSettings } from '../features/monitoring/settings.js';
import type { ClusterSpec, LbAlgorithm } from './types.js';

export type GroupRef = 'control-plane' | 'worker';
export type Remote = { group: GroupRef } | { cidr: string };

export interface SecurityGroupRule {
  direction: 'ingress';
  ethertype: 'IPv4';
  /** Neutron protocol name or number; null = any protocol. */
  protocol: 'tcp' | 'udp' | 'icmp' | '4' | null;
  portRangeMin?: number;
  portRangeMax?: number;
  remote: Remote;
  description: string;
}

export interface SecurityGroupPlan {
  name: string;
  description: string;
  rules: SecurityGroupRule[];
}

export interface LoadBalancerPlan {
  name: string;
  provider: string;
  listener: { protocol: 'TCP'; port: number; allowedCidrs: string[] };
  pool: { protocol: 'TCP'; algorithm: LbAlgorithm };
  monitor: { type: 'TCP'; delay: number; timeout: number; maxRetries: number; maxRetriesDown: number } | null;
  /** Every control-plane port's fixed IP on this port. */
  memberPort: number;
  floatingIp: boolean;
}

export interface NetworkPlan {
  tags: string[];
  securityGroups: Record<GroupRef, SecurityGroupPlan>;
  /** Neutron port settings per role; allowed_address_pairs carry the pod CIDR for unencapsulated CNIs. */
  ports: Record<GroupRef, { securityGroup: GroupRef; allowedAddressPairs: { ip_address: string }[] }>;
  loadBalancer: LoadBalancerPlan | null;
}

const NODEPORT_MIN = 30000;
const NODEPORT_MAX = 32767;
const BOTH: GroupRef[] = ['control-plane', 'worker'];

function rule(protocol: SecurityGroupRule['protocol'], ports: [number, number] | null, remote: Remote, description: string): SecurityGroupRule {
  return {
    direction: 'ingress',
    ethertype: 'IPv4',
    protocol,
    ...(ports ? { portRangeMin: ports[0], portRangeMax: ports[1] } : {}),
    remote,
    description,
  };
}

const fromNodes = (p: SecurityGroupRule['protocol'], ports: [number, number] | null, why: string): SecurityGroupRule[] =>
  BOTH.map((g) => rule(p, ports, { group: g }, why));

/** Rules between all nodes that the CNI needs (applied to both groups). */
export function cniRules(spec: ClusterSpec): SecurityGroupRule[] {
  const n = spec.network;
  const out: SecurityGroupRule[] = [];
  if (n.calico) {
    out.push(...fromNodes('tcp', [179, 179], 'calico BGP'));
    if (n.calico.ipipMode === 'Always' || n.calico.ipipMode === 'CrossSubnet') out.push(...fromNodes('4', null, 'calico IP-in-IP'));
  }
  if (n.flannel?.backend === 'vxlan') out.push(...fromNodes('udp', [8472, 8472], 'flannel VXLAN'));
  if (n.flannel?.backend === 'wireguard') out.push(...fromNodes('udp', [51820, 51820], 'flannel WireGuard'));
  if (!n.encapsulated) out.push(rule(null, null, { cidr: n.podCidr }, 'unencapsulated pod traffic'));
  return out;
}

/** Host ports add-ons listen on, reached from the other nodes (applied to both groups). */
export function addonRules(spec: ClusterSpec): SecurityGroupRule[] {
  const monitoring = spec.features.monitoring as MonitoringSettings | undefined;
  return monitoring?.enabled ? fromNodes('tcp', [NODE_EXPORTER_PORT, NODE_EXPORTER_PORT], 'node-exporter (monitoring)') : [];
}

export function networkPlan(spec: ClusterSpec): NetworkPlan {
  const cn = spec.cluster.shortName;
  const port = spec.apiServer.port;
  const lb = spec.apiServer.loadBalancer;
  const apiSources = lb && lb.allowedCidrs.length > 0 ? lb.allowedCidrs : ['0.0.0.0/0'];
  const common = [...fromNodes('icmp', null, 'ICMP (path MTU discovery)'), ...fromNodes('tcp', [10250, 10250], 'kubelet API'), ...cniRules(spec), ...addonRules(spec)];
  const nodePortSources = spec.octavia.provider === 'ovn' ? ['0.0.0.0/0'] : [spec.network.subnetCidr];

  const controlPlane: SecurityGroupPlan = {
    name: `${cn}-secgroup-controlplane`,
    description: `Control plane of cluster ${spec.cluster.uuid}`,
    rules: [
      ...apiSources.map((c) => rule('tcp', [port, port], { cidr: c }, 'kube-apiserver')),
      rule('tcp', [2379, 2380], { group: 'control-plane' }, 'etcd client and peer'),
      ...common,
    ],
  };
  const worker: SecurityGroupPlan = {
    name: `${cn}-secgroup-worker`,
    description: `Workers of cluster ${spec.cluster.uuid}`,
    rules: [
      ...nodePortSources.flatMap((c) => [
        rule('tcp', [NODEPORT_MIN, NODEPORT_MAX], { cidr: c }, 'NodePorts (Service load balancers)'),
        rule('udp', [NODEPORT_MIN, NODEPORT_MAX], { cidr: c }, 'NodePorts (Service load balancers)'),
      ]),
      ...common,
    ],
  };
  const pairs = spec.network.encapsulated ? [] : [{ ip_address: spec.network.podCidr }];
  return {
    tags: [`cluster-id=${spec.cluster.uuid}`],
    securityGroups: { 'control-plane': controlPlane, worker },
    ports: {
      'control-plane': { securityGroup: 'control-plane', allowedAddressPairs: pairs },
      worker: { securityGroup: 'worker', allowedAddressPairs: pairs },
    },
    loadBalancer: lb
      ? {
          name: `${cn}-kubeapi`,
          provider: lb.provider,
          listener: { protocol: 'TCP', port, allowedCidrs: lb.allowedCidrs },
          pool: { protocol: 'TCP', algorithm: lb.algorithm },
          monitor: lb.healthCheck ? { type: 'TCP', delay: 10, timeout: 5, maxRetries: 5, maxRetriesDown: 3 } : null,
          memberPort: port,
          floatingIp: spec.apiServer.floatingIp,
        }
      : null,
  };
}
