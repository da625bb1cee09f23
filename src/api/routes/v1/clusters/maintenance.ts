// The maintenance window (an extension; Magnum has no such calls): GET /v1/clusters/{ident}/maintenance (the
// settings, the next window, whether one is open, the upgrade a window would run or why none, the latest run),
// PUT to set them (each checked: a 400 in Magnum's envelope, nothing stored) and DELETE to remove them. GET reuses
// cluster:get's rule, PUT and DELETE cluster:update's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { findCluster } from '../../../../clusters/lookup.js';
import { maintenanceView, setMaintenance } from '../../../../clusters/maintenance-window.js';
import { errorResponses, Ident, NoContent } from '../../../schemas/common.js';
import { ClusterMaintenance, MaintenanceSettings } from './maintenance-schema.js';
import { caller, scopeOf } from '../../../request-caller.js';

const Params = Type.Object({ ident: Ident });

export const clusterMaintenanceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  const deps = { clusters: s.clusters, templates: s.templates.repo };
  app.addSchema(MaintenanceSettings);
  app.addSchema(ClusterMaintenance);

  app.get(
    '/clusters/:ident/maintenance',
    {
      schema: {
        tags: ['clusters'],
        summary: 'The cluster’s weekly maintenance window, the next one and the upgrade it would run (an extension)',
        params: Params,
        response: { 200: Type.Ref(ClusterMaintenance), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => maintenanceView(s.templates.repo, caller(request), await findCluster(s.clusters, request.params.ident, scopeOf(request))),
  );

  app.put(
    '/clusters/:ident/maintenance',
    {
      config: { bodyName: 'maintenance' },
      schema: {
        tags: ['clusters'],
        summary: 'Set the cluster’s weekly maintenance window and its automatic upgrade (an extension)',
        params: Params,
        body: Type.Ref(MaintenanceSettings),
        response: { 200: Type.Ref(ClusterMaintenance), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const c = await findCluster(s.clusters, request.params.ident, scopeOf(request));
      await setMaintenance(deps, caller(request), c, request.body);
      return maintenanceView(s.templates.repo, caller(request), await findCluster(s.clusters, c.uuid, scopeOf(request)));
    },
  );

  app.delete(
    '/clusters/:ident/maintenance',
    {
      schema: {
        tags: ['clusters'],
        summary: 'Remove the cluster’s maintenance window (an extension)',
        params: Params,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const c = await findCluster(s.clusters, request.params.ident, scopeOf(request));
      await setMaintenance(deps, caller(request), c, null);
      return reply.code(204).send();
    },
  );
};
