// The node group views, field by field (spec §3.4): detail (GET one, PATCH), what a create
// answers, and the reduced list item. labels_* are diffed against the CLUSTER's labels.
import type { NodeGroupRow } from '../../../../db/entities/nodegroup.js';
import { labelDiff, type Labels } from '../../../../domain/labels.js';
import { atLeast, type ApiVersion } from '../../../../domain/microversion.js';
import { isoSeconds, selfLinks } from '../../../views.js';
import { NODE_LABELS_VERSION } from './schema.js';

export interface NodeGroupViewContext {
  host: string;
  version: ApiVersion;
  /** The labels of the group's cluster (for the labels_* diff). */
  clusterLabels: Labels;
}

export const nodegroupPath = (clusterUuid: string, ngUuid: string): string => `clusters/${clusterUuid}/nodegroups/${ngUuid}`;

/** node_labels / node_taints from 1.14; absent below. */
function nodeMeta(ng: NodeGroupRow, version: ApiVersion) {
  if (!atLeast(version, NODE_LABELS_VERSION)) return {};
  return { node_labels: ng.node_labels ?? {}, node_taints: ng.node_taints ?? [] };
}

/** What a create answers with (202): the group as known before any worker touched it. */
export function nodegroupCreated(ng: NodeGroupRow, ctx: NodeGroupViewContext) {
  const diff = labelDiff(ctx.clusterLabels, ng.labels);
  return {
    uuid: ng.uuid,
    name: ng.name,
    cluster_id: ng.cluster_id,
    project_id: ng.project_id,
    docker_volume_size: ng.docker_volume_size,
    labels: ng.labels,
    labels_overridden: diff.overridden,
    labels_added: diff.added,
    labels_skipped: diff.skipped,
    links: selfLinks(ctx.host, nodegroupPath(ng.cluster_id, ng.uuid)),
    flavor_id: ng.flavor_id,
    image_id: ng.image_id,
    node_count: ng.node_count,
    role: ng.role,
    min_node_count: ng.min_node_count,
    max_node_count: ng.max_node_count,
    merge_labels: false,
    ...nodeMeta(ng, ctx.version),
  };
}

export function nodegroupDetail(ng: NodeGroupRow, ctx: NodeGroupViewContext) {
  return {
    id: ng.id,
    ...nodegroupCreated(ng, ctx),
    node_addresses: ng.node_addresses,
    is_default: ng.is_default,
    stack_id: ng.stack_id,
    status: ng.status,
    status_reason: ng.status_reason,
    version: ng.version,
    created_at: isoSeconds(ng.created_at),
    updated_at: isoSeconds(ng.updated_at),
  };
}

/** The list item: the reduced set plus the declared defaults that leak into it (not the group's values). */
export function nodegroupListItem(ng: NodeGroupRow) {
  return {
    uuid: ng.uuid,
    name: ng.name,
    flavor_id: ng.flavor_id,
    image_id: ng.image_id,
    node_count: ng.node_count,
    role: ng.role,
    is_default: ng.is_default,
    status: ng.status,
    stack_id: ng.stack_id,
    min_node_count: 0,
    max_node_count: null,
    merge_labels: false,
  };
}
