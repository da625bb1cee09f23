// Fault injection: rules by operation with a rate drawn from the seeded clock (so a run replays),
// the four actions (error, drop, lost, slow) over real sockets, the admin API that adds, lists
// and clears rules at run time, and rules given as configuration (CLOUDSIM_FAULTS).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startCloudSims, type CloudSims } from '../../../cloudsim/cloud.js';
import { SeededRandom } from '../../../cloudsim/common/clock.js';
import { parseFaultConfig } from '../../../cloudsim/common/fault-config.js';
import { Faults } from '../../../cloudsim/common/faults.js';
import { BUILTIN_USERS, cloudOptionsFromEnv, SERVICE_USER } from '../../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../../cloudsim/keystone/index.js';
import { passwordToken, startKeystone } from '../../support/app.js';
import { call } from '../../support/http.js';

describe('rules', () => {
  test('a rate draws from the seeded stream: the same seed hits the same calls', () => {
    const hits = (seed: number) => {
      const f = new Faults(new SeededRandom(seed));
      f.add({ operation: 'POST /servers', rate: 0.3, status: 503 });
      return Array.from({ length: 40 }, () => (f.take('POST', '/v2.1/servers', 'POST /servers') ? 1 : 0)).join('');
    };
    assert.equal(hits(7), hits(7));
    assert.notEqual(hits(7), hits(8));
    const n = [...hits(7)].filter((c) => c === '1').length;
    assert.ok(n > 3 && n < 25, `about 30 % of 40 calls, got ${n}`);
  });

  test('operations match with or without the method; times and hits are counted; the oldest rule wins', () => {
    const f = new Faults();
    f.add({ operation: 'DELETE /lbaas/loadbalancers/:id', action: 'drop', times: 1 });
    f.add({ operation: '/lbaas/loadbalancers/:id', status: 409 });
    assert.equal(f.take('GET', '/v2/lbaas/loadbalancers/x', 'GET /lbaas/loadbalancers'), undefined);
    assert.equal(f.take('DELETE', '/v2/lbaas/loadbalancers/x', 'DELETE /lbaas/loadbalancers/:id')?.action, 'drop');
    assert.deepEqual(f.take('DELETE', '/v2/lbaas/loadbalancers/x', 'DELETE /lbaas/loadbalancers/:id'), { action: 'error', status: 409 });
    assert.deepEqual(f.list().map((r) => [r.operation, r.hits]), [['/lbaas/loadbalancers/:id', 1]]);
  });

  test('configuration: services and rules are checked', () => {
    const cfg = parseFaultConfig('nova:\n  - { operation: POST /servers, rate: 0.5, status: 503 }\nneutron:\n  - { pathPattern: "^/v2.0/ports", action: lost }\n', ['nova', 'neutron']);
    assert.equal(cfg.nova![0]!.status, 503);
    assert.ok(cfg.neutron![0]!.path instanceof RegExp);
    assert.throws(() => parseFaultConfig('{"swift": []}', ['nova']), /unknown service swift/);
    assert.throws(() => parseFaultConfig('{"nova": [{"rate": 2, "status": 500}]}', ['nova']), /rate must be in/);
    assert.throws(() => parseFaultConfig('{"nova": [{"action": "error"}]}', ['nova']), /needs a status/);
    assert.throws(() => parseFaultConfig('{"nova": [{"colour": "red"}]}', ['nova']), /nova\/0/);
    const env = cloudOptionsFromEnv({ CLOUDSIM_FAULTS: '{"designate": [{"operation": "POST /zones", "status": 500}]}' });
    assert.deepEqual(env.faults, { designate: [{ operation: 'POST /zones', status: 500 }] });
  });
});

describe('over HTTP', () => {
  let keystone: KeystoneSim;
  let sims: CloudSims;
  let demo: string;
  let admin: string;
  let net: string;
  before(async () => {
    keystone = await startKeystone();
    sims = await startCloudSims({
      keystone,
      authUrl: `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`,
      credentials: { username: SERVICE_USER.username, password: SERVICE_USER.password, projectName: SERVICE_USER.project },
      host: '127.0.0.1',
      clock: { timeScale: 0.001, seed: 1 },
      faults: { glance: [{ operation: 'GET /images', status: 503, times: 1 }] },
    });
    demo = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
    admin = await passwordToken(keystone, 'admin', BUILTIN_USERS.admin.password, 'admin');
    net = `${sims.urls.network}/v2.0/networks`;
  });
  after(async () => {
    await sims.close();
    await keystone.app.close();
  });
  const networksNamed = (name: string) => [...sims.neutron.state.networks.values()].filter((n) => n.name === name);

  test('configured rules are active from the start', async () => {
    const r = await call('GET', `${sims.urls.image}/v2/images`, demo);
    assert.equal(r.status, 503);
    assert.equal((await call('GET', `${sims.urls.image}/v2/images`, demo)).status, 200, 'times: 1');
  });

  test('error: the service\'s own envelope, nothing applied', async () => {
    sims.faults.neutron.add({ operation: 'POST /networks', status: 409, message: 'busy', times: 1 });
    const r = await call('POST', net, demo, { network: { name: 'err-net' } });
    assert.deepEqual([r.status, r.body.NeutronError.message], [409, 'busy']);
    assert.equal(networksNamed('err-net').length, 0);
  });

  test('drop: the connection closes without an answer, nothing applied', async () => {
    sims.faults.neutron.add({ operation: 'POST /networks', action: 'drop', times: 1 });
    await assert.rejects(call('POST', net, demo, { network: { name: 'drop-net' } }), /fetch failed/);
    assert.equal(networksNamed('drop-net').length, 0);
  });

  test('lost: the network is created but the answer never comes; a lookup finds it', async () => {
    sims.faults.neutron.add({ operation: 'POST /networks', action: 'lost', times: 1 });
    await assert.rejects(call('POST', net, demo, { network: { name: 'lost-net' } }), /fetch failed/);
    const found = await call('GET', `${net}?name=lost-net`, demo);
    assert.equal(found.body.networks.length, 1);
  });

  test('slow: the answer comes after the delay', async () => {
    sims.faults.neutron.add({ operation: 'GET /networks', delayMs: 150, times: 1 });
    const t0 = Date.now();
    assert.equal((await call('GET', net, demo)).status, 200);
    assert.ok(Date.now() - t0 >= 140);
  });

  test('admin API: add, list, remove and clear rules per service; admins only', async () => {
    const base = `${sims.urls['cloudsim-admin']}/faults`;
    const added = await call('POST', `${base}/designate`, admin, { fault: { operation: 'POST /zones', rate: 1, status: 503 } });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.match(added.body.fault.id, /^fault-\d+$/);
    const zone = await call('POST', `${sims.urls.dns}/v2/zones`, demo, { name: 'f.example.org.', email: 'a@b.org' });
    assert.deepEqual([zone.status, zone.body.type], [503, 'service_unavailable']);
    const listed = await call('GET', base, admin);
    assert.deepEqual(listed.body.faults.designate.map((f: { hits: number }) => f.hits), [1]);
    assert.equal((await call('DELETE', `${base}/designate/${added.body.fault.id}`, admin)).status, 204);
    assert.equal((await call('POST', `${sims.urls.dns}/v2/zones`, demo, { name: 'f.example.org.', email: 'a@b.org' })).status, 202);
    await call('POST', `${base}/nova`, admin, { fault: { status: 500 } });
    assert.equal((await call('DELETE', `${base}/nova`, admin)).status, 204);
    assert.deepEqual((await call('GET', `${base}/nova`, admin)).body, { faults: [] });
    assert.equal((await call('POST', `${base}/nova`, admin, { fault: { rate: 3, status: 500 } })).status, 400);
    assert.equal((await call('POST', `${base}/swift`, admin, { fault: { status: 500 } })).status, 404);
    const refused = await call('GET', base, demo);
    assert.deepEqual([refused.status, refused.body.error.code], [403, 403]);
    assert.equal((await call('GET', base, undefined)).status, 401);
  });
});
