// /v1/clusters/{cluster}/nodegroups (spec §2 #23–#27, §3.4), from microversion 1.9.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ClusterRow } from '../../../../db/entities/cluster.js';
import { NODEGROUP_SORTABLE } from '../../../../db/repos/nodegroups.js';
import { errors } from '../../../../domain/errors.js';
import { checkPatch } from '../../../../domain/json-patch.js';
import { atLeast } from '../../../../domain/microversion.js';
import { nextLink, parsePage } from '../../../pagination.js';
import { enforce } from '../../../../domain/policy.js';
import { errorResponses, NoContent, PatchDocument } from '../../../schemas/common.js';
import { hostUrl } from '../../../views.js';
import {
  ItemParams,
  ListParams,
  NODE_LABELS_VERSION,
  NodeGroup,
  NodeGroupCreate,
  NodeGroupCreated,
  NodeGroupList,
  NodeGroupListQuery,
  READ_ONLY,
} from './schema.js';
import { findCluster, findNodegroup, readScope } from '../../../../clusters/lookup.js';
import { planNodegroupCreate, startNodegroupCreate, type NodegroupCaller } from '../../../../clusters/nodegroup-create.js';
import { startNodegroupDelete } from '../../../../clusters/nodegroup-delete.js';
import { startNodegroupUpdate } from '../../../../clusters/nodegroup-update.js';
import { nodegroupCreated, nodegroupDetail, nodegroupListItem, type NodeGroupViewContext } from './views.js';

/** Nodegroups exist from 1.9 (406 below). */
const MIN_VERSION = 9;
const LATE_FIELDS = ['node_labels', 'node_taints'];

const viewContext = (request: FastifyRequest, cluster: ClusterRow): NodeGroupViewContext => ({
  host: hostUrl(request),
  version: request.apiVersion,
  clusterLabels: cluster.labels,
});

/** Below 1.14 node_labels and node_taints are unknown attributes, as any other. */
export async function refuseLateFields(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (atLeast(request.apiVersion, NODE_LABELS_VERSION) || body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const late = LATE_FIELDS.filter((k) => k in body);
  if (late.length > 0) throw errors.unknownAttributes('nodegroup', late);
}

const tags = ['nodegroups'];

export const nodegroupCaller = (request: FastifyRequest): NodegroupCaller => ({ ctx: request.auth, version: request.apiVersion, token: request.authToken });

export const nodegroupsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  const config = { minVersion: MIN_VERSION };

  app.get(
    '/clusters/:cluster/nodegroups',
    {
      config,
      schema: {
        tags,
        summary: 'List the node groups of a cluster',
        params: ListParams,
        querystring: NodeGroupListQuery,
        response: { 200: Type.Ref(NodeGroupList), ...errorResponses(400, 401, 403, 404, 406, 409) },
      },
    },
    async (request) => {
      enforce(request.auth, 'nodegroup:get_all');
      const scope = readScope(request.auth);
      const cluster = await findCluster(s.clusters, request.params.cluster, scope);
      const page = parsePage(request.query, s.config.maxLimit, NODEGROUP_SORTABLE);
      const rows = await s.nodegroups.list(cluster.uuid, scope, request.query.role, page, page.marker);
      if (rows === 'bad-marker') throw errors.notFound('Nodegroup', page.marker!);
      return {
        nodegroups: rows.map(nodegroupListItem),
        ...nextLink(hostUrl(request), `clusters/${cluster.uuid}/nodegroups`, page, rows.length, rows.at(-1)?.uuid),
      };
    },
  );

  app.get(
    '/clusters/:cluster/nodegroups/:nodegroup',
    {
      config,
      schema: {
        tags,
        summary: 'Show a node group',
        params: ItemParams,
        response: { 200: Type.Ref(NodeGroup), ...errorResponses(401, 403, 404, 406, 409) },
      },
    },
    async (request) => {
      enforce(request.auth, 'nodegroup:get');
      const scope = readScope(request.auth);
      const cluster = await findCluster(s.clusters, request.params.cluster, scope);
      const ng = await findNodegroup(s.nodegroups, cluster.uuid, request.params.nodegroup, scope);
      return nodegroupDetail(ng, viewContext(request, cluster));
    },
  );

  app.post(
    '/clusters/:cluster/nodegroups',
    {
      config: { ...config, bodyName: 'nodegroup', readOnly: READ_ONLY },
      preValidation: refuseLateFields,
      schema: {
        tags,
        summary: 'Create a node group (asynchronous)',
        params: ListParams,
        body: Type.Ref(NodeGroupCreate),
        response: { 202: Type.Ref(NodeGroupCreated), ...errorResponses(400, 401, 403, 404, 406, 409) },
      },
    },
    async (request, reply) => {
      const plan = await planNodegroupCreate(s, nodegroupCaller(request), request.params.cluster, request.body);
      const { ng, cluster } = await startNodegroupCreate(s, plan, request.body);
      reply.code(202);
      return nodegroupCreated(ng, viewContext(request, cluster));
    },
  );

  app.patch(
    '/clusters/:cluster/nodegroups/:nodegroup',
    {
      config,
      schema: {
        tags,
        summary: 'Change min_node_count / max_node_count with a JSON patch (asynchronous)',
        params: ItemParams,
        body: PatchDocument,
        response: { 202: Type.Ref(NodeGroup), ...errorResponses(400, 401, 403, 404, 406, 409) },
      },
      // The patch document is checked by Magnum's rules, not by the schema (its errors differ).
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const ops = checkPatch(request.body);
      const { ng, cluster } = await startNodegroupUpdate(s, nodegroupCaller(request), request.params.cluster, request.params.nodegroup, ops);
      reply.code(202);
      return nodegroupDetail(ng, viewContext(request, cluster));
    },
  );

  app.delete(
    '/clusters/:cluster/nodegroups/:nodegroup',
    {
      config,
      schema: {
        tags,
        summary: 'Delete a node group (asynchronous)',
        params: ItemParams,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 406, 409) },
      },
    },
    async (request, reply) => {
      await startNodegroupDelete(s, nodegroupCaller(request), request.params.cluster, request.params.nodegroup);
      return reply.code(204).send();
    },
  );
};
