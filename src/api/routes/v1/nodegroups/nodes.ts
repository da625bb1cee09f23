// GET /v1/clusters/{cluster}/nodegroups/{nodegroup}/nodes (an extension): a node group's nodes as
// they are now, from the cluster's own records (the resource ledger) checked against Nova with the
// caller's token (src/clusters/nodes.ts): name, role, zone, status, addresses, age. What a resize's
// nodes_to_remove takes, for every group (the default worker group's servers are named "worker", not
// after the group). Magnum's node group answers are unchanged.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ResourceRepo } from '../../../../db/repos/resources.js';
import { findCluster, findNodegroup, readScope } from '../../../../clusters/lookup.js';
import { clusterNodesNow, inGroup } from '../../../../clusters/nodes.js';
import { enforce } from '../../../../domain/policy.js';
import { errorResponses, Nullable } from '../../../schemas/common.js';
import { ItemParams } from './schema.js';
import { caller } from '../../../request-caller.js';

export const NodeGroupNodes = Type.Object(
  {
    cluster_uuid: Type.String({ format: 'uuid' }),
    nodegroup_uuid: Type.String({ format: 'uuid' }),
    nodegroup: Type.String({ description: 'The node group’s name.' }),
    nodes: Type.Array(
      Type.Object({
        id: Type.String({ description: 'Nova’s id of the server.' }),
        name: Type.String({ description: 'The server’s name, which is its Kubernetes node name: what resize’s nodes_to_remove takes.' }),
        role: Type.Union([Type.Literal('control-plane'), Type.Literal('worker')]),
        availability_zone: Nullable(Type.String()),
        status: Nullable(Type.String({ description: 'Nova’s status of the server (ACTIVE, BUILD, ERROR, ...); null when Nova did not answer.' })),
        fault: Nullable(Type.String({ description: 'Nova’s fault of a server in ERROR.' })),
        addresses: Type.Array(Type.String(), { description: 'IPv4 addresses, floating ones first.' }),
        created_at: Type.String({ format: 'date-time' }),
        source: Type.Union([Type.Literal('ledger'), Type.Literal('cloud'), Type.Literal('ledger+cloud')], {
          description: 'ledger+cloud: recorded and seen in Nova; cloud: in Nova, carrying the cluster’s tag, not recorded; ledger: recorded, Nova not answering.',
        }),
      }),
    ),
    unreachable: Type.Array(Type.String({ description: 'Services that could not be asked: with compute, the list is the ledger’s alone and may hold servers that are gone.' })),
  },
  { $id: 'NodeGroupNodes' },
);

export const nodegroupNodesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  const ledger = new ResourceRepo(s.db);

  app.get(
    '/clusters/:cluster/nodegroups/:nodegroup/nodes',
    {
      schema: {
        tags: ['nodegroups'],
        summary: 'The nodes of a node group now (an extension): the ledger checked against Nova',
        params: ItemParams,
        response: { 200: Type.Ref(NodeGroupNodes), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      enforce(request.auth, 'nodegroup:get');
      const scope = readScope(request.auth);
      const cluster = await findCluster(s.clusters, request.params.cluster, scope);
      const g = await findNodegroup(s.nodegroups, cluster.uuid, request.params.nodegroup, scope);
      const now = await clusterNodesNow({ clouds: s.clouds, ledger }, caller(request), cluster, (reason) =>
        request.log.warn({ reason }, 'node list: Nova did not answer'),
      );
      const nodes = now.nodes.filter((n) => inGroup(n, g, cluster)).map(({ nodegroup: _group, ...n }) => n);
      return { cluster_uuid: cluster.uuid, nodegroup_uuid: g.uuid, nodegroup: g.name, nodes, unreachable: now.unreachable };
    },
  );
};
