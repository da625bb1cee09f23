// Cinder's version documents (spec openstack-apis §7.6), in Zed's shape: GET / (no token, 300) and
// GET /v3/ (behind the token, 200) list v3.0 with its microversion range, a describedby link and its own.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hostUrl } from '../common/service-app.js';
import { MAX_VERSION, MIN_VERSION } from './routes.js';

/** The `updated` of the newest microversion the simulator serves (Zed's, at 3.70, is 2022-08-31). */
const UPDATED = '2023-08-31T00:00:00Z';

const versions = (request: FastifyRequest) => ({
  versions: [
    {
      id: 'v3.0',
      status: 'CURRENT',
      version: MAX_VERSION,
      min_version: MIN_VERSION,
      updated: UPDATED,
      links: [
        { rel: 'describedby', type: 'text/html', href: 'https://docs.openstack.org/' },
        { rel: 'self', href: `${hostUrl(request)}/v3/` },
      ],
      'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.volume+json;version=3' }],
    },
  ],
});

export function registerCinderVersions(app: FastifyInstance): void {
  app.get('/', async (request, reply) => reply.code(300).send(versions(request)));
}

/** /v3 and /v3/ (Cinder redirects the one to the other): its versions controller, behind the token. */
export function registerCinderV3Root(scope: FastifyInstance): void {
  scope.get('/v3', async (request) => versions(request));
}
