// Nova's version documents in Zed's shape: GET / (v2.0 and v2.1 with the microversion range), GET /v2.1 and
// GET /v2 (one version each, with describedby and media types), all without a token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_VERSION, MIN_VERSION } from '../../../cloudsim/nova/microversion.js';
import { getJson, withSims } from '../support-sims.js';

const t = withSims();
const root = () => new URL(t.sims.urls.compute).origin;

test('GET / lists v2.0 (no microversions) and v2.1 CURRENT with its range', async () => {
  const r = await getJson(`${root()}/`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.versions, [
    { id: 'v2.0', status: 'SUPPORTED', version: '', min_version: '', updated: '2011-01-21T11:33:21Z', links: [{ rel: 'self', href: `${root()}/v2/` }] },
    { id: 'v2.1', status: 'CURRENT', version: MAX_VERSION, min_version: MIN_VERSION, updated: '2013-07-23T11:33:21Z', links: [{ rel: 'self', href: `${root()}/v2.1/` }] },
  ]);
  assert.equal(MIN_VERSION, '2.1');
});

test('GET /v2.1 and GET /v2: the version, its self and describedby links and media type', async () => {
  const v21 = (await getJson(`${root()}/v2.1`)).body.version;
  assert.deepEqual([v21.id, v21.version, v21.min_version], ['v2.1', MAX_VERSION, '2.1']);
  assert.deepEqual(v21.links, [
    { rel: 'self', href: `${root()}/v2.1/` },
    { rel: 'describedby', type: 'text/html', href: 'http://docs.openstack.org/' },
  ]);
  assert.deepEqual(v21['media-types'], [{ base: 'application/json', type: 'application/vnd.openstack.compute+json;version=2.1' }]);
  const v2 = (await getJson(`${root()}/v2`)).body.version;
  assert.deepEqual([v2.id, v2.status, v2.version, v2['media-types'][0].type], ['v2.0', 'SUPPORTED', '', 'application/vnd.openstack.compute+json;version=2']);
});
