// Octavia's version documents, as Zed's (octavia 11) root controller serves them: GET / (no token)
// lists v2.0 … v2.26, each with the date of its change, the last CURRENT; GET /v2 and /v2.0 (behind
// the token) answer the version's name.
import type { FastifyInstance } from 'fastify';
import { hostUrl } from '../common/service-app.js';

const DATES = [
  '2016-12-11T00:00:00Z', '2018-04-20T00:00:00Z', '2018-07-31T00:00:00Z', '2018-12-18T00:00:00Z', '2018-12-19T00:00:00Z',
  '2019-01-21T00:00:00Z', '2019-01-25T00:00:00Z', '2018-01-25T12:00:00Z', '2019-02-12T00:00:00Z', '2019-03-04T00:00:00Z',
  '2019-03-05T00:00:00Z', '2019-06-24T00:00:00Z', '2019-09-11T00:00:00Z', '2019-09-13T00:00:00Z', '2019-11-10T00:00:00Z',
  '2020-03-10T00:00:00Z', '2020-03-15T00:00:00Z', '2020-04-29T00:00:00Z', '2020-04-29T01:00:00Z', '2020-05-12T00:00:00Z',
  '2020-08-02T00:00:00Z', '2020-09-03T00:00:00Z', '2020-09-04T00:00:00Z', '2020-09-07T00:00:00Z', '2020-10-15T00:00:00Z',
  '2021-10-02T00:00:00Z', '2022-08-29T00:00:00Z',
];

export function registerOctaviaVersions(app: FastifyInstance): void {
  app.get('/', async (request) => ({
    versions: DATES.map((updated, i) => ({
      id: `v2.${i}`,
      status: i === DATES.length - 1 ? 'CURRENT' : 'SUPPORTED',
      updated,
      links: [{ href: `${hostUrl(request)}/v2`, rel: 'self' }],
    })),
  }));
}

export function registerOctaviaVersionNames(scope: FastifyInstance): void {
  for (const root of ['/v2', '/v2.0']) scope.get(root, async (_request, reply) => reply.type('application/json').send('"v2"'));
}
