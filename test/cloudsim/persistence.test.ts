// The seed file (one YAML file for flavors, images, networks and default quotas) and the state
// file (the whole cloud, Keystone included, kept across restarts).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCloudSims, type CloudSimOptions, type CloudSims } from '../../cloudsim/cloud.js';
import { BUILTIN_USERS, cloudOptionsFromEnv, SERVICE_USER } from '../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';
import { readSnapshot } from '../../cloudsim/persistence.js';
import { defaultSeed, parseSeed } from '../../cloudsim/seed.js';
import { passwordToken, startKeystone } from '../support/app.js';
import { call, waitFor } from '../support/http.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudsim-state-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function start(extra: Partial<CloudSimOptions> = {}): Promise<{ keystone: KeystoneSim; sims: CloudSims; close(): Promise<void> }> {
  const keystone = await startKeystone();
  const sims = await startCloudSims({
    keystone,
    authUrl: `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`,
    credentials: { username: SERVICE_USER.username, password: SERVICE_USER.password, projectName: SERVICE_USER.project },
    host: '127.0.0.1',
    clock: { timeScale: 0.001 },
    ...extra,
  });
  return {
    keystone,
    sims,
    async close() {
      await sims.close();
      await keystone.app.close();
    },
  };
}
const login = (keystone: KeystoneSim, user: 'demo' | 'admin') => passwordToken(keystone, user, BUILTIN_USERS[user].password, BUILTIN_USERS[user].project);

describe('seed file', () => {
  test('the shipped seed: the flavors, images, public network and quotas a cluster needs', () => {
    const seed = defaultSeed();
    assert.deepEqual(seed.flavors?.map((f) => f.name), ['m1.tiny', 'm1.small', 'm1.medium', 'm1.large', 'm1.xlarge', 'ds512M', 'ds1G', 'ds2G', 'ds4G']);
    const distro = Object.fromEntries((seed.images ?? []).map((i) => [i.name, i.properties?.os_distro]));
    assert.equal(distro['fedora-coreos-43'], 'fedora-coreos');
    assert.equal(distro['ubuntu-24.04'], 'ubuntu');
    const pub = seed.networks?.find((n) => n.name === 'public');
    assert.equal(pub?.external, true);
    assert.ok(pub?.subnets?.[0]?.allocation_pools?.length, 'a floating IP pool');
    assert.ok(seed.quotas?.compute && seed.quotas.network && seed.quotas['block-storage']);
  });

  test('a bad seed names the problem and where', () => {
    assert.throws(() => parseSeed('flavors:\n  - { id: x, name: y, vcpus: 0, ram: 1, disk: 1 }\n', 's.yaml'), /s\.yaml: \/flavors\/0\/vcpus/);
    assert.throws(() => parseSeed('colour: blue\n', 's.yaml'), /s\.yaml/);
    assert.throws(() => parseSeed('quotas: { network: { routers: 3 } }\n', 's.yaml'), /unknown quota routers/);
  });

  test('CLOUDSIM_SEED_FILE: the cloud starts with exactly what the file says', async () => {
    const file = join(dir, 'seed.yaml');
    writeFileSync(
      file,
      [
        'flavors: [{ id: g1, name: gpu.large, vcpus: 8, ram: 32768, disk: 100 }]',
        'images: [{ name: talos-1.9, owner: admin, properties: { os_distro: talos } }]',
        'networks: [{ name: ext, external: true, shared: true, subnets: [{ cidr: 127.203.113.0/24, enable_dhcp: false }] }]',
        'quotas: { network: { router: 3 }, dns: { zones: 2 } }',
      ].join('\n'),
    );
    const env = cloudOptionsFromEnv({ CLOUDSIM_SEED_FILE: file });
    const c = await start({ ...(env.seed ? { seed: env.seed } : {}) });
    try {
      assert.deepEqual([...c.sims.nova.state.flavors.values()].map((f) => f.name), ['gpu.large']);
      assert.deepEqual([...c.sims.glance.state.images.values()].map((i) => i.name), ['talos-1.9']);
      const ext = [...c.sims.neutron.state.networks.values()];
      assert.deepEqual(ext.map((n) => n.name), ['ext']);
      const subnet = c.sims.neutron.state.subnets.get(ext[0]!.subnets[0]!)!;
      assert.deepEqual([subnet.gatewayIp, subnet.allocationPools], ['127.203.113.1', [{ start: '127.203.113.2', end: '127.203.113.254' }]]);
      const demo = await login(c.keystone, 'demo');
      const q = await call('GET', `${c.sims.urls.network}/v2.0/quotas/${c.keystone.state.projectId('demo')}`, demo);
      assert.equal(q.body.quota.router, 3);
      assert.equal(c.sims.designate.state.quotaOf('x').zones, 2);
    } finally {
      await c.close();
    }
  });
});

describe('state file', () => {
  test('a restarted cloud keeps its identities and resources; pending work has settled', async () => {
    const file = join(dir, 'cloud.json');
    const first = await start({ persist: { file, intervalMs: 0 } });
    assert.equal(first.sims.restored, false);
    const demoId = first.keystone.state.projectId('demo');
    const extraProject = first.keystone.state.createProject('extra');
    const demo = await login(first.keystone, 'demo');
    const net = (await call('POST', `${first.sims.urls.network}/v2.0/networks`, demo, { network: { name: 'kept' } })).body.network;
    const zone = (await call('POST', `${first.sims.urls.dns}/v2/zones`, demo, { name: 'kept.example.org.', email: 'a@b.org' })).body;
    // A volume still `creating` when the cloud stops.
    first.sims.cinder.state.behaviour.stuck = true;
    const volumes = first.sims.urls['block-storage'].replace('%(project_id)s', demoId);
    const vol = (await call('POST', `${volumes}/volumes`, demo, { volume: { size: 2, name: 'kept' } })).body.volume;
    assert.equal(vol.status, 'creating');
    // Saving on demand through the admin API.
    const admin = await login(first.keystone, 'admin');
    assert.equal((await call('POST', `${first.sims.urls['cloudsim-admin']}/state`, admin)).status, 204);
    assert.ok(readSnapshot(file)?.services.designate);
    await first.close();

    const second = await start({ persist: { file, intervalMs: 0 } });
    try {
      assert.equal(second.sims.restored, true);
      assert.equal(second.keystone.state.projectId('demo'), demoId);
      assert.equal(second.keystone.state.projectId('extra'), extraProject);
      const demo2 = await login(second.keystone, 'demo');
      assert.equal((await call('GET', `${second.sims.urls.network}/v2.0/networks/${net.id}`, demo2)).body.network.name, 'kept');
      const publics = [...second.sims.neutron.state.networks.values()].filter((n) => n.name === 'public');
      assert.equal(publics.length, 1, 'restored, not seeded again');
      const z = await call('GET', `${second.sims.urls.dns}/v2/zones/${zone.id}`, demo2);
      assert.deepEqual([z.body.name, z.body.status], ['kept.example.org.', 'ACTIVE']);
      const v = await call('GET', `${second.sims.urls['block-storage'].replace('%(project_id)s', demoId)}/volumes/${vol.id}`, demo2);
      assert.equal(v.body.volume.status, 'available');
      assert.equal(second.sims.nova.state.flavors.size, 9);
      assert.equal(second.sims.glance.state.images.size, 6);
      // The restored cloud works on: a new zone goes ACTIVE.
      const more = (await call('POST', `${second.sims.urls.dns}/v2/zones`, demo2, { name: 'more.example.org.', email: 'a@b.org' })).body;
      await waitFor(() => call('GET', `${second.sims.urls.dns}/v2/zones/${more.id}`, demo2), (r) => r.body.status === 'ACTIVE');
    } finally {
      await second.close();
    }
    assert.ok(readSnapshot(file)?.services.designate, 'saved again on close');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(saved.services.designate.zones.length, 2);
  });

  test('without a state file the admin API says so; a damaged file stops the start', async () => {
    const c = await start();
    try {
      const admin = await login(c.keystone, 'admin');
      assert.equal((await call('POST', `${c.sims.urls['cloudsim-admin']}/state`, admin)).status, 409);
    } finally {
      await c.close();
    }
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"version": 99}');
    assert.throws(() => readSnapshot(bad), /not a cloudsim state file/);
    assert.equal(readSnapshot(join(dir, 'missing.json')), undefined);
  });
});
