// The typed, versioned cluster spec: labels and fields parsed once; renderers and workers read only this.

import type { KubeMinor, VersionRow } from './versions.js';

export const SPEC_VERSION = 1 as const;

/** The template fields the spec reads (a ClusterTemplateRow fits). */
export interface TemplateInput {
  coe?: string;
  network_driver?: string | null;
  apiserver_port?: number | null;
  master_lb_enabled?: boolean;
  floating_ip_enabled?: boolean;
  external_network_id?: string | null;
  fixed_network?: string | null;
  fixed_subnet?: string | null;
  http_proxy?: string | null;
  https_proxy?: string | null;
  no_proxy?: string | null;
  tls_disabled?: boolean;
}

/** The cluster fields the spec reads (after the API resolved CT inheritance). */
export interface ClusterInput {
  uuid: string;
  name: string;
  /** Owning Keystone project (keystone-auth scopes its default policy to it). */
  project_id?: string | null;
  master_count?: number;
  node_count?: number;
  master_lb_enabled?: boolean | null;
  floating_ip_enabled?: boolean | null;
  fixed_network?: string | null;
  fixed_subnet?: string | null;
  /** GB of the per-node container runtime volume of the default node groups (Magnum's docker_volume_size); null: none. */
  docker_volume_size?: number | null;
}

export type LabelValue = string | number | boolean;

export interface ParseInput {
  template: TemplateInput;
  cluster: ClusterInput;
  /** Effective labels (CT labels merged with the cluster's as the API decided). */
  labels: Record<string, LabelValue> | null | undefined;
  /** CIDR of a user-supplied fixed_subnet, looked up in Neutron by the caller; else `fixed_subnet_cidr` applies. */
  subnetCidr?: string;
}

export type NetworkDriver = 'calico' | 'flannel';
export type CalicoIpip = 'Always' | 'CrossSubnet' | 'Never' | 'Off';
export type FlannelBackend = 'vxlan' | 'host-gw' | 'wireguard';
export type LbProvider = 'amphora' | 'amphorav2' | 'ovn';
export type LbAlgorithm = 'ROUND_ROBIN' | 'LEAST_CONNECTIONS' | 'SOURCE_IP' | 'SOURCE_IP_PORT';

export interface KubernetesSpec {
  minor: KubeMinor;
  /** Exact version given to kubeadm (`kubernetesVersion`). */
  version: string;
  components: VersionRow;
  /** kubeadm `imageRepository` / pause image registry; '' = upstream registry.k8s.io. */
  imageRepository: string;
  cgroupDriver: 'systemd';
  /**
   * A node whose image does not carry kubeadm, kubelet and containerd 2.x of `version` installs them at boot
   * (label kube_install_at_boot); false: it never downloads software and fails its bootstrap instead.
   */
  installAtBoot: boolean;
}

export interface NetworkSpec {
  driver: NetworkDriver;
  podCidr: string;
  serviceCidr: string;
  subnetCidr: string;
  /** Magnum creates the network when the cluster names none; subnetCidr is then `fixed_subnet_cidr`. */
  createNetwork: boolean;
  dnsServiceIp: string;
  clusterDomain: string;
  calico?: { ipipMode: CalicoIpip };
  flannel?: { backend: FlannelBackend; subnetLen: number };
  /** false → pod traffic leaves nodes unencapsulated: ports need the pod CIDR as allowed address pair. */
  encapsulated: boolean;
  proxy: { http: string; https: string; noProxy: string[] } | null;
}

/** Octavia settings shared by the API load balancer and OCCM's Service load balancers. */
export interface OctaviaSpec {
  provider: LbProvider;
  algorithm: LbAlgorithm;
  healthCheck: boolean;
}

export interface ApiLoadBalancerSpec extends OctaviaSpec {
  /** Empty = open to everyone; otherwise the listener's allowed_cidrs (subnet CIDR appended). */
  allowedCidrs: string[];
}

export interface ApiServerSpec {
  port: number;
  loadBalancer: ApiLoadBalancerSpec | null;
  floatingIp: boolean;
  /** An A record for the API endpoint in a Designate zone of the project (label api_dns_zone), or none. */
  dnsRecord: { zone: string; name: string } | null;
}

export interface CloudProviderSpec {
  occmTag: string;
  cinderCsiTag: string;
  /** OCCM `--cluster-name` and Cinder CSI `--cluster`: the cluster UUID. */
  clusterName: string;
}

/** A Cinder volume a node gets at boot (deleted with the server). `type` '' = the cloud's default type. */
export interface NodeVolume {
  sizeGb: number;
  type: string;
}

export interface NodesSpec {
  masterCount: number;
  nodeCount: number;
  /** Every node's zone unless a list spreads them (label availability_zone); '' = wherever Nova places them. */
  availabilityZone: string;
  /** Zones the control planes are spread over by node index (label control_plane_availability_zones). */
  controlPlaneZones: string[];
  /** Zones the nodes of worker groups without a zone of their own are spread over (label worker_availability_zones). */
  workerZones: string[];
  /** Boot from a volume of this size instead of the flavor's disk (labels boot_volume_*). */
  bootVolume: NodeVolume | null;
  /** Control planes keep etcd's data on a volume of its own, mounted at /var/lib/etcd (labels etcd_volume_*). */
  etcdVolume: NodeVolume | null;
  /**
   * Every node of the default groups gets a volume for the container runtime, mounted at /var/lib/containerd
   * (docker_volume_size, label docker_volume_type); a node group's own docker_volume_size overrides the size.
   */
  runtimeVolume: NodeVolume | null;
  /** Cinder volume type of every runtime volume, also of node groups with their own size (label docker_volume_type; '' = default). */
  runtimeVolumeType: string;
}

/** How the service treats each node: its floating IP, and how long its drain may wait. */
export interface NodeOpsSpec {
  /** Every node gets a floating IP on the external network (Magnum's floating_ip_enabled). */
  floatingIp: boolean;
  /** How long a drain waits for the evicted pods before the node goes anyway (label drain_timeout); 0 = no limit. */
  drainTimeoutSeconds: number;
}

/** Service-side replacement of unhealthy worker nodes (labels auto_healing_*). */
export interface AutoHealingSpec {
  enabled: boolean;
  unhealthySeconds: number;
  maxUnhealthyPercent: number;
}

/** Service-side autoscaling of worker groups (labels auto_scaling_enabled, min_node_count, max_node_count). */
export interface AutoScalingSpec {
  enabled: boolean;
  minNodeCount: number;
  /** The label's value; null when not given. */
  maxNodeCount: number | null;
  scaleDownUnneededSeconds: number;
}

/** Secrets encrypted at rest through Barbican (label barbican_kms_enabled). */
export interface KmsSpec {
  enabled: boolean;
  /** barbican-kms-plugin image: the CPO release of the Kubernetes minor. */
  image: string;
  /** The agent that replaces the plugin's files on the control planes (a credential rotation): busybox. */
  agentImage: string;
}

export interface ClusterSpec {
  specVersion: typeof SPEC_VERSION;
  cluster: { uuid: string; name: string; shortName: string };
  nodes: NodesSpec;
  kubernetes: KubernetesSpec;
  network: NetworkSpec;
  octavia: OctaviaSpec;
  apiServer: ApiServerSpec;
  cloudProvider: CloudProviderSpec;
  autoHealing: AutoHealingSpec;
  autoScaling: AutoScalingSpec;
  kms: KmsSpec;
  nodeOps: NodeOpsSpec;
  /** Add-on feature modules' resolved values, keyed by module key. */
  features: Record<string, unknown>;
  labels: {
    /** Labels some module understood (normalised to strings). */
    known: Record<string, string>;
    /** Unknown, unsupported or not-yet-implemented labels: kept verbatim, reported as warnings, never change behaviour. */
    ignored: Record<string, string>;
  };
}

export interface ParseResult {
  spec: ClusterSpec;
  warnings: string[];
}
