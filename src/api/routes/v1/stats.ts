// GET /v1/stats (spec §3.8): cluster and node counts of one project, or of all for an admin.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { clusterStats } from '../../../db/repos/stats.js';
import { errors } from '../../../domain/errors.js';
import { enforce } from '../../../domain/policy.js';
import { errorResponses, QueryStr } from '../../schemas/common.js';

export const Stats = Type.Object(
  { clusters: Type.Integer({ minimum: 0 }), nodes: Type.Integer({ minimum: 0, description: 'node_count of every node group, masters included' }) },
  { $id: 'Stats' },
);

const StatsQuery = Type.Object(
  {
    project_id: Type.Optional(QueryStr({ description: 'default: the caller’s project; admins without it get every project' })),
    type: Type.Optional(QueryStr({ default: 'cluster', description: 'only cluster' })),
  },
  { additionalProperties: false },
);

export const statsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stats',
    { schema: { tags: ['stats'], summary: 'Count clusters and nodes', querystring: StatsQuery, response: { 200: Type.Ref(Stats), ...errorResponses(400, 401, 403) } } },
    async (request) => {
      const ctx = request.auth;
      enforce(ctx, 'stats:get_all');
      if ((request.query.type ?? 'cluster').toLowerCase() !== 'cluster') throw errors.invalidStatsType();
      let projectId = request.query.project_id || undefined;
      if (!ctx.isAdmin) {
        projectId ??= ctx.projectId ?? '';
        if (projectId !== ctx.projectId) throw errors.notAuthorized();
      }
      return clusterStats(app.services.db, projectId);
    },
  );
};
