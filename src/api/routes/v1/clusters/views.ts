// The cluster and bay views, field by field (spec §3.2, §3.7). Counts and addresses come from
// the node groups; labels_* are diffed against the template's labels.
import type { ClusterRow } from '../../../../db/entities/cluster.js';
import type { NodeGroupRow } from '../../../../db/entities/nodegroup.js';
import { totals } from '../../../../db/repos/clusters.js';
import { deriveFaults } from '../../../../domain/cluster-status.js';
import { labelDiff, type Labels } from '../../../../domain/labels.js';
import { atLeast, type ApiVersion } from '../../../../domain/microversion.js';
import { isoSeconds, selfLinks } from '../../../views.js';

export interface ViewContext {
  host: string;
  version: ApiVersion;
  nodegroups: NodeGroupRow[];
  /** The labels of the cluster's template (for the labels_* diff). */
  templateLabels: Labels;
}

const withClusterId = (version: ApiVersion, uuid: string) => (atLeast(version, 13) ? { cluster_id: uuid } : {});

export function clusterDetail(c: ClusterRow, ctx: ViewContext) {
  const t = totals(ctx.nodegroups);
  const diff = labelDiff(ctx.templateLabels, c.labels);
  const faults = deriveFaults(c.status, c.conditions, ctx.nodegroups);
  return {
    uuid: c.uuid,
    name: c.name,
    cluster_template_id: c.cluster_template_id,
    keypair: c.keypair,
    docker_volume_size: c.docker_volume_size,
    labels: c.labels,
    labels_overridden: diff.overridden,
    labels_added: diff.added,
    labels_skipped: diff.skipped,
    master_flavor_id: c.master_flavor_id,
    flavor_id: c.flavor_id,
    create_timeout: c.create_timeout,
    links: selfLinks(ctx.host, `clusters/${c.uuid}`),
    stack_id: c.stack_id,
    status: c.status,
    status_reason: c.status_reason,
    health_status: c.health_status,
    health_status_reason: c.health_status_reason,
    discovery_url: c.discovery_url,
    api_address: c.api_address,
    coe_version: c.coe_version,
    container_version: c.container_version,
    project_id: c.project_id,
    user_id: c.user_id,
    node_count: t.node_count,
    master_count: t.master_count,
    node_addresses: t.node_addresses,
    master_addresses: t.master_addresses,
    fixed_network: c.fixed_network,
    fixed_subnet: c.fixed_subnet,
    floating_ip_enabled: c.floating_ip_enabled,
    master_lb_enabled: c.master_lb_enabled,
    merge_labels: false,
    ...(faults ? { faults } : {}),
    ...withClusterId(ctx.version, c.uuid),
    created_at: isoSeconds(c.created_at),
    updated_at: isoSeconds(c.updated_at),
  };
}

export function clusterListItem(c: ClusterRow, ctx: Omit<ViewContext, 'templateLabels'>) {
  const t = totals(ctx.nodegroups);
  return {
    uuid: c.uuid,
    name: c.name,
    cluster_template_id: c.cluster_template_id,
    keypair: c.keypair,
    docker_volume_size: c.docker_volume_size,
    labels: c.labels,
    node_count: t.node_count,
    master_count: t.master_count,
    status: c.status,
    health_status: c.health_status,
    master_flavor_id: c.master_flavor_id,
    flavor_id: c.flavor_id,
    create_timeout: c.create_timeout,
    stack_id: c.stack_id,
    links: selfLinks(ctx.host, `clusters/${c.uuid}`),
    merge_labels: false,
    ...withClusterId(ctx.version, c.uuid),
  };
}

export function bayDetail(c: ClusterRow, ctx: Omit<ViewContext, 'templateLabels' | 'version'>) {
  const t = totals(ctx.nodegroups);
  const faults = deriveFaults(c.status, c.conditions, ctx.nodegroups);
  return {
    uuid: c.uuid,
    name: c.name,
    baymodel_id: c.cluster_template_id,
    node_count: t.node_count,
    master_count: t.master_count,
    docker_volume_size: c.docker_volume_size,
    labels: c.labels,
    master_flavor_id: c.master_flavor_id,
    flavor_id: c.flavor_id,
    bay_create_timeout: c.create_timeout,
    links: selfLinks(ctx.host, `bays/${c.uuid}`),
    stack_id: c.stack_id,
    status: c.status,
    status_reason: c.status_reason,
    discovery_url: c.discovery_url,
    api_address: c.api_address,
    coe_version: c.coe_version,
    container_version: c.container_version,
    node_addresses: t.node_addresses,
    master_addresses: t.master_addresses,
    ...(faults ? { bay_faults: faults } : {}),
    fixed_network: c.fixed_network,
    fixed_subnet: c.fixed_subnet,
    floating_ip_enabled: c.floating_ip_enabled,
    master_lb_enabled: c.master_lb_enabled,
    created_at: isoSeconds(c.created_at),
    updated_at: isoSeconds(c.updated_at),
  };
}

export function bayListItem(c: ClusterRow, ctx: Omit<ViewContext, 'templateLabels' | 'version'>) {
  const t = totals(ctx.nodegroups);
  return {
    uuid: c.uuid,
    name: c.name,
    baymodel_id: c.cluster_template_id,
    docker_volume_size: c.docker_volume_size,
    labels: c.labels,
    master_flavor_id: c.master_flavor_id,
    flavor_id: c.flavor_id,
    node_count: t.node_count,
    status: c.status,
    bay_create_timeout: c.create_timeout,
    master_count: t.master_count,
    stack_id: c.stack_id,
    links: selfLinks(ctx.host, `bays/${c.uuid}`),
    // wsme's default leaking into the reduced view (spec §3.7).
    floating_ip_enabled: true,
  };
}
