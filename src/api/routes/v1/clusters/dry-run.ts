// Dry-runs of a cluster create, resize and upgrade (an extension; src/api/dry-run.ts says what a dry-run answers):
// the use case's plan, then what the real call would answer, nothing written.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { planCreate } from '../../../../clusters/create.js';
import { findCluster, ownScope, readScope } from '../../../../clusters/lookup.js';
import { planResize } from '../../../../clusters/resize.js';
import { planUpgrade } from '../../../../clusters/upgrade.js';
import { DRY_RUN_RESPONSE, dryRunDoc, dryRunErrors, dryRunOutcome } from '../../../dry-run.js';
import { Ident } from '../../../schemas/common.js';
import { ClusterCreate, READ_ONLY, ResizeBody, UpgradeBody } from './schema.js';
import { caller } from '../../../request-caller.js';

const Params = Type.Object({ ident: Ident });

export const clusterDryRunRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;

  app.post(
    '/dry-run/clusters',
    {
      config: { bodyName: 'cluster', readOnly: READ_ONLY },
      errorHandler: dryRunErrors('create'),
      schema: { ...dryRunDoc('a cluster create', 'POST /v1/clusters'), body: Type.Ref(ClusterCreate), response: DRY_RUN_RESPONSE },
    },
    async (request) => {
      const plan = await planCreate(s, caller(request), request.body, request.apiVersion, 'cluster');
      return dryRunOutcome(request, 'create', undefined, plan.bill, plan.warnings);
    },
  );

  app.post(
    '/dry-run/clusters/:ident/actions/resize',
    {
      config: { minVersion: 7, bodyName: 'cluster_resize_req' },
      errorHandler: dryRunErrors('resize'),
      schema: { ...dryRunDoc('a resize', 'POST /v1/clusters/{ident}/actions/resize'), params: Params, body: Type.Ref(ResizeBody), response: DRY_RUN_RESPONSE },
    },
    async (request) => {
      const c = await findCluster(s.clusters, request.params.ident, ownScope(request.auth));
      const plan = await planResize(s, caller(request), c, request.body, request.apiVersion);
      return dryRunOutcome(request, 'resize', c.uuid, plan.bill);
    },
  );

  app.post(
    '/dry-run/clusters/:ident/actions/upgrade',
    {
      config: { minVersion: 7, bodyName: 'cluster_upgrade_req' },
      errorHandler: dryRunErrors('upgrade'),
      schema: { ...dryRunDoc('an upgrade', 'POST /v1/clusters/{ident}/actions/upgrade'), params: Params, body: Type.Ref(UpgradeBody), response: DRY_RUN_RESPONSE },
    },
    async (request) => {
      const c = await findCluster(s.clusters, request.params.ident, readScope(request.auth));
      const plan = await planUpgrade(s, caller(request), c, request.body, request.apiVersion);
      return dryRunOutcome(request, 'upgrade', c.uuid, plan.bill);
    },
  );
};
