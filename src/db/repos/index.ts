// The repositories over one data source, for a process that uses several (a worker's run).
import type { DataSource } from 'typeorm';
import { ClusterTemplateRepo } from './cluster-templates.js';
import { ClusterRepo } from './clusters.js';
import { ClusterEventRepo } from './events.js';
import { NodeGroupRepo } from './nodegroups.js';
import { NodeMaterialRepo } from './node-material.js';
import { OperationRepo } from './operations.js';

export interface Repos {
  clusters: ClusterRepo;
  nodegroups: NodeGroupRepo;
  templates: ClusterTemplateRepo;
  operations: OperationRepo;
  events: ClusterEventRepo;
  nodeMaterial: NodeMaterialRepo;
}

export function repositories(ds: DataSource): Repos {
  return {
    clusters: new ClusterRepo(ds),
    nodegroups: new NodeGroupRepo(ds),
    templates: new ClusterTemplateRepo(ds),
    operations: new OperationRepo(ds),
    events: new ClusterEventRepo(ds),
    nodeMaterial: new NodeMaterialRepo(ds),
  };
}
