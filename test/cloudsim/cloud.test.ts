// The Glance, Nova and Neutron simulators at the HTTP level: version documents, the middleware's
// 401, project scoping, each service's error shape, request ids, Nova microversions and the
// pagination links of each service (spec openstack-apis §7.1, §7.2, §7.6).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone, startSims } from '../support/app.js';
import { assertFreshIndexes } from './fresh-indexes.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let demo: string;
before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone);
  demo = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
});
after(async () => {
  assertFreshIndexes(sims);
  await sims.close();
  await keystone.app.close();
});

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* text */
  }
  // JSON of many shapes: the asserts check it.
  return { status: res.status, headers: res.headers, body: body as any };
}
const as = (token: string, extra: Record<string, string> = {}) => ({ 'x-auth-token': token, ...extra });
const root = (url: string) => new URL(url).origin;

describe('version documents (no token)', () => {
  test('Glance lists v2.x with one CURRENT (GET / is 300)', async () => {
    const r = await get(`${sims.urls.image}/`);
    assert.equal(r.status, 300);
    assert.deepEqual(r.body.versions[0], { id: 'v2.16', status: 'CURRENT', links: [{ rel: 'self', href: `${sims.urls.image}/v2/` }] });
    assert.equal((await get(`${sims.urls.image}/versions`)).status, 200);
  });

  test('Nova lists v2.0 and v2.1 with its microversion range', async () => {
    const r = await get(`${root(sims.urls.compute)}/`);
    assert.equal(r.status, 200);
    const v21 = r.body.versions.find((v: { id: string }) => v.id === 'v2.1');
    assert.deepEqual([v21.status, v21.min_version, v21.version], ['CURRENT', '2.1', '2.96']);
    const one = await get(`${sims.urls.compute}/`);
    assert.equal(one.body.version.id, 'v2.1');
  });

  test('Neutron lists v2.0', async () => {
    const r = await get(`${sims.urls.network}/`);
    assert.deepEqual(r.body.versions, [{ id: 'v2.0', status: 'CURRENT', links: [{ rel: 'self', href: `${sims.urls.network}/v2.0/` }] }]);
  });
});

describe('catalog', () => {
  test('Cinder is in the catalog as block-storage and, as devstack registers it, volumev3 (Horizon and cinderclient look for it)', async () => {
    const types = keystone.state.catalog.services.filter((x) => x.name === 'cinderv3').map((x) => x.type).sort();
    assert.deepEqual(types, ['block-storage', 'volumev3']);
    const urls = keystone.state.catalog.services.filter((x) => x.name === 'cinderv3').map((x) => x.endpoints.map((e) => e.url));
    assert.deepEqual(urls[0], urls[1]);
  });
});

describe('authentication and scoping', () => {
  test('no token or a bad one: the middleware 401 on every service', async () => {
    for (const url of [`${sims.urls.image}/v2/images`, `${sims.urls.compute}/flavors`, `${sims.urls.network}/v2.0/networks`]) {
      for (const headers of [{}, as('not-a-token')]) {
        const r = await get(url, headers);
        assert.equal(r.status, 401, url);
        assert.deepEqual(r.body, { error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } });
        assert.match(r.headers.get('www-authenticate') ?? '', /^Keystone uri="http:\/\/127\.0\.0\.1:\d+\/v3"$/);
      }
    }
  });

  test('a token not scoped to a project is refused in the service\'s own shape', async () => {
    const res = await keystone.app.inject({
      method: 'POST',
      url: '/v3/auth/tokens?nocatalog',
      payload: {
        auth: {
          identity: { methods: ['password'], password: { user: { name: 'admin', domain: { id: 'default' }, password: BUILTIN_USERS.admin.password } } },
          scope: { system: { all: true } },
        },
      },
    });
    const system = res.headers['x-subject-token'] as string;
    const nova = await get(`${sims.urls.compute}/flavors`, as(system));
    assert.equal(nova.status, 403);
    assert.equal(nova.body.forbidden.code, 403);
    const neutron = await get(`${sims.urls.network}/v2.0/networks`, as(system));
    assert.equal(neutron.body.NeutronError.type, 'HTTPForbidden');
    const glance = await get(`${sims.urls.image}/v2/images`, as(system));
    assert.equal(glance.body.code, '403 Forbidden');
  });
});

describe('token validation in process', () => {
  test('the services ask the emulator of their own process: every call sees Keystone as it is now, with no HTTP validation per call', async () => {
    const token = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
    const validations = keystone.state.validations;
    assert.equal((await get(`${sims.urls.compute}/flavors`, as(token))).status, 200);
    assert.equal((await get(`${sims.urls.network}/v2.0/networks`, as(token))).status, 200);
    assert.equal(keystone.state.validations, validations, 'no GET /v3/auth/tokens was made');
    const revoke = await keystone.app.inject({ method: 'DELETE', url: '/v3/auth/tokens', headers: { 'x-auth-token': token, 'x-subject-token': token } });
    assert.equal(revoke.statusCode, 204);
    assert.equal((await get(`${sims.urls.compute}/flavors`, as(token))).status, 401, 'a revoked token is refused on the next call');
  });

  test('the emulator stopped: the services answer keystonemiddleware\'s 503', async () => {
    const ks = await startKeystone();
    const cloud = await startSims(ks);
    try {
      const token = await passwordToken(ks, 'demo', BUILTIN_USERS.demo.password, 'demo');
      assert.equal((await get(`${cloud.urls.image}/v2/images`, as(token))).status, 200);
      await ks.app.close();
      const r = await get(`${cloud.urls.image}/v2/images`, as(token));
      assert.equal(r.status, 503);
      assert.equal(r.body.error.message, 'The Keystone service is temporarily unavailable.');
    } finally {
      await cloud.close();
    }
  });
});

describe('answers', () => {
  test('request ids on every answer; Nova also sends x-compute-request-id', async () => {
    const nova = await get(`${sims.urls.compute}/flavors/2`, as(demo));
    assert.match(nova.headers.get('x-openstack-request-id') ?? '', /^req-[0-9a-f-]{36}$/);
    assert.equal(nova.headers.get('x-compute-request-id'), nova.headers.get('x-openstack-request-id'));
    const glance = await get(`${sims.urls.image}/v2/images/nope`, as(demo));
    assert.match(glance.headers.get('x-openstack-request-id') ?? '', /^req-/);
  });

  test('Glance errors are webob pages: JSON when asked, text otherwise', async () => {
    const json = await get(`${sims.urls.image}/v2/images/nope`, as(demo));
    assert.deepEqual([json.status, json.body.code, json.body.title], [404, '404 Not Found', 'Not Found']);
    assert.match(json.body.message, /^No image found with ID nope/);
    const text = await get(`${sims.urls.image}/v2/images/nope`, as(demo, { accept: 'text/plain' }));
    assert.match(text.body as unknown as string, /^404 Not Found\n\nNo image found with ID nope/);
  });

  test('Nova microversions: echoed, shape by version, 400 for a bad one, 406 out of range', async () => {
    const v275 = await get(`${sims.urls.compute}/flavors/2`, as(demo, { 'openstack-api-version': 'compute 2.75' }));
    assert.equal(v275.headers.get('openstack-api-version'), 'compute 2.75');
    assert.equal(v275.headers.get('x-openstack-nova-api-version'), '2.75');
    assert.equal(v275.body.flavor.swap, 0);
    assert.equal(v275.body.flavor.description, null);
    assert.equal((await get(`${sims.urls.compute}/flavors/2`, as(demo))).body.flavor.swap, '');
    const bad = await get(`${sims.urls.compute}/flavors`, as(demo, { 'openstack-api-version': 'compute two' }));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.badRequest.code, 400);
    const high = await get(`${sims.urls.compute}/flavors`, as(demo, { 'x-openstack-nova-api-version': '2.999' }));
    assert.equal(high.status, 406);
    assert.match(high.body.computeFault.message, /Minimum is 2\.1 and maximum is 2\.96/);
    const unknownParam = await get(`${sims.urls.compute}/flavors?colour=blue`, as(demo, { 'openstack-api-version': 'compute latest' }));
    assert.equal(unknownParam.status, 400);
    assert.equal((await get(`${sims.urls.compute}/flavors?colour=blue`, as(demo))).status, 200, 'ignored before 2.75');
  });
});

describe('pagination links', () => {
  test('Glance: relative `next` on a full page (even the last), `first` without the marker', async () => {
    const page1 = await get(`${sims.urls.image}/v2/images?limit=2&sort_key=name&sort_dir=asc`, as(demo));
    assert.deepEqual(page1.body.images.map((i: { name: string }) => i.name), ['cirros', 'demo-private-coreos']);
    assert.equal(page1.body.first, '/v2/images?limit=2&sort_key=name&sort_dir=asc');
    assert.match(page1.body.next, /^\/v2\/images\?limit=2&sort_key=name&sort_dir=asc&marker=[0-9a-f-]{36}$/);
    const page2 = await get(`${sims.urls.image}${page1.body.next}`, as(demo));
    assert.deepEqual(page2.body.images.map((i: { name: string }) => i.name), ['fedora-coreos-43', 'ubuntu-24.04']);
    assert.ok(page2.body.next, 'a full page links on');
    const page3 = await get(`${sims.urls.image}${page2.body.next}`, as(demo));
    assert.deepEqual(page3.body.images.map((i: { name: string }) => i.name), ['ubuntu-2404-kube-v1.35.5', 'ubuntu-2404-kube-v1.36.1']);
    const page4 = await get(`${sims.urls.image}${page3.body.next}`, as(demo));
    assert.deepEqual([page4.body.images, page4.body.next], [[], undefined]);
  });

  test('Nova: absolute `flavors_links` next with sorted parameters, only on full pages', async () => {
    // Seeded flavors with disk >= 20 GiB, in flavorid order: 2, 3, 4, 5, d4.
    const r = await get(`${sims.urls.compute}/flavors/detail?limit=3&minDisk=20`, as(demo));
    assert.deepEqual(r.body.flavors_links, [{ rel: 'next', href: `${sims.urls.compute}/flavors/detail?limit=3&marker=4&minDisk=20` }]);
    const last = await get(r.body.flavors_links[0].href, as(demo));
    assert.deepEqual([last.body.flavors.length, last.body.flavors_links], [2, undefined]);
    const bad = await get(`${sims.urls.compute}/flavors?marker=nope`, as(demo));
    assert.deepEqual(bad.body, { badRequest: { code: 400, message: 'marker [nope] not found' } });
  });

  test('Neutron: `networks_links` next and previous with a limit, none without', async () => {
    const extra = sims.neutron.state.addNetwork({ name: 'zz', projectId: keystone.state.projectId('demo') });
    try {
      const ids = [...sims.neutron.state.networks.values()].map((n) => n.id).sort();
      assert.equal((await get(`${sims.urls.network}/v2.0/networks`, as(demo))).body.networks_links, undefined);
      const first = await get(`${sims.urls.network}/v2.0/networks?limit=1`, as(demo));
      assert.deepEqual(first.body.networks.map((n: { id: string }) => n.id), [ids[0]]);
      assert.deepEqual(first.body.networks_links, [
        { rel: 'next', href: `${sims.urls.network}/v2.0/networks?limit=1&marker=${ids[0]}` },
        { rel: 'previous', href: `${sims.urls.network}/v2.0/networks?limit=1&marker=${ids[0]}&page_reverse=True` },
      ]);
      const second = await get(first.body.networks_links[0].href, as(demo));
      assert.deepEqual(second.body.networks.map((n: { id: string }) => n.id), [ids[1]]);
      const back = await get(second.body.networks_links[1].href, as(demo));
      assert.deepEqual(back.body.networks.map((n: { id: string }) => n.id), [ids[0]]);
      const fields = await get(`${sims.urls.network}/v2.0/networks?fields=id&fields=name&name=zz`, as(demo));
      assert.deepEqual(fields.body.networks, [{ id: extra.id, name: 'zz' }]);
      const badBool = await get(`${sims.urls.network}/v2.0/networks?shared=maybe`, as(demo));
      assert.equal(badBool.body.NeutronError.type, 'InvalidInput');
    } finally {
      sims.neutron.state.removeNetwork(extra.id);
    }
  });
});
