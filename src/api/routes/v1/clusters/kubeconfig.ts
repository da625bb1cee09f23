// GET /v1/clusters/{ident}/kubeconfig (an extension): the identity kubeconfig (src/clusters/kubeconfig.ts), whose
// user presents the caller's Keystone token through client-keystone-auth. Readers of the project may have it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { identityKubeconfig } from '../../../../clusters/kubeconfig.js';
import { errorResponses, Ident, Nullable } from '../../../schemas/common.js';

export const IdentityKubeconfig = Type.Object(
  {
    cluster_uuid: Type.String({ format: 'uuid' }),
    kind: Type.Literal('identity', { description: 'identity: the user is the Keystone identity (client-keystone-auth), no certificate.' }),
    expires_at: Nullable(Type.String({ description: 'null: the kubeconfig does not expire; each Keystone token it fetches does, and it stops working when the user loses the project\'s roles.' })),
    kubeconfig: Type.String({ description: 'The kubeconfig, YAML.' }),
  },
  { $id: 'IdentityKubeconfig' },
);

export const clusterKubeconfigRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  const deps = { db: s.db, clusters: s.clusters, authUrl: s.config.keystone.authUrl };
  app.get(
    '/clusters/:ident/kubeconfig',
    {
      schema: {
        tags: ['clusters'],
        summary: 'A kubeconfig that signs in with the caller\'s Keystone identity (an extension)',
        description:
          'The user is client-go\'s exec plugin client-keystone-auth (kubernetes/cloud-provider-openstack), presenting the caller\'s Keystone token to the cluster\'s ' +
          'k8s-keystone-auth; what it may do is the keystone-auth policy\'s (label keystone_auth_policy). No secret in it; readers may have it. ' +
          'A cluster without k8s-keystone-auth (keystone_auth_enabled=false) is a 409.',
        params: Type.Object({ ident: Ident }),
        response: { 200: Type.Ref(IdentityKubeconfig), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { cluster, kubeconfig } = await identityKubeconfig(deps, request.auth, request.params.ident);
      return { cluster_uuid: cluster.uuid, kind: 'identity' as const, expires_at: null, kubeconfig };
    },
  );
};
