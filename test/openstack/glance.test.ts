// The Glance client (src/openstack/glance.ts) against the simulator over loopback: images by id, filters,
// private images, pagination followed to the end, and every failure mapped into OpenStackError.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { contextFromToken, type CatalogEntry } from '../../src/keystone/context.js';
import { GlanceClient } from '../../src/openstack/glance.js';
import { OpenStackError, sessionFor, type CallRecord, type Session } from '../../src/openstack/http.js';
import { startKeystone, startSims, type User } from '../support/app.js';
import { failure } from '../support/openstack.js';

let keystone: KeystoneSim;
let sims: CloudSims;
before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone);
});
after(async () => {
  await sims.close();
  await keystone.app.close();
});

/** A project-scoped token of a built-in user and the catalog Keystone returns with it. */
async function login(user: User): Promise<{ token: string; catalog: CatalogEntry[] }> {
  const res = await keystone.app.inject({
    method: 'POST',
    url: '/v3/auth/tokens',
    payload: {
      auth: {
        identity: { methods: ['password'], password: { user: { name: user, domain: { id: 'default' }, password: BUILTIN_USERS[user].password } } },
        scope: { project: { name: BUILTIN_USERS[user].project, domain: { id: 'default' } } },
      },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { token: res.headers['x-subject-token'] as string, catalog: contextFromToken(res.json()).catalog };
}

/** A session of `type` for `user`, recording every call it makes. */
async function session(user: User, type: string, calls: CallRecord[] = []): Promise<Session> {
  const { token, catalog } = await login(user);
  return sessionFor(catalog, token, type, { timeoutMs: 5000, log: (c) => calls.push(c) });
}


describe('glance', () => {
  test('image by id: unwrapped, custom properties flat, unset fields omitted', async () => {
    const fcos = sims.glance.state.byName('fedora-coreos-43')!;
    const image = await new GlanceClient(await session('demo', 'image')).getImage(fcos.id);
    assert.equal(image.id, fcos.id);
    assert.equal(image.name, 'fedora-coreos-43');
    assert.equal(image.os_distro, 'fedora-coreos');
    assert.equal(image.status, 'active');
    assert.equal(image.visibility, 'public');
    assert.equal(image.self, `/v2/images/${fcos.id}`);
    assert.ok(!Object.values(image).includes(null));
    assert.equal((await new GlanceClient(await session('demo', 'image')).getImage(sims.glance.state.byName('cirros')!.id)).os_distro, undefined);
  });

  test('an unknown image is a 404 with the request id of the answer', async () => {
    const e = await failure(async () => new GlanceClient(await session('demo', 'image')).getImage('5f2b4b3e-0000-4000-8000-000000000000'));
    assert.deepEqual([e.status, e.kind, e.service, e.retryable], [404, 'not_found', 'image', false]);
    assert.match(e.requestId ?? '', /^req-[0-9a-f-]{36}$/);
    assert.match((e.body as { message: string }).message, /No image found with ID 5f2b4b3e/);
  });

  test('private images: the owner sees them, other projects get 404, admin sees all', async () => {
    const priv = sims.glance.state.byName('demo-private-coreos')!;
    assert.equal((await new GlanceClient(await session('demo', 'image')).getImage(priv.id)).owner, keystone.state.projectId('demo'));
    assert.equal((await new GlanceClient(await session('admin', 'image')).getImage(priv.id)).id, priv.id);
    const other = new GlanceClient(await session('other', 'image'));
    assert.equal((await failure(() => other.getImage(priv.id))).status, 404);
    assert.deepEqual(await other.listImages({ name: 'demo-private-coreos' }), []);
    const demo = new GlanceClient(await session('demo', 'image'));
    assert.deepEqual((await demo.listImages({ name: 'demo-private-coreos' })).map((i) => i.id), [priv.id]);
  });

  test('name is an exact filter; custom properties filter too', async () => {
    const glance = new GlanceClient(await session('demo', 'image'));
    assert.deepEqual((await glance.listImages({ name: 'cirros' })).map((i) => i.name), ['cirros']);
    assert.deepEqual(await glance.listImages({ name: 'cirr' }), []);
    assert.deepEqual((await glance.listImages({ properties: { os_distro: 'ubuntu' } })).map((i) => i.name).sort(), ['ubuntu-24.04', 'ubuntu-2404-kube-v1.35.5', 'ubuntu-2404-kube-v1.36.1']);
    assert.deepEqual((await glance.listImages({ properties: { kube_version: 'v1.35.5' } })).map((i) => i.name), ['ubuntu-2404-kube-v1.35.5']);
  });

  test('lists follow `next` to the end: a full last page links to an empty one', async () => {
    const extra = [1, 2, 3].map((n) => sims.glance.state.addImage({ name: `paged-${n}`, properties: { purpose: 'paging' } }));
    try {
      const calls: CallRecord[] = [];
      const glance = new GlanceClient(await session('demo', 'image', calls));
      const paged = await glance.listImages({ limit: 1, properties: { purpose: 'paging' } });
      assert.deepEqual(paged.map((i) => i.name), ['paged-3', 'paged-2', 'paged-1'], 'newest first');
      assert.equal(calls.length, 4, 'three full pages, then the empty one');
      const everything = await glance.listImages({ limit: 2 });
      assert.equal(new Set(everything.map((i) => i.id)).size, everything.length);
      assert.equal(everything.length, (await glance.listImages()).length);
    } finally {
      for (const i of extra) sims.glance.state.removeImage(i.id);
    }
  });

  test('a 503 from the service, a slow service, a revoked token', async () => {
    const glance = new GlanceClient(await session('demo', 'image'));
    sims.glance.state.faults.inject({ status: 503, times: 1 });
    const down = await failure(() => glance.listImages({ name: 'cirros' }));
    assert.deepEqual([down.status, down.kind, down.retryable], [503, 'server', true]);
    assert.equal((await glance.listImages({ name: 'cirros' })).length, 1, 'the fault hit once');

    const slow = new GlanceClient({ ...(await session('demo', 'image')), timeoutMs: 100 });
    const clear = sims.glance.state.faults.inject({ delayMs: 1000, path: '/v2/images' });
    try {
      const e = await failure(() => slow.listImages());
      assert.deepEqual([e.status, e.kind], [0, 'timeout']);
    } finally {
      clear();
    }

    const { token, catalog } = await login('demo');
    const revoked = new GlanceClient(sessionFor(catalog, token, 'image', { timeoutMs: 5000 }));
    assert.equal((await revoked.listImages({ name: 'cirros' })).length, 1);
    const del = await keystone.app.inject({ method: 'DELETE', url: '/v3/auth/tokens', headers: { 'x-auth-token': token, 'x-subject-token': token } });
    assert.equal(del.statusCode, 204);
    const e = await failure(() => revoked.listImages({ name: 'cirros' }));
    assert.deepEqual([e.status, e.kind], [401, 'unauthorized']);
    assert.deepEqual(e.body, { error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } });
  });
});
