// The Nova flavors client (src/openstack/nova.ts) against the simulator over loopback: flavors by id, the
// detail list with filters and pages followed to the end, private flavors, faults as OpenStackError.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { contextFromToken, type CatalogEntry } from '../../src/keystone/context.js';
import { OpenStackError, sessionFor, type CallRecord, type Session } from '../../src/openstack/http.js';
import { NovaClient } from '../../src/openstack/nova.js';
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


describe('nova', () => {
  test('flavor by id; a name is not an id (404 in Nova\'s fault shape)', async () => {
    const nova = new NovaClient(await session('demo', 'compute'));
    const medium = await nova.getFlavor('3');
    assert.deepEqual([medium.name, medium.vcpus, medium.ram, medium.disk, medium.swap], ['m1.medium', 2, 4096, 40, '']);
    assert.match(medium.links[0]!.href, /\/v2\.1\/flavors\/3$/);
    const e = await failure(() => nova.getFlavor('m1.medium'));
    assert.deepEqual([e.status, e.kind], [404, 'not_found']);
    assert.deepEqual(e.body, { itemNotFound: { code: 404, message: 'Flavor m1.medium could not be found.' } });
  });

  test('detail list in flavorid order, filters, pages followed to the end', async () => {
    const calls: CallRecord[] = [];
    const nova = new NovaClient(await session('demo', 'compute', calls));
    // The seed file's flavors (cloudsim/seed.yaml).
    const names = ['m1.tiny', 'm1.small', 'm1.medium', 'm1.large', 'm1.xlarge', 'ds512M', 'ds1G', 'ds2G', 'ds4G'];
    assert.deepEqual((await nova.listFlavors()).map((f) => f.name), names);
    assert.equal(calls.length, 1);
    assert.deepEqual((await nova.listFlavors({ minRam: 8192 })).map((f) => f.id), ['4', '5']);
    calls.length = 0;
    assert.deepEqual((await nova.listFlavors({ limit: 2 })).map((f) => f.id), ['1', '2', '3', '4', '5', 'c1', 'd1', 'd2', 'd4']);
    assert.equal(calls.length, 5, 'four full pages, then the short last one');
  });

  test('without a limit Nova pages at max_limit, and the client follows', async () => {
    sims.nova.state.maxLimit = 3;
    try {
      const calls: CallRecord[] = [];
      const nova = new NovaClient(await session('demo', 'compute', calls));
      assert.equal((await nova.listFlavors()).length, 9);
      assert.equal(calls.length, 4, 'three full pages, then the empty one');
    } finally {
      sims.nova.state.maxLimit = 1000;
    }
  });

  test('a private flavor is seen only by projects given access (and admins by id)', async () => {
    sims.nova.state.addFlavor({ id: 'gpu-1', name: 'g1.large', vcpus: 8, ram: 32768, disk: 100, isPublic: false, projects: [keystone.state.projectId('demo')] });
    try {
      const demo = new NovaClient(await session('demo', 'compute'));
      assert.ok((await demo.listFlavors()).some((f) => f.name === 'g1.large'));
      assert.equal((await demo.getFlavor('gpu-1'))['os-flavor-access:is_public'], false);
      const other = new NovaClient(await session('other', 'compute'));
      assert.ok(!(await other.listFlavors()).some((f) => f.name === 'g1.large'));
      assert.equal((await failure(() => other.getFlavor('gpu-1'))).status, 404);
      assert.equal((await new NovaClient(await session('admin', 'compute')).getFlavor('gpu-1')).name, 'g1.large');
    } finally {
      sims.nova.state.removeFlavor('gpu-1');
    }
  });

  test('a 503 fault maps to OpenStackError 503', async () => {
    const nova = new NovaClient(await session('demo', 'compute'));
    sims.nova.state.faults.inject({ status: 503, path: '/flavors', times: 1 });
    const e = await failure(() => nova.getFlavor('2'));
    assert.deepEqual([e.status, e.kind], [503, 'server']);
    assert.deepEqual(Object.keys(e.body as object), ['serviceUnavailable']);
  });
});
