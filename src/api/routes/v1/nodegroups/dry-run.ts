// The dry-run of a node group create (an extension; src/api/dry-run.ts says what a dry-run answers): the use
// case's plan, then what the real call would answer, nothing written.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { planNodegroupCreate } from '../../../../clusters/nodegroup-create.js';
import { DRY_RUN_RESPONSE, dryRunDoc, dryRunErrors, dryRunOutcome } from '../../../dry-run.js';
import { Ident } from '../../../schemas/common.js';
import { nodegroupCaller, refuseLateFields } from './routes.js';
import { NodeGroupCreate, READ_ONLY } from './schema.js';

export const nodegroupDryRunRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  app.post(
    '/dry-run/clusters/:cluster/nodegroups',
    {
      config: { minVersion: 9, bodyName: 'nodegroup', readOnly: READ_ONLY },
      preValidation: refuseLateFields,
      errorHandler: dryRunErrors('nodegroup_create'),
      schema: { ...dryRunDoc('a node group create', 'POST /v1/clusters/{cluster}/nodegroups'), params: Type.Object({ cluster: Ident }), body: Type.Ref(NodeGroupCreate), response: DRY_RUN_RESPONSE },
    },
    async (request) => {
      const plan = await planNodegroupCreate(s, nodegroupCaller(request), request.params.cluster, request.body);
      return dryRunOutcome(request, 'nodegroup_create', plan.cluster.uuid, plan.bill);
    },
  );
};
