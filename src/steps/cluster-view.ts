// What the periodic passes (healing, scaling) read of one settled cluster, read once per pass and shared: its
// parsed spec, its Nodes and its servers.
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../db/entities/cluster.js';
import { ClusterTemplateRepo } from '../db/repos/cluster-templates.js';
import type { KubeClient, KubeNode } from '../kube/api-client.js';
import { parseClusterSpec } from '../cluster-spec/parse.js';
import type { ClusterSpec } from '../cluster-spec/types.js';
import type { Server } from '../openstack/nova-servers.js';
import type { Cloud } from './cloud.js';
import { clusterTag } from './naming.js';

export interface ClusterView {
  /** Undefined when the template is gone or the labels no longer parse (the passes then leave the cluster alone). */
  spec: ClusterSpec | undefined;
  kube: KubeClient | undefined;
  cloud: Cloud | undefined;
  /** The cluster's Nodes (one call per pass). */
  nodes(): Promise<KubeNode[]>;
  /** The cluster's servers, by its tag, not deleted (one call per pass). */
  servers(): Promise<Server[]>;
}

async function specOf(ds: DataSource, c: ClusterRow): Promise<ClusterSpec | undefined> {
  const t = await new ClusterTemplateRepo(ds).byUuid(c.cluster_template_id);
  if (!t) return undefined;
  try {
    return parseClusterSpec({ template: t, cluster: c, labels: c.labels }).spec;
  } catch {
    return undefined;
  }
}

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

export async function clusterView(ds: DataSource, c: ClusterRow, kube: KubeClient | undefined, cloud: Cloud | undefined): Promise<ClusterView> {
  return {
    spec: await specOf(ds, c),
    kube,
    cloud,
    nodes: once(async () => (kube ? kube.listNodes() : [])),
    servers: once(async () => {
      if (!cloud) return [];
      return (await (await cloud.servers()).list({ tags: [clusterTag(c.uuid)] })).filter((s) => s.status !== 'DELETED' && s.status !== 'SOFT_DELETED');
    }),
  };
}
