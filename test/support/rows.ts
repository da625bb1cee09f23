// Rows as the service holds them, without a database: a template, a cluster made from it and its default
// node groups, and the cluster's spec as the label parser makes it. For unit tests of what reads rows.
import { randomUUID } from 'node:crypto';
import type { ClusterRow } from '../../src/db/entities/cluster.js';
import type { ClusterTemplateRow } from '../../src/db/entities/cluster-template.js';
import type { NodeGroupRow } from '../../src/db/entities/nodegroup.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import type { ClusterSpec } from '../../src/cluster-spec/types.js';

export function templateRow(over: Partial<ClusterTemplateRow> = {}): ClusterTemplateRow {
  return {
    id: 1, uuid: randomUUID(), name: 'k8s', project_id: 'p-1', user_id: 'u-1', coe: 'kubernetes', image_id: 'ubuntu-24.04',
    flavor_id: 'm1.small', master_flavor_id: 'm1.medium', keypair_id: null, dns_nameserver: null, external_network_id: 'public',
    fixed_network: null, fixed_subnet: null, network_driver: 'flannel', volume_driver: null, apiserver_port: null, docker_volume_size: null,
    docker_storage_driver: null, cluster_distro: 'ubuntu', http_proxy: null, https_proxy: null, no_proxy: null, insecure_registry: null,
    registry_enabled: false, tls_disabled: false, public: false, master_lb_enabled: false, floating_ip_enabled: true, hidden: false,
    server_type: 'vm', labels: { kube_tag: 'v1.35.2' }, tags: null, created_at: new Date(), updated_at: null,
    ...over,
  };
}

export function clusterRow(t: ClusterTemplateRow, over: Partial<ClusterRow> = {}): ClusterRow {
  return {
    id: 1, uuid: randomUUID(), name: 'c', project_id: t.project_id ?? 'p-1', user_id: 'u-1', cluster_template_id: t.uuid, keypair: null,
    docker_volume_size: null, labels: { ...t.labels }, master_flavor_id: t.master_flavor_id, flavor_id: t.flavor_id, create_timeout: 60,
    discovery_url: null, stack_id: null, status: 'CREATE_COMPLETE', status_reason: null, health_status: null, health_status_reason: null,
    health_checked_at: null, unhealthy_since: {}, api_address: 'https://203.0.113.10:6443', coe_version: 'v1.35.2', container_version: null,
    fixed_network: null, fixed_subnet: null, floating_ip_enabled: t.floating_ip_enabled, master_lb_enabled: t.master_lb_enabled,
    conditions: {}, app_cred_id: null, app_cred_secret: null, app_cred_user_id: null, retired_app_creds: [],
    hibernation: 'awake', hibernated_at: null, hibernation_schedule: null, schedule_fired: {}, maintenance: null, maintenance_claimed: null, maintenance_last: null, created_at: new Date(), updated_at: null,
    ...over,
  };
}

export function nodegroupRow(c: ClusterRow, over: Partial<NodeGroupRow> = {}): NodeGroupRow {
  const role = over.role ?? 'worker';
  return {
    id: 1, uuid: randomUUID(), name: `default-${role}`, cluster_id: c.uuid, project_id: c.project_id, docker_volume_size: null,
    labels: { ...c.labels }, flavor_id: role === 'master' ? c.master_flavor_id : c.flavor_id, image_id: 'ubuntu-24.04', node_addresses: [],
    node_count: 1, role, min_node_count: role === 'master' ? 1 : 0, max_node_count: null, is_default: true, stack_id: null,
    status: c.status, status_reason: null, version: c.coe_version, node_labels: null, node_taints: null, created_at: c.created_at, updated_at: null,
    ...over,
  };
}

/** The spec of a cluster of `masters` and `workers` nodes with `labels` over the template's. */
export function specOf(labels: Record<string, string> = {}, t: ClusterTemplateRow = templateRow(), masters = 1, workers = 1): ClusterSpec {
  const c = clusterRow(t, { labels: { ...t.labels, ...labels } });
  return parseClusterSpec({ template: t, cluster: { ...c, master_count: masters, node_count: workers }, labels: c.labels }).spec;
}
