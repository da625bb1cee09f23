// Octavia's objects as the simulator holds them, in their API (snake_case) shape: load balancers,
// listeners, pools, members, health monitors; their statuses and the quota keys.

export type ProvisioningStatus = 'PENDING_CREATE' | 'PENDING_UPDATE' | 'PENDING_DELETE' | 'ACTIVE' | 'ERROR' | 'DELETED';
export type OperatingStatus = 'ONLINE' | 'OFFLINE' | 'DEGRADED' | 'ERROR' | 'DRAINING' | 'NO_MONITOR';
export type Kind = 'loadbalancer' | 'listener' | 'pool' | 'member' | 'healthmonitor';

export interface Common {
  id: string;
  name: string;
  project_id: string;
  provisioning_status: ProvisioningStatus;
  operating_status: OperatingStatus;
  admin_state_up: boolean;
  tags: string[];
  created_at: string;
  updated_at: string | null;
  /** Creation order (list tie-break); not rendered. */
  _seq: number;
}

export interface LoadBalancer extends Common {
  description: string;
  vip_address: string;
  vip_port_id: string;
  vip_subnet_id: string;
  vip_network_id: string;
  vip_qos_policy_id: string | null;
  provider: string;
  flavor_id: string | null;
  availability_zone: string | null;
}

export interface Listener extends Common {
  description: string;
  loadbalancer_id: string;
  protocol: string;
  protocol_port: number;
  connection_limit: number;
  default_pool_id: string | null;
  default_tls_container_ref: string | null;
  sni_container_refs: string[];
  insert_headers: Record<string, string>;
  timeout_client_data: number;
  timeout_member_connect: number;
  timeout_member_data: number;
  timeout_tcp_inspect: number;
  allowed_cidrs: string[] | null;
}

export interface Pool extends Common {
  description: string;
  loadbalancer_id: string;
  protocol: string;
  lb_algorithm: string;
  session_persistence: Record<string, unknown> | null;
  healthmonitor_id: string | null;
  tls_enabled: boolean;
}

export interface Member extends Common {
  pool_id: string;
  loadbalancer_id: string;
  address: string;
  protocol_port: number;
  weight: number;
  backup: boolean;
  subnet_id: string | null;
  monitor_address: string | null;
  monitor_port: number | null;
}

export interface HealthMonitor extends Common {
  pool_id: string;
  loadbalancer_id: string;
  type: string;
  delay: number;
  timeout: number;
  max_retries: number;
  max_retries_down: number;
  http_method: string | null;
  url_path: string | null;
  expected_codes: string | null;
  http_version: number | null;
  domain_name: string | null;
}

export type AnyObject = LoadBalancer | Listener | Pool | Member | HealthMonitor;

export const QUOTA_KEYS = ['load_balancer', 'listener', 'pool', 'member', 'health_monitor'] as const;
export type QuotaKey = (typeof QUOTA_KEYS)[number];
/** -1 = unlimited (Octavia's default). */
export type Quota = Record<QuotaKey, number>;

export const QUOTA_OF: Record<Kind, QuotaKey> = {
  loadbalancer: 'load_balancer',
  listener: 'listener',
  pool: 'pool',
  member: 'member',
  healthmonitor: 'health_monitor',
};
export const QUOTA_NAMES: Record<QuotaKey, string> = {
  load_balancer: 'Load Balancer',
  listener: 'Listener',
  pool: 'Pool',
  member: 'Member',
  health_monitor: 'Health Monitor',
};
export const KIND_NAMES: Record<Kind, string> = {
  loadbalancer: 'Load Balancer',
  listener: 'Listener',
  pool: 'Pool',
  member: 'Member',
  healthmonitor: 'Health Monitor',
};
