// Cinder's version documents in Zed's shape: GET / (300, no token) and GET /v3/ (200, behind the token)
// list v3.0 with its microversion range, a describedby link before its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_VERSION } from '../../../cloudsim/cinder/routes.js';
import { getJson, withSims } from '../support-sims.js';

const t = withSims();
const root = () => new URL(t.sims.urls['block-storage'].replace('%(project_id)s', 'x')).origin;

test('GET / is 300 with v3.0 CURRENT, its range, links and media type', async () => {
  const r = await getJson(`${root()}/`);
  assert.equal(r.status, 300);
  assert.deepEqual(r.body.versions, [
    {
      id: 'v3.0',
      status: 'CURRENT',
      version: MAX_VERSION,
      min_version: '3.0',
      updated: r.body.versions[0].updated,
      links: [
        { rel: 'describedby', type: 'text/html', href: 'https://docs.openstack.org/' },
        { rel: 'self', href: `${root()}/v3/` },
      ],
      'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.volume+json;version=3' }],
    },
  ]);
  assert.match(r.body.versions[0].updated, /^\d{4}-\d\d-\d\dT00:00:00Z$/);
});

test('GET /v3/ answers the same list (200) with a token, 401 without', async () => {
  const withToken = await getJson(`${root()}/v3/`, t.demo);
  assert.equal(withToken.status, 200);
  assert.deepEqual(withToken.body, (await getJson(`${root()}/`)).body);
  assert.equal((await getJson(`${root()}/v3`)).status, 401);
});
