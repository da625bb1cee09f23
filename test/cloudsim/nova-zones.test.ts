// The Nova simulator's hosts as users and admins see them: availability zones (the seed file's three,
// servers placed in the zone they ask for, an unknown zone refused), the aggregates behind them, the
// hypervisors (admin only, 403 for a member as Nova's policy; figures that follow the servers), and
// flavor extra specs (read by anyone who sees the flavor, written by admins).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startNovaHarness, type NovaHarness } from './nova-harness.js';

let h: NovaHarness;

before(async () => {
  h = await startNovaHarness();
});
after(async () => {
  await h?.close();
});

describe('availability zones', () => {
  test('any user lists the seeded zones; only admins get their hosts (and the internal zone)', async () => {
    const list = (await h.ok(200, 'GET', '/os-availability-zone', 'demo-reader')).availabilityZoneInfo;
    assert.deepEqual(list, ['nova', 'az-2', 'az-3'].map((zoneName) => ({ zoneName, zoneState: { available: true }, hosts: null })));
    const denied = await h.fails(403, 'forbidden', 'GET', '/os-availability-zone/detail', 'demo');
    assert.equal(denied, "Policy doesn't allow os_compute_api:os-availability-zone:detail to be performed.");
    const detail = (await h.ok(200, 'GET', '/os-availability-zone/detail', 'admin')).availabilityZoneInfo;
    assert.deepEqual(detail.map((z: { zoneName: string }) => z.zoneName), ['internal', 'nova', 'az-2', 'az-3']);
    const az2 = detail.find((z: { zoneName: string }) => z.zoneName === 'az-2');
    assert.deepEqual(Object.keys(az2.hosts), ['compute-07', 'compute-08', 'compute-09', 'compute-10', 'compute-11']);
    assert.deepEqual(Object.keys(az2.hosts['compute-07']), ['nova-compute']);
    assert.equal(az2.hosts['compute-07']['nova-compute'].active, true);
    assert.match(az2.hosts['compute-07']['nova-compute'].updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
  });

  test('a server asking for a zone runs on a host of that zone and shows it; an unknown zone is refused', async () => {
    const id = await h.boot('demo', { name: 'zoned', availability_zone: 'az-3' });
    const building = (await h.ok(200, 'GET', `/servers/${id}`, 'demo')).server;
    assert.equal(building['OS-EXT-AZ:availability_zone'], 'az-3');
    const s = await h.until(id, 'ACTIVE', 'admin', '2.96');
    assert.equal(s['OS-EXT-AZ:availability_zone'], 'az-3');
    assert.equal(s.pinned_availability_zone, 'az-3');
    assert.match(s['OS-EXT-SRV-ATTR:host'], /^compute-1[2-6]$/);
    const port = [...h.sims.neutron.state.ports.values()].find((p) => p.deviceId === id)!;
    assert.equal(port.deviceOwner, 'compute:az-3');
    const mars = await h.fails(400, 'badRequest', 'POST', '/servers', 'demo', { server: { name: 'x', flavorRef: '2', imageRef: h.image(), networks: 'none', availability_zone: 'mars' } }, '2.37');
    assert.equal(mars, 'The requested availability zone is not available');
    await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
    await h.gone(id);
  });

  test('hard anti-affinity inside one zone runs out of that zone’s hosts', async () => {
    const g = (await h.ok(200, 'POST', '/os-server-groups', 'demo', { server_group: { name: 'az-spread', policy: 'anti-affinity' } }, '2.64')).server_group;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await h.boot('demo', { name: `m-${i}`, availability_zone: 'az-2' }, undefined, { group: g.id }));
    const states = await Promise.all(ids.map(settle));
    assert.equal(states.filter((st) => st === 'ACTIVE').length, 5, states.join());
    const hosts = ids.map((id) => h.sims.nova.state.servers.get(id)!.host).filter(Boolean);
    assert.equal(new Set(hosts).size, 5);
    for (const id of ids) await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
    for (const id of ids) await h.gone(id);
  });

  test('admins see the zones but the default one as aggregates; members get 403', async () => {
    assert.equal(await h.fails(403, 'forbidden', 'GET', '/os-aggregates', 'demo'), "Policy doesn't allow os_compute_api:os-aggregates:index to be performed.");
    const aggregates = (await h.ok(200, 'GET', '/os-aggregates', 'admin', undefined, '2.41')).aggregates;
    assert.deepEqual(aggregates.map((a: { name: string; availability_zone: string; hosts: string[] }) => [a.name, a.availability_zone, a.hosts.length]), [['az-2', 'az-2', 5], ['az-3', 'az-3', 5]]);
    assert.match(aggregates[0].uuid, /^[0-9a-f-]{36}$/);
    const one = (await h.ok(200, 'GET', '/os-aggregates/2', 'admin')).aggregate;
    assert.deepEqual([one.name, one.metadata, one.uuid], ['az-3', { availability_zone: 'az-3' }, undefined]);
    await h.fails(404, 'itemNotFound', 'GET', '/os-aggregates/9', 'admin');
  });
});

/** The status a server of the group ends in (ACTIVE, or ERROR when no host is left). */
async function settle(id: string): Promise<string> {
  for (;;) {
    const s = (await h.ok(200, 'GET', `/servers/${id}`, 'admin')).server;
    if (s.status !== 'BUILD') return s.status;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('hypervisors', () => {
  test('a member gets 403 (not 404) on every hypervisor route', async () => {
    for (const [path, rule] of [['/os-hypervisors', 'list'], ['/os-hypervisors/detail', 'list-detail'], ['/os-hypervisors/1', 'show'], ['/os-hypervisors/1/uptime', 'uptime'], ['/os-hypervisors/statistics', 'statistics']]) {
      assert.equal(await h.fails(403, 'forbidden', 'GET', path!, 'demo'), `Policy doesn't allow os_compute_api:os-hypervisors:${rule} to be performed.`);
    }
  });

  test('admins list one hypervisor per host: integer ids before 2.53, UUIDs from it, usage of the servers on it', async () => {
    const list = (await h.ok(200, 'GET', '/os-hypervisors', 'admin')).hypervisors;
    assert.equal(list.length, 16);
    assert.deepEqual(list[0], { id: 1, hypervisor_hostname: 'compute-01.cloudsim', state: 'up', status: 'enabled' });
    const id = await h.boot('demo', { name: 'placed', availability_zone: 'nova' });
    const host = (await h.until(id, 'ACTIVE', 'admin'))['OS-EXT-SRV-ATTR:host'];
    const detail = (await h.ok(200, 'GET', '/os-hypervisors/detail', 'admin')).hypervisors;
    const mine = detail.find((x: { service: { host: string } }) => x.service.host === host);
    assert.deepEqual([mine.running_vms, mine.vcpus_used, mine.memory_mb_used, mine.local_gb_used], [1, 1, 512 + 2048, 20]);
    assert.equal(typeof mine.cpu_info, 'string', 'cpu_info is a JSON string before 2.28');
    assert.equal(mine.hypervisor_type, 'QEMU');

    const v253 = (await h.ok(200, 'GET', '/os-hypervisors/detail', 'admin', undefined, '2.53')).hypervisors;
    const node = v253.find((x: { service: { host: string } }) => x.service.host === host);
    assert.match(node.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(typeof node.cpu_info, 'object');
    const shown = (await h.ok(200, 'GET', `/os-hypervisors/${node.id}?with_servers=true`, 'admin', undefined, '2.53')).hypervisor;
    assert.deepEqual(shown.servers.map((x: { uuid: string }) => x.uuid), [id]);
    await h.fails(400, 'badRequest', 'GET', '/os-hypervisors/1', 'admin', undefined, '2.53');
    await h.fails(404, 'itemNotFound', 'GET', '/os-hypervisors/99', 'admin');

    const v288 = (await h.ok(200, 'GET', `/os-hypervisors/${node.id}`, 'admin', undefined, '2.88')).hypervisor;
    assert.equal(v288.vcpus, undefined, 'usage figures are gone at 2.88');
    assert.match(v288.uptime, / up \d+ days, \d+:\d\d, /);
    await h.fails(404, 'itemNotFound', 'GET', `/os-hypervisors/${node.id}/uptime`, 'admin', undefined, '2.88');
    const uptime = (await h.ok(200, 'GET', '/os-hypervisors/3/uptime', 'admin')).hypervisor;
    assert.equal(uptime.hypervisor_hostname, 'compute-03.cloudsim');

    const page = await h.ok(200, 'GET', '/os-hypervisors?limit=10', 'admin', undefined, '2.33');
    assert.equal(page.hypervisors.length, 10);
    assert.match(page.hypervisors_links[0].href, /\/os-hypervisors\?limit=10&marker=10$/);
    const stats = (await h.ok(200, 'GET', '/os-hypervisors/statistics', 'admin')).hypervisor_statistics;
    assert.deepEqual([stats.count, stats.running_vms], [16, 1]);
    await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
    await h.gone(id);
  });
});

describe('flavor extra specs', () => {
  test('readers see them; members may not write them; admins create, update and delete them', async () => {
    assert.deepEqual(await h.ok(200, 'GET', '/flavors/2/os-extra_specs', 'demo-reader'), { extra_specs: {} });
    await h.fails(404, 'itemNotFound', 'GET', '/flavors/nope/os-extra_specs', 'demo');
    assert.equal(
      await h.fails(403, 'forbidden', 'POST', '/flavors/2/os-extra_specs', 'demo', { extra_specs: { 'hw:cpu_policy': 'dedicated' } }),
      "Policy doesn't allow os_compute_api:os-flavor-extra-specs:create to be performed.",
    );
    const created = await h.ok(200, 'POST', '/flavors/2/os-extra_specs', 'admin', { extra_specs: { 'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': 1 } });
    assert.deepEqual(created, { extra_specs: { 'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': 1 } });
    assert.deepEqual(await h.ok(200, 'GET', '/flavors/2/os-extra_specs', 'demo'), { extra_specs: { 'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '1' } });
    assert.deepEqual(await h.ok(200, 'GET', '/flavors/2/os-extra_specs/hw:cpu_policy', 'demo'), { 'hw:cpu_policy': 'dedicated' });
    assert.equal(await h.fails(404, 'itemNotFound', 'GET', '/flavors/2/os-extra_specs/hw:nope', 'demo'), 'Flavor 2 has no extra specs with key hw:nope.');
    assert.equal(await h.fails(400, 'badRequest', 'PUT', '/flavors/2/os-extra_specs/hw:cpu_policy', 'admin', { 'hw:other': 'x' }), 'Request body and URI mismatch');
    assert.deepEqual(await h.ok(200, 'PUT', '/flavors/2/os-extra_specs/hw:cpu_policy', 'admin', { 'hw:cpu_policy': 'shared' }), { 'hw:cpu_policy': 'shared' });
    const flavor = (await h.ok(200, 'GET', '/flavors/2', 'demo', undefined, '2.61')).flavor;
    assert.deepEqual(flavor.extra_specs, { 'hw:cpu_policy': 'shared', 'hw:numa_nodes': '1' });
    await h.ok(200, 'DELETE', '/flavors/2/os-extra_specs/hw:cpu_policy', 'admin');
    await h.ok(200, 'DELETE', '/flavors/2/os-extra_specs/hw:numa_nodes', 'admin');
    await h.fails(404, 'itemNotFound', 'DELETE', '/flavors/2/os-extra_specs/hw:numa_nodes', 'admin');
    assert.deepEqual(await h.ok(200, 'GET', '/flavors/2/os-extra_specs', 'demo'), { extra_specs: {} });
  });
});
