// Every /v1 resource, registered under the /v1 prefix by the app.
import type { FastifyInstance } from 'fastify';
import { certificatesRoutes } from './certificates/routes.js';
import { clustersRoutes } from './clusters/routes.js';
import { clusterResourceRoutes } from './clusters/resources.js';
import { clusterDryRunRoutes } from './clusters/dry-run.js';
import { clusterUpgradeRoutes } from './clusters/upgrades.js';
import { clusterKubeconfigRoutes } from './clusters/kubeconfig.js';
import { clusterHibernationRoutes } from './clusters/hibernation.js';
import { clusterMaintenanceRoutes } from './clusters/maintenance.js';
import { cloudChoiceRoutes } from './cloud-choices.js';
import { templateRoutes } from './clustertemplates/routes.js';
import { mservicesRoutes } from './mservices.js';
import { nodegroupDryRunRoutes } from './nodegroups/dry-run.js';
import { nodegroupsRoutes } from './nodegroups/routes.js';
import { nodegroupNodesRoutes } from './nodegroups/nodes.js';
import { quotasRoutes } from './quotas/routes.js';
import { statsRoutes } from './stats.js';
import { streamRoutes } from './streams/routes.js';

export async function v1Routes(app: FastifyInstance): Promise<void> {
  await app.register(templateRoutes('template'));
  await app.register(templateRoutes('baymodel'));
  await app.register(clustersRoutes);
  await app.register(nodegroupsRoutes);
  await app.register(certificatesRoutes);
  await app.register(quotasRoutes);
  await app.register(statsRoutes);
  await app.register(mservicesRoutes);
  // Extensions for the portal (Magnum's own responses unchanged).
  await app.register(clusterResourceRoutes);
  await app.register(clusterUpgradeRoutes);
  await app.register(clusterKubeconfigRoutes);
  await app.register(clusterHibernationRoutes);
  await app.register(clusterMaintenanceRoutes);
  await app.register(streamRoutes);
  await app.register(cloudChoiceRoutes);
  await app.register(clusterDryRunRoutes);
  await app.register(nodegroupDryRunRoutes);
  await app.register(nodegroupNodesRoutes);
}
