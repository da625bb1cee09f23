// Clusters for the node group tests: a settled cluster with its two default node groups from
// cluster-fixture.ts (no PKI), and the knobs these suites turn (owner, API address, labels, flavor).
import { randomUUID } from 'node:crypto';
import { ClusterEntity, type ClusterRow } from '../../src/db/entities/cluster.js';
import type { ClusterTemplateRow } from '../../src/db/entities/cluster-template.js';
import { NodeGroupEntity, type NodeGroupRow } from '../../src/db/entities/nodegroup.js';
import type { TestApp, User } from './app.js';
import { insertCluster } from './cluster-fixture.js';

export interface ClusterFixtureOptions {
  /** Whose project the cluster is in (default demo). */
  owner?: User;
  name?: string;
  status?: string;
  /** null: the API address is not known yet. */
  apiAddress?: string | null;
  /** The template's labels, which the cluster inherits. */
  labels?: Record<string, string>;
  flavorId?: string | null;
}

export interface ClusterFixture {
  cluster: ClusterRow;
  template: ClusterTemplateRow;
  master: NodeGroupRow;
  worker: NodeGroupRow;
}

export async function nodegroupCluster(t: TestApp, opts: ClusterFixtureOptions = {}): Promise<ClusterFixture> {
  const owner = opts.owner ?? 'demo';
  const { cluster, template } = await insertCluster(t.app, {
    user: t.keystone.state.userId(owner),
    project: t.keystone.state.projectId(owner === 'demo-reader' ? 'demo' : owner),
    template: {
      labels: opts.labels ?? { kube_tag: 'v1.35.2', auto_healing_enabled: 'False' },
      ...(opts.flavorId === undefined ? {} : { flavor_id: opts.flavorId }),
    },
    ...(opts.status ? { status: opts.status } : {}),
    ...(opts.name ? { name: opts.name } : {}),
    nodegroups: true,
    pki: false,
  });
  const db = t.app.services.db;
  if (opts.apiAddress !== undefined) {
    await db.getRepository(ClusterEntity).update({ uuid: cluster.uuid }, { api_address: opts.apiAddress });
    cluster.api_address = opts.apiAddress;
  }
  const groups = await db.getRepository(NodeGroupEntity).findBy({ cluster_id: cluster.uuid });
  const byRole = (role: string) => groups.find((g) => g.role === role)!;
  return { cluster, template, master: byRole('master'), worker: byRole('worker') };
}

/** Inserts one more (non-default) worker group into a fixture cluster. */
export async function insertNodegroup(t: TestApp, f: ClusterFixture, over: Partial<NodeGroupRow> = {}): Promise<NodeGroupRow> {
  const row: Omit<NodeGroupRow, 'id'> = {
    uuid: randomUUID(),
    name: `ng-${randomUUID().slice(0, 8)}`,
    cluster_id: f.cluster.uuid,
    project_id: f.cluster.project_id,
    docker_volume_size: null,
    labels: { ...f.cluster.labels },
    flavor_id: f.cluster.flavor_id,
    image_id: f.template.image_id,
    node_addresses: ['10.0.0.100'],
    node_count: 1,
    role: 'worker',
    min_node_count: 0,
    max_node_count: null,
    is_default: false,
    stack_id: null,
    status: f.cluster.status,
    status_reason: null,
    version: 'v1.35.2',
    node_labels: null,
    node_taints: null,
    created_at: new Date(),
    updated_at: null,
    ...over,
  };
  return t.app.services.db.getRepository(NodeGroupEntity).save(row as NodeGroupRow);
}
