// The simulated services beside Debian's real Keystone (not the emulator): they validate tokens there,
// take its project ids and register themselves in its catalog, so clients find them as usual.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCloudSims, type CloudSims } from '../../../cloudsim/cloud.js';
import { externalIdentity } from '../../../cloudsim/external-identity.js';
import { cliFor, type Cli } from '../../support/cli.js';
import { issueToken, keystoneCall, startRealKeystone, type KeystoneUser, type RealKeystone } from '../../support/real-keystone.js';

interface CatalogEntry {
  type: string;
  endpoints: { interface: string; region_id: string; url: string }[];
}

describe('cloud simulator with the real Keystone', () => {
  let ks: RealKeystone;
  let sims: CloudSims | undefined;

  const start = () => {
    const credentials = { username: ks.users.magnum.name, password: ks.users.magnum.password, projectName: ks.users.magnum.project };
    return startCloudSims({
      identity: externalIdentity({ authUrl: ks.authUrl, credentials }),
      authUrl: ks.authUrl,
      credentials,
      host: '127.0.0.1',
      clock: { timeScale: 0.001, seed: 1 },
    });
  };

  /** A password login with the catalog, as a client does it. */
  const login = async (who: KeystoneUser) => {
    const u = ks.users[who];
    const res = await keystoneCall(ks.authUrl, 'POST', '/auth/tokens', {
      body: {
        auth: {
          identity: { methods: ['password'], password: { user: { name: u.name, domain: { id: 'default' }, password: u.password } } },
          scope: { project: { name: u.project, domain: { id: 'default' } } },
        },
      },
    });
    assert.equal(res.status, 201);
    const catalog = res.body.token.catalog as CatalogEntry[];
    const url = (type: string) => {
      const found = catalog.filter((s) => s.type === type).flatMap((s) => s.endpoints.filter((e) => e.interface === 'public'));
      assert.equal(found.length, 1, `one public ${type} endpoint`);
      return found[0]!.url;
    };
    return { token: res.headers.get('x-subject-token')!, url };
  };

  const call = async (token: string, method: string, url: string, body?: unknown) => {
    const res = await fetch(url, {
      method,
      headers: { 'x-auth-token': token, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  before(async () => {
    ks = await startRealKeystone({ provider: 'fernet' });
    sims = await start();
  });

  after(async () => {
    await sims?.close();
    await ks?.stop();
  });

  it('registers every service in the real catalog, public and internal, in RegionOne', async () => {
    const admin = (await issueToken(ks, 'admin')).token;
    const endpoints = (await keystoneCall(ks.authUrl, 'GET', '/endpoints', { token: admin })).body.endpoints as {
      url: string;
      interface: string;
      region_id: string;
      service_id: string;
    }[];
    for (const url of Object.values(sims!.urls)) {
      const mine = endpoints.filter((e) => e.url === url);
      // One URL may serve two service types (Cinder as block-storage and, as devstack registers it, volumev3):
      // each of its services has it once public and once internal.
      const services = new Set(mine.map((e) => e.service_id));
      assert.ok(services.size > 0, url);
      for (const id of services) assert.deepEqual(mine.filter((e) => e.service_id === id).map((e) => e.interface).sort(), ['internal', 'public'], url);
      assert.ok(mine.every((e) => e.region_id === 'RegionOne'));
    }
  });

  it('serves a real-Keystone user: a network through the catalog, flavors from Nova, isolation and 401', async () => {
    const demo = await login('demo');
    const network = demo.url('network');
    assert.equal(network, sims!.urls.network);

    const created = await call(demo.token, 'POST', `${network}/v2.0/networks`, { network: { name: 'beside-real-keystone' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.network.project_id, ks.projectIds.demo);
    const id = created.body.network.id as string;
    assert.equal((await call(demo.token, 'GET', `${network}/v2.0/networks/${id}`)).status, 200);

    const flavors = await call(demo.token, 'GET', `${demo.url('compute')}/flavors`);
    assert.equal(flavors.status, 200);
    assert.ok(flavors.body.flavors.length > 0);

    const other = await login('other');
    assert.equal((await call(other.token, 'GET', `${network}/v2.0/networks/${id}`)).status, 404);

    const bad = await call('not-a-token', 'GET', `${network}/v2.0/networks`);
    assert.equal(bad.status, 401);
    assert.equal(bad.headers.get('www-authenticate'), `Keystone uri="${ks.authUrl}"`);
    assert.deepEqual(bad.body, { error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } });

    // The audit names the real project.
    assert.deepEqual(
      sims!.audit(ks.projectIds.demo).projects.map((p) => p.project_name),
      ['demo'],
    );
  });

  it('the openstack CLI finds the simulated Neutron through the real catalog', async () => {
    let cli: Cli | undefined;
    try {
      cli = await cliFor(ks.authUrl); // its 'demo' cloud has the same password as the harness's demo user
      const networks = await cli.json<{ Name: string }[]>('demo', ['network', 'list']);
      assert.ok(networks.some((n) => n.Name === 'beside-real-keystone'), JSON.stringify(networks));
    } finally {
      await cli?.close();
    }
  });

  it('replaces its own endpoints when it starts again on other ports, and only those', async () => {
    const before = sims!.urls.network;
    await sims!.close();
    sims = undefined;
    sims = await start();
    assert.notEqual(sims.urls.network, before);
    const demo = await login('demo'); // asserts one public endpoint per type
    assert.equal(demo.url('network'), sims.urls.network);
    assert.equal(demo.url('compute'), sims.urls.compute);
    assert.equal(demo.url('identity'), ks.authUrl);
  });
});
