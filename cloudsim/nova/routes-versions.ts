// Nova's unauthenticated version documents (spec openstack-apis §7.6): GET / lists v2.0 and v2.1,
// GET /v2.1 describes v2.1 with its microversion range, GET /v2 the legacy v2.0.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hostUrl } from '../common/service-app.js';
import { MAX_VERSION, MIN_VERSION } from './microversion.js';

const v20 = (base: string) => ({
  id: 'v2.0',
  status: 'SUPPORTED',
  version: '',
  min_version: '',
  updated: '2011-01-21T11:33:21Z',
  links: [{ rel: 'self', href: `${base}/v2/` }],
});

const v21 = (base: string) => ({
  id: 'v2.1',
  status: 'CURRENT',
  version: MAX_VERSION,
  min_version: MIN_VERSION,
  updated: '2013-07-23T11:33:21Z',
  links: [{ rel: 'self', href: `${base}/v2.1/` }],
});

const describedBy = { rel: 'describedby', type: 'text/html', href: 'http://docs.openstack.org/' };

const mediaTypes = [{ base: 'application/json', type: 'application/vnd.openstack.compute+json;version=2.1' }];

export function registerVersionRoutes(app: FastifyInstance): void {
  app.get('/', async (request: FastifyRequest) => ({ versions: [v20(hostUrl(request)), v21(hostUrl(request))] }));
  // The legacy v2 endpoint's own document (the simulator serves only v2.1's API).
  app.get('/v2', async (request: FastifyRequest) => {
    const doc = v20(hostUrl(request));
    return { version: { ...doc, links: [...doc.links, describedBy], 'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.compute+json;version=2' }] } };
  });
  app.get('/v2.1', async (request: FastifyRequest) => {
    const base = hostUrl(request);
    const doc = v21(base);
    return {
      version: {
        ...doc,
        links: [...doc.links, describedBy],
        'media-types': mediaTypes,
      },
    };
  });
}
