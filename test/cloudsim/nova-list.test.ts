// Listing servers (spec openstack-apis §2.5), the tags sub-resource (§2.6) and server metadata:
// the unanchored name regex, status and tag filters, limit/marker with the full-page `next` link,
// changes-since showing deleted servers, unknown parameters (dropped, 400 from 2.75), and the 409
// of tag and metadata changes while a server builds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DELAYS } from '../../cloudsim/common/clock.js';
import { startNovaHarness, type NovaHarness } from './nova-harness.js';

let h: NovaHarness;
const ids: Record<string, string> = {};

before(async () => {
  h = await startNovaHarness();
  for (const [name, tags] of [['node-1', ['cluster=a', 'role=master']], ['node-10', ['cluster=a', 'role=worker']], ['xnode-1', ['cluster=b']]] as const) {
    ids[name] = await h.boot('other', { name, tags: [...tags], networks: 'none' }, '2.52');
  }
  for (const id of Object.values(ids)) await h.until(id, 'ACTIVE', 'other');
});
after(async () => h.close());

const names = async (query: string, version = '2.26') =>
  ((await h.ok(200, 'GET', `/servers${query}`, 'other', undefined, version)).servers as { name: string }[]).map((s) => s.name).sort();

describe('list filters', () => {
  test('the non-detail list has id, name and links only', async () => {
    const r = await h.ok(200, 'GET', '/servers', 'other');
    assert.deepEqual(Object.keys(r.servers[0]).sort(), ['id', 'links', 'name']);
    assert.equal(r.servers_links, undefined);
  });

  test('name is an unanchored, case-insensitive regex', async () => {
    assert.deepEqual(await names('?name=node-1'), ['node-1', 'node-10', 'xnode-1']);
    assert.deepEqual(await names('?name=%5Enode-1%24'), ['node-1']);
    assert.deepEqual(await names('?name=NODE-10'), ['node-10']);
  });

  test('tags (all), tags-any, not-tags, not-tags-any', async () => {
    assert.deepEqual(await names('?tags=cluster%3Da,role%3Dmaster'), ['node-1']);
    assert.deepEqual(await names('?tags-any=role%3Dmaster,cluster%3Db'), ['node-1', 'xnode-1']);
    assert.deepEqual(await names('?not-tags=cluster%3Da,role%3Dmaster'), ['node-10', 'xnode-1']);
    assert.deepEqual(await names('?not-tags-any=cluster%3Da'), ['xnode-1']);
    assert.deepEqual(await names('?tags=cluster%3Db', '2.25'), ['node-1', 'node-10', 'xnode-1'], 'below 2.26 the filter is dropped');
  });

  test('status: repeatable; unknown is empty before 2.38, 400 from then on', async () => {
    assert.equal((await names('?status=ACTIVE&status=ERROR')).length, 3);
    assert.deepEqual(await names('?status=BUILD'), []);
    assert.deepEqual(await names('?status=BOGUS', '2.37'), []);
    assert.equal(await h.fails(400, 'badRequest', 'GET', '/servers?status=BOGUS', 'other', undefined, '2.38'), 'Invalid status value');
  });

  test('unknown parameters: dropped before 2.75, 400 from 2.75', async () => {
    assert.equal((await names('?foo=bar', '2.74')).length, 3);
    const msg = await h.fails(400, 'badRequest', 'GET', '/servers?foo=bar', 'other', undefined, '2.75');
    assert.equal(msg, "Invalid input for query parameters foo. Value: bar. Additional properties are not allowed ('foo' was unexpected)");
  });

  test('limit/marker: a full page links to the next one, even when nothing follows', async () => {
    const first = await h.ok(200, 'GET', '/servers?limit=2', 'other');
    assert.equal(first.servers.length, 2);
    const next = new URL(first.servers_links[0].href);
    assert.equal(next.pathname, '/v2.1/servers');
    assert.equal(next.searchParams.get('marker'), first.servers[1].id);
    const second = await h.ok(200, 'GET', `/servers${next.search}`, 'other');
    assert.equal(second.servers.length, 1);
    assert.equal(second.servers_links, undefined);
    const all = await h.ok(200, 'GET', '/servers/detail?limit=3', 'other');
    assert.match(all.servers_links[0].href, /\/v2\.1\/servers\/detail\?/);
    assert.equal(await h.fails(400, 'badRequest', 'GET', '/servers?marker=nope', 'other'), 'marker [nope] not found');
    // Newest first by default.
    assert.deepEqual(all.servers.map((s: { id: string }) => s.id), [ids['xnode-1'], ids['node-10'], ids['node-1']]);
  });

  test('changes-since includes deleted servers; a bad timestamp is a 400', async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    const id = await h.boot('other', { name: 'ephemeral', networks: 'none' }, '2.37');
    await h.ok(204, 'DELETE', `/servers/${id}`, 'other');
    await h.gone(id, 'other');
    assert.ok(!(await names('')).includes('ephemeral'));
    const r = await h.ok(200, 'GET', `/servers/detail?changes-since=${encodeURIComponent(since)}`, 'other');
    const gone = r.servers.find((s: { id: string }) => s.id === id);
    assert.equal(gone.status, 'DELETED');
    assert.match(gone['OS-SRV-USG:terminated_at'], /^\d{4}-/);
    const msg = await h.fails(400, 'badRequest', 'GET', '/servers?changes-since=yesterday', 'other');
    assert.match(msg, /changes-since.*is not a 'date-time'/);
  });
});

describe('tags sub-resource', () => {
  test('list, add (201 + Location, then 204), check, remove, replace, clear', async () => {
    const id = ids['node-1']!;
    const base = `/servers/${id}/tags`;
    assert.deepEqual((await h.ok(200, 'GET', base, 'other', undefined, '2.26')).tags, ['cluster=a', 'role=master']);
    const added = await h.call('PUT', `${base}/new`, 'other', undefined, '2.26');
    assert.equal(added.status, 201);
    assert.equal(added.headers.get('location'), `${h.sims.urls.compute}/servers/${id}/tags/new`);
    assert.equal((await h.call('PUT', `${base}/new`, 'other', undefined, '2.26')).status, 204);
    assert.equal((await h.call('GET', `${base}/new`, 'other', undefined, '2.26')).status, 204);
    await h.ok(204, 'DELETE', `${base}/new`, 'other', undefined, '2.26');
    await h.fails(404, 'itemNotFound', 'GET', `${base}/new`, 'other', undefined, '2.26');
    await h.fails(404, 'itemNotFound', 'DELETE', `${base}/new`, 'other', undefined, '2.26');
    assert.deepEqual((await h.ok(200, 'PUT', base, 'other', { tags: ['x', 'y'] }, '2.26')).tags, ['x', 'y']);
    assert.deepEqual(await names('?tags=x'), ['node-1'], 'listed by its new tags');
    assert.deepEqual(await names('?tags=cluster%3Da'), ['node-10'], 'not by its old ones');
    await h.ok(204, 'DELETE', base, 'other', undefined, '2.26');
    assert.deepEqual(await names('?tags-any=x,y'), []);
    assert.deepEqual((await h.ok(200, 'GET', base, 'other', undefined, '2.26')).tags, []);
    await h.ok(200, 'PUT', base, 'other', { tags: ['cluster=a', 'role=master'] }, '2.26');
  });

  test('404 below 2.26; bad tags 400; 51 tags 400', async () => {
    const base = `/servers/${ids['node-10']}/tags`;
    await h.fails(404, 'itemNotFound', 'GET', base, 'other', undefined, '2.25');
    const bad = await h.fails(400, 'badRequest', 'PUT', `${base}/a,b`, 'other', undefined, '2.26');
    assert.match(bad, /^Tag 'a,b' is invalid\. It must be a non empty string without characters '\/' and ','\./);
    const many = Array.from({ length: 51 }, (_, i) => `t${i}`);
    const msg = await h.fails(400, 'badRequest', 'PUT', base, 'other', { tags: many }, '2.26');
    assert.equal(msg, 'The number of tags exceeded the per-server limit 50');
  });

  test('409 while the server builds (put tags in the create body instead)', async () => {
    h.sims.nova.state.clock.setDelay('nova.server.boot', { kind: 'fixed', ms: 1_000_000 });
    const id = await h.boot('other', { name: 'slow', networks: 'none' }, '2.37');
    h.sims.nova.state.clock.setDelay('nova.server.boot', DEFAULT_DELAYS['nova.server.boot']);
    const msg = await h.fails(409, 'conflictingRequest', 'PUT', `/servers/${id}/tags/late`, 'other', undefined, '2.26');
    assert.equal(msg, `Cannot 'update tag' instance ${id} while it is in vm_state building`);
    const meta = await h.fails(409, 'conflictingRequest', 'POST', `/servers/${id}/metadata`, 'other', { metadata: { a: 'b' } });
    assert.equal(meta, `Cannot 'update metadata' instance ${id} while it is in vm_state building`);
    await h.ok(204, 'DELETE', `/servers/${id}`, 'other');
  });
});

describe('metadata', () => {
  test('show, merge, replace, item get/put/delete', async () => {
    const base = `/servers/${ids['xnode-1']}/metadata`;
    assert.deepEqual((await h.ok(200, 'GET', base, 'other')).metadata, {});
    assert.deepEqual((await h.ok(200, 'POST', base, 'other', { metadata: { a: '1' } })).metadata, { a: '1' });
    assert.deepEqual((await h.ok(200, 'POST', base, 'other', { metadata: { b: '2' } })).metadata, { a: '1', b: '2' });
    assert.deepEqual((await h.ok(200, 'PUT', base, 'other', { metadata: { c: '3' } })).metadata, { c: '3' });
    assert.deepEqual((await h.ok(200, 'PUT', `${base}/d`, 'other', { meta: { d: '4' } })).meta, { d: '4' });
    assert.deepEqual((await h.ok(200, 'GET', `${base}/d`, 'other')).meta, { d: '4' });
    assert.equal(await h.fails(400, 'badRequest', 'PUT', `${base}/e`, 'other', { meta: { f: '5' } }), 'Request body and URI mismatch');
    await h.ok(204, 'DELETE', `${base}/d`, 'other');
    assert.equal(await h.fails(404, 'itemNotFound', 'GET', `${base}/d`, 'other'), 'Metadata item was not found');
  });
});
