// /v1/quotas (spec §2 #37–#41, §3.6).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { QuotaRepo } from '../../../../db/repos/quotas.js';
import { nextLink } from '../../../pagination.js';
import { errorResponses, NoContent } from '../../../schemas/common.js';
import { hostUrl, isoSeconds } from '../../../views.js';
import { KeystoneProjects } from './projects.js';
import { Quota, QuotaCreate, QuotaList, QuotaListQuery, QuotaParams, QuotaUpdate, READ_ONLY, UPDATE_READ_ONLY } from './schema.js';
import { createQuota, deleteQuota, listQuotas, showQuota, updateQuota, type QuotaDeps, type QuotaShown } from './service.js';

export function quotaView(q: QuotaShown) {
  if (!('id' in q)) return { project_id: q.project_id, resource: q.resource, hard_limit: q.hard_limit };
  return {
    id: q.id,
    project_id: q.project_id,
    resource: q.resource,
    hard_limit: q.hard_limit,
    created_at: isoSeconds(q.created_at),
    updated_at: isoSeconds(q.updated_at),
  };
}

const tags = ['quotas'];

export const quotasRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.services.config;
  const deps: QuotaDeps = {
    repo: new QuotaRepo(app.services.db),
    projects: new KeystoneProjects(config.keystone),
    maxLimit: config.maxLimit,
    defaultClusterLimit: config.maxClustersPerProject,
  };

  app.get(
    '/quotas',
    { schema: { tags, summary: 'List quotas (admin)', querystring: QuotaListQuery, response: { 200: Type.Ref(QuotaList), ...errorResponses(400, 401, 403, 404) } } },
    async (request) => {
      const { rows, page } = await listQuotas(deps, request.auth, request.query);
      return { quotas: rows.map(quotaView), ...nextLink(hostUrl(request), 'quotas', page, rows.length, rows.at(-1)?.id.toString()) };
    },
  );

  app.get(
    '/quotas/:project_id/:resource',
    { schema: { tags, summary: 'Show a project’s quota (the default when none is set)', params: QuotaParams, response: { 200: Type.Ref(Quota), ...errorResponses(400, 401, 403) } } },
    async (request) => quotaView(await showQuota(deps, request.auth, request.params.project_id, request.params.resource)),
  );

  app.post(
    '/quotas',
    {
      config: { bodyName: 'quota', readOnly: READ_ONLY },
      schema: { tags, summary: 'Set a project’s quota (admin)', body: Type.Ref(QuotaCreate), response: { 201: Type.Ref(Quota), ...errorResponses(400, 401, 403, 404, 409) } },
    },
    async (request, reply) => {
      const q = await createQuota(deps, request.auth, request.body);
      return reply.code(201).send(quotaView(q));
    },
  );

  app.patch(
    '/quotas/:project_id/:resource',
    {
      config: { bodyName: 'quotapatch', readOnly: UPDATE_READ_ONLY },
      schema: {
        tags,
        summary: 'Change a quota’s hard limit (admin; a plain object, hard_limit omitted means 1)',
        params: QuotaParams,
        body: Type.Ref(QuotaUpdate),
        response: { 202: Type.Ref(Quota), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const q = await updateQuota(deps, request.auth, request.params.project_id, request.params.resource, request.body);
      return reply.code(202).send(quotaView(q));
    },
  );

  app.delete(
    '/quotas/:project_id/:resource',
    { schema: { tags, summary: 'Delete a quota (admin)', params: QuotaParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } } },
    async (request, reply) => {
      await deleteQuota(deps, request.auth, request.params.project_id, request.params.resource);
      return reply.code(204).send();
    },
  );
};
