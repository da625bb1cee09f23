// The live views' shapes (extensions; Magnum has no such calls): a cluster's summary as the list
// shows it, and the detail a cluster page follows (with its node groups); read in bulk by ClusterViewRepo.
import { Type } from '@sinclair/typebox';
import type { ClusterRow } from '../../../../db/entities/cluster.js';
import type { NodeGroupRow } from '../../../../db/entities/nodegroup.js';
import type { ClusterSummaryRow } from '../../../../db/repos/cluster-views.js';
import { Nullable } from '../../../schemas/common.js';

const NS = Nullable(Type.String());
export const ConditionView = Type.Object({
  status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
  reason: Type.String(),
  message: Type.String(),
  since: Type.String(),
});

export const ClusterSummary = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    name: Type.String(),
    project_id: Type.String(),
    cluster_template_id: Type.String(),
    status: Type.String(),
    status_reason: NS,
    health_status: NS,
    health_status_reason: Nullable(Type.Record(Type.String(), Type.String())),
    health_checked_at: NS,
    coe_version: NS,
    api_address: NS,
    node_count: Type.Integer(),
    master_count: Type.Integer(),
    keypair: NS,
    labels: Type.Record(Type.String(), Type.String()),
    conditions: Type.Record(Type.String(), ConditionView),
    created_at: NS,
    updated_at: NS,
  },
  { $id: 'ClusterSummary' },
);

export const NodeGroupSummary = Type.Object({
  uuid: Type.String(),
  name: Type.String(),
  role: Type.String(),
  flavor_id: NS,
  image_id: NS,
  node_count: Type.Integer(),
  min_node_count: Type.Integer(),
  max_node_count: Nullable(Type.Integer()),
  is_default: Type.Boolean(),
  status: NS,
  status_reason: NS,
  version: NS,
  node_addresses: Type.Array(Type.String()),
});

export const ClusterLive = Type.Object(
  {
    ...ClusterSummary.properties,
    nodegroups: Type.Array(NodeGroupSummary),
    servers: Type.Array(Type.Object({ id: Type.String(), name: Nullable(Type.String()) }), {
      description: 'The servers the resource ledger holds (named <cluster>-<node group>-<suffix>): what resize’s nodes_to_remove takes.',
    }),
  },
  { $id: 'ClusterLive' },
);

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function summaryOf(c: ClusterRow, groups: NodeGroupRow[]) {
  let nodes = 0;
  let masters = 0;
  for (const g of groups) {
    if (g.role === 'master') masters += g.node_count;
    else nodes += g.node_count;
  }
  return {
    uuid: c.uuid,
    name: c.name,
    project_id: c.project_id,
    cluster_template_id: c.cluster_template_id,
    status: c.status,
    status_reason: c.status_reason,
    health_status: c.health_status,
    health_status_reason: c.health_status_reason,
    health_checked_at: iso(c.health_checked_at),
    coe_version: c.coe_version,
    api_address: c.api_address,
    node_count: nodes,
    master_count: masters,
    keypair: c.keypair,
    labels: c.labels,
    conditions: c.conditions as Record<string, { status: 'True' | 'False' | 'Unknown'; reason: string; message: string; since: string }>,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

export function liveOf(c: ClusterRow, groups: NodeGroupRow[], servers: { id: string; name: string | null }[]) {
  return {
    ...summaryOf(c, groups),
    servers,
    nodegroups: groups.map((g) => ({
      uuid: g.uuid,
      name: g.name,
      role: g.role,
      flavor_id: g.flavor_id,
      image_id: g.image_id,
      node_count: g.node_count,
      min_node_count: g.min_node_count,
      max_node_count: g.max_node_count,
      is_default: g.is_default,
      status: g.status,
      status_reason: g.status_reason,
      version: g.version,
      node_addresses: g.node_addresses,
    })),
  };
}

/** A summary from the list's row (its node counts summed by the repository's one query). */
export function summaryOfRow(r: ClusterSummaryRow): ReturnType<typeof summaryOf> {
  return {
    uuid: r.uuid,
    name: r.name,
    project_id: r.project_id,
    cluster_template_id: r.cluster_template_id,
    status: r.status,
    status_reason: r.status_reason,
    health_status: r.health_status,
    health_status_reason: r.health_status_reason,
    health_checked_at: iso(r.health_checked_at),
    coe_version: r.coe_version,
    api_address: r.api_address,
    node_count: r.node_count,
    master_count: r.master_count,
    keypair: r.keypair,
    labels: r.labels,
    conditions: r.conditions as ReturnType<typeof summaryOf>['conditions'],
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}
