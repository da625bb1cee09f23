// The maintenance windows' pass as the worker runs it (src/clusters/maintenance-pass.ts): the upgrade a window
// begins goes through the API's own planUpgrade and startUpgrade, so the worker composes what they use (the
// templates, the pre-flight with the create graph's bills, the outbox) and acts as each cluster's project with its
// application credential.
import type { DataSource } from 'typeorm';
import type { Config } from '../src/config.js';
import { runMaintenance, type MaintenancePassDeps, type WindowRun } from '../src/clusters/maintenance-pass.js';
import { ClusterRepo } from '../src/db/repos/clusters.js';
import { ClusterTemplateRepo } from '../src/db/repos/cluster-templates.js';
import { NodeGroupRepo } from '../src/db/repos/nodegroups.js';
import { QuotaRepo } from '../src/db/repos/quotas.js';
import { callerClouds, preflightOf, templateCloud } from '../src/preflight/of-config.js';
import type { CloudFactory, WorkerCloudConfig } from '../src/steps/cloud.js';
import { createOperation } from './cluster/create.js';

/** What the pass needs of the configuration beside the worker's clouds: the API's pre-flight and limits. */
export type MaintenanceConfig = WorkerCloudConfig & Pick<Config, 'cloudResourceChecks' | 'maxClustersPerProject' | 'limits' | 'logLevel'>;

/** The pass at a given time (the worker's job passes now; tests their own clock). */
export function maintenancePass(db: DataSource, config: MaintenanceConfig, cloud: CloudFactory): (now: Date) => Promise<WindowRun[]> {
  const clouds = callerClouds(config);
  const templates = new ClusterTemplateRepo(db);
  const clusters = new ClusterRepo(db);
  const preflight = preflightOf(config, clouds, new QuotaRepo(db), config.cloudResourceChecks ? templateCloud(config, clouds) : undefined, createOperation.steps);
  const deps: MaintenancePassDeps = {
    db,
    templates,
    plan: { config, templates: { repo: templates }, clusters, preflight },
    upgrade: { nodegroups: new NodeGroupRepo(db), outbox: { db } },
    callerFor: (c) => cloud.callerFor(c),
  };
  return (now) => runMaintenance(deps, now);
}
