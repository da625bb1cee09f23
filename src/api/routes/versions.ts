// The unauthenticated version documents (spec §1.5), linking only what answers (test/api/version-links.test.ts):
// no `federations` (Magnum's experimental federation API never had a backend: its conductor refuses every
// operation, nothing is stored, the API reference and the client leave it out), and `describedby` names this
// service's own API reference rather than Magnum's retired developer page.
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { format, MAX_VERSION, MIN_VERSION } from '../../domain/microversion.js';
import { hostUrl } from '../views.js';

const COLLECTIONS = ['baymodels', 'bays', 'clustertemplates', 'clusters', 'quotas', 'certificates', 'mservices', 'stats'];

const Href = Type.Array(Type.Object({ href: Type.String(), rel: Type.String(), type: Type.Optional(Type.String()) }));

export const versionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/',
    {
      config: { public: true },
      schema: {
        tags: ['versions'],
        summary: 'API versions',
        response: {
          200: Type.Object({
            name: Type.String(),
            description: Type.String(),
            versions: Type.Array(Type.Object({ id: Type.String(), status: Type.String(), min_version: Type.String(), max_version: Type.String(), links: Href })),
          }),
        },
      },
    },
    async (request) => ({
      name: 'OpenStack Magnum API',
      description: 'Magnum is an OpenStack project which aims to provide container cluster management.',
      versions: [
        { id: 'v1', status: 'CURRENT', min_version: format(MIN_VERSION), max_version: format(MAX_VERSION), links: [{ href: `${hostUrl(request)}/v1/`, rel: 'self' }] },
      ],
    }),
  );

  app.get(
    '/v1',
    {
      config: { public: true },
      schema: {
        tags: ['versions'],
        summary: 'The v1 document',
        description:
          "Links each collection of v1 (self and bookmark), the node groups of a cluster (templated) and this API's reference (describedby, /v1/docs). Magnum's experimental `federations` is not linked: it never had a backend and this service does not serve it.",
        response: { 200: Type.Object({ id: Type.String(), media_types: Type.Array(Type.Object({ base: Type.String(), type: Type.String() })), links: Href }, { additionalProperties: Href }) },
      },
    },
    async (request) => {
      const host = hostUrl(request);
      const links: Record<string, { href: string; rel: string }[]> = {};
      for (const c of COLLECTIONS) {
        links[c] = [
          { href: `${host}/v1/${c}/`, rel: 'self' },
          { href: `${host}/${c}/`, rel: 'bookmark' },
        ];
      }
      links.nodegroups = [
        { href: `${host}/v1/clusters/{cluster_id}/nodegroups`, rel: 'self' },
        { href: `${host}/clusters/{cluster_id}/nodegroups`, rel: 'bookmark' },
      ];
      return {
        id: 'v1',
        media_types: [{ base: 'application/json', type: 'application/vnd.openstack.magnum.v1+json' }],
        links: [
          { href: `${host}/v1/`, rel: 'self' },
          { href: `${host}/v1/docs`, rel: 'describedby', type: 'text/html' },
        ],
        ...links,
      };
    },
  );
};

/** Paths Magnum routes as if prefixed with /v1 (any first segment other than v1). */
export function rewriteToV1(url: string): string {
  const first = url.split(/[/?]/)[1] ?? '';
  return COLLECTIONS.includes(first) ? `/v1${url}` : url;
}
