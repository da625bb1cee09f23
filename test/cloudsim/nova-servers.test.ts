// The Nova simulator's servers over HTTP (spec openstack-apis §2.2-§2.4): 202 + Location with a
// minimal body, BUILD → ACTIVE through the task states with Neutron ports created and bound,
// addresses by network name, ERROR with a NoValidHost fault, delete (task_state deleting, then
// 404, ports released), the create validation texts by microversion, and project scoping.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DELAYS } from '../../cloudsim/common/clock.js';
import { NovaServersClient } from '../../src/openstack/nova-servers.js';
import { waitFor } from '../support/http.js';
import { startNovaHarness, type NovaHarness } from './nova-harness.js';

let h: NovaHarness;

before(async () => {
  h = await startNovaHarness();
});
after(async () => h.close());

const create = (server: Record<string, unknown>, version?: string, extra: Record<string, unknown> = {}) =>
  h.call('POST', '/servers', 'demo', { server: { name: 'vm', flavorRef: '2', imageRef: h.image(), ...server }, ...extra }, version);

describe('create and lifecycle', () => {
  test('202 with Location and the minimal body; BUILD walks the task states to ACTIVE with a bound port', async () => {
    const net = h.network('demo');
    // ~400 ms instead of ~40 ms, so that BUILD can be observed.
    h.sims.nova.state.clock.setDelay('nova.server.boot', { kind: 'fixed', ms: 400_000 });
    const r = await create({ name: 'node-1', networks: [{ uuid: net.id }], metadata: { role: 'worker' } });
    h.sims.nova.state.clock.setDelay('nova.server.boot', DEFAULT_DELAYS['nova.server.boot']);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const id = r.body.server.id;
    assert.equal(r.headers.get('location'), `${h.sims.urls.compute}/servers/${id}`);
    assert.deepEqual(Object.keys(r.body.server).sort(), ['OS-DCF:diskConfig', 'adminPass', 'id', 'links', 'security_groups']);
    assert.deepEqual(r.body.server.security_groups, [{ name: 'default' }]);
    assert.match(r.headers.get('x-compute-request-id') ?? '', /^req-/);

    const building = (await h.ok(200, 'GET', `/servers/${id}`, 'demo')).server;
    assert.equal(building.status, 'BUILD');
    assert.equal(building['OS-EXT-STS:vm_state'], 'building');
    assert.ok(['scheduling', 'block_device_mapping', 'networking', 'spawning'].includes(building['OS-EXT-STS:task_state']));
    assert.equal(building.progress, 0);
    assert.deepEqual(building.addresses, {});

    const seen = new Set<string>();
    const active = await waitFor(
      () => h.call('GET', `/servers/${id}`, 'demo'),
      (x) => {
        seen.add(x.body.server['OS-EXT-STS:task_state']);
        return x.body.server.status === 'ACTIVE';
      },
    );
    const s = active.body.server;
    assert.ok(seen.has('spawning') || seen.has('networking'), [...seen].join());
    assert.deepEqual([s['OS-EXT-STS:vm_state'], s['OS-EXT-STS:task_state'], s['OS-EXT-STS:power_state']], ['active', null, 1]);
    assert.equal(s.tenant_id, h.projects.demo);
    assert.deepEqual(s.metadata, { role: 'worker' });
    assert.deepEqual(s.flavor, { id: '2', links: [{ rel: 'bookmark', href: `${new URL(h.sims.urls.compute).origin}/flavors/2` }] });
    assert.equal(s.image.id, h.image());
    // No zone asked for: any host of any zone, and the zone of that host.
    const zone = s['OS-EXT-AZ:availability_zone'];
    const host = h.sims.nova.state.servers.get(id)!.host!;
    assert.ok(h.sims.nova.state.behaviour.zones.find((z) => z.name === zone)?.hosts.includes(host), `${host} in ${zone}`);
    assert.match(s.hostId, /^[0-9a-f]{56}$/);
    assert.match(s['OS-SRV-USG:launched_at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    assert.match(s.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(s['OS-EXT-SRV-ATTR:host'], undefined, 'host attributes are for admins');
    const addrs = s.addresses[net.name];
    assert.equal(addrs.length, 1);
    assert.equal(addrs[0].version, 4);
    assert.equal(addrs[0]['OS-EXT-IPS:type'], 'fixed');
    assert.match(addrs[0].addr, /^10\.\d+\.0\.\d+$/);
    assert.deepEqual(s.security_groups, [{ name: 'default' }]);

    const port = [...h.sims.neutron.state.ports.values()].find((p) => p.deviceId === id)!;
    assert.equal(port.deviceOwner, `compute:${zone}`);
    assert.equal(port.networkId, net.id);
    assert.equal(port.fixedIps[0]!.ipAddress, addrs[0].addr);
    assert.equal(port.macAddress, addrs[0]['OS-EXT-IPS-MAC:mac_addr']);
    assert.notEqual(port.bindingHostId, '');

    const admin = (await h.ok(200, 'GET', `/servers/${id}`, 'admin', undefined, '2.3')).server;
    assert.equal(admin['OS-EXT-SRV-ATTR:host'], port.bindingHostId);
    assert.match(admin['OS-EXT-SRV-ATTR:instance_name'], /^instance-[0-9a-f]{8}$/);
    assert.equal(admin['OS-EXT-SRV-ATTR:hostname'], 'node-1');
  });

  test('shapes by microversion: embedded flavor (2.47), tags and description (2.19/2.26), BFV image ""', async () => {
    const id = await h.boot('demo', { name: 'shaped', tags: ['cluster=c1'], description: 'd' }, '2.52');
    const s = await h.until(id, 'ACTIVE', 'demo', '2.73');
    assert.deepEqual(s.flavor, { vcpus: 1, ram: 2048, disk: 20, ephemeral: 0, swap: 0, original_name: 'm1.small', extra_specs: {} });
    assert.deepEqual(s.tags, ['cluster=c1']);
    assert.equal(s.description, 'd');
    assert.equal(s.locked, false);
    assert.equal(s.locked_reason, null);
    assert.deepEqual(s.server_groups, []);
    const old = (await h.ok(200, 'GET', `/servers/${id}`, 'demo')).server;
    assert.equal(old.tags, undefined);
    assert.equal(old.description, undefined);
  });

  test('ERROR with a NoValidHost fault when a build-failure rule or the seeded fraction says so', async () => {
    const clear = h.sims.nova.state.failBuilds({ name: 'doomed', times: 1 });
    const id = await h.boot('demo', { name: 'doomed-1' });
    const s = await h.until(id, 'ERROR');
    clear();
    assert.equal(s.fault.code, 500);
    assert.match(s.fault.message, /^No valid host was found\. /);
    assert.match(s.fault.created, /Z$/);
    assert.equal(s.fault.details, undefined, 'details of a 500 are for admins');
    assert.deepEqual(s.addresses, {});
    assert.equal([...h.sims.neutron.state.ports.values()].filter((p) => p.deviceId === id).length, 0);

    const again = await h.boot('demo', { name: 'doomed-2' });
    assert.equal((await h.until(again, 'ACTIVE')).status, 'ACTIVE', 'the rule was used once');

    h.sims.nova.state.behaviour.bootErrorFraction = 1;
    const unlucky = await h.boot('demo', { name: 'unlucky' });
    h.sims.nova.state.behaviour.bootErrorFraction = 0;
    assert.equal((await h.until(unlucky, 'ERROR')).fault.code, 500);
    await h.ok(204, 'DELETE', `/servers/${unlucky}`, 'demo');
    await h.gone(unlucky);
  });

  test('delete: 204, task_state deleting with the status kept, then 404; Nova ports deleted, user ports unbound', async () => {
    const net = h.network('demo');
    const own = h.sims.neutron.state.addPort({
      ...h.sims.neutron.state.newStandard(h.projects.demo),
      networkId: net.id,
      macAddress: 'fa:16:3e:aa:bb:cc',
      fixedIps: [{ subnetId: net.subnetId, ipAddress: '10.10.0.200' }],
    });
    const id = await h.boot('demo', { name: 'two-nics', networks: [{ uuid: net.id }, { port: own.id }] });
    const s = await h.until(id, 'ACTIVE');
    assert.equal(s.addresses[net.name].length, 2);
    assert.equal(own.deviceId, id);
    assert.equal(own.deviceOwner, `compute:${s['OS-EXT-AZ:availability_zone']}`);
    const created = [...h.sims.neutron.state.ports.values()].find((p) => p.deviceId === id && p.id !== own.id)!;

    h.sims.nova.state.clock.setDelay('nova.server.delete', { kind: 'fixed', ms: 100_000 });
    const d = await h.call('DELETE', `/servers/${id}`, 'demo');
    assert.equal(d.status, 204);
    const deleting = (await h.ok(200, 'GET', `/servers/${id}`, 'demo')).server;
    assert.deepEqual([deleting.status, deleting['OS-EXT-STS:task_state']], ['ACTIVE', 'deleting']);
    assert.equal((await h.call('DELETE', `/servers/${id}`, 'demo')).status, 204, 'deleting twice is accepted');
    await h.gone(id);
    h.sims.nova.state.clock.setDelay('nova.server.delete', { kind: 'fixed', ms: 5_000 });
    const msg = await h.fails(404, 'itemNotFound', 'GET', `/servers/${id}`, 'demo');
    assert.equal(msg, `Instance ${id} could not be found.`);
    assert.equal(h.sims.neutron.state.ports.has(created.id), false);
    assert.equal(h.sims.neutron.state.ports.get(own.id)?.deviceId, '');
    assert.equal(h.sims.neutron.state.ports.get(own.id)?.deviceOwner, '');
  });

  test('delete while BUILD cancels the build', async () => {
    const id = await h.boot('demo', { name: 'short-lived' });
    await h.ok(204, 'DELETE', `/servers/${id}`, 'demo');
    await h.gone(id);
  });
});

describe('create validation', () => {
  const cases: [string, Record<string, unknown>, string | undefined, number, string | RegExp, Record<string, unknown>?][] = [
    ['networks required from 2.37', { networks: undefined }, '2.37', 400, /^Invalid input for field\/attribute server\. Value: \{.*\}\. 'networks' is a required property$/],
    ['tags before 2.52', { tags: ['a'], networks: 'none' }, '2.51', 400, /Additional properties are not allowed \('tags' was unexpected\)$/],
    ['network uuid format from 2.37', { networks: [{ uuid: 'nope' }] }, '2.37', 400, "Invalid input for field/attribute uuid. Value: nope. 'nope' is not a 'uuid'"],
    ['network uuid format before 2.37', { networks: [{ uuid: 'nope' }] }, undefined, 400, 'Bad networks format: network uuid is not in proper format (nope)'],
    ['networks string', { networks: 'some' }, '2.37', 400, "Invalid input for field/attribute networks. Value: some. 'some' is not valid under any of the given schemas"],
    ['user_data too long', { networks: 'none', user_data: 'A'.repeat(65536) }, '2.37', 400, /^Invalid input for field\/attribute user_data\. Value: A+\. 'A+' is too long$/],
    ['user_data not base64', { networks: 'none', user_data: 'abc' }, '2.37', 400, "Invalid input for field/attribute user_data. Value: abc. 'abc' is not a 'base64'"],
    ['unknown key_name', { networks: 'none', key_name: 'nope' }, '2.37', 400, 'Invalid key_name provided.'],
    ['unknown flavor', { networks: 'none', flavorRef: '999' }, '2.37', 400, 'Invalid flavorRef provided.'],
    ['unknown image', { networks: 'none', imageRef: '00000000-0000-4000-8000-000000000000' }, '2.37', 400, 'Can not find requested image'],
    ['no image', { networks: 'none', imageRef: undefined }, '2.37', 400, 'Missing imageRef attribute'],
    ['unknown network', { networks: [{ uuid: '00000000-0000-4000-8000-000000000000' }] }, '2.37', 400, 'Network 00000000-0000-4000-8000-000000000000 could not be found.'],
    ['unknown port', { networks: [{ port: '00000000-0000-4000-8000-000000000000' }] }, '2.37', 400, 'Port id 00000000-0000-4000-8000-000000000000 could not be found.'],
    ['unknown zone', { networks: 'none', availability_zone: 'mars' }, '2.37', 400, 'The requested availability zone is not available'],
    ['bad name', { networks: 'none', name: ' x' }, '2.37', 400, "An invalid 'name' value was provided. The name must be: printable characters. Can not start or end with whitespace."],
    ['unknown group', { networks: 'none' }, '2.37', 400, 'Instance group 00000000-0000-4000-8000-000000000000 could not be found.', { 'os:scheduler_hints': { group: '00000000-0000-4000-8000-000000000000' } }],
    ['unknown security group', { security_groups: [{ name: 'nope' }] }, '2.37', 400, /^Security group nope not found for project /],
    ['too much metadata', { networks: 'none', metadata: Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`k${i}`, 'v'])) }, '2.37', 403, 'Maximum number of metadata items exceeds 128'],
    ['flavor disk too small', { networks: 'none', flavorRef: '1', imageRef: 'ubuntu' }, '2.37', 400, /^Flavor's disk is too small for requested image\. Flavor disk is 1073741824 bytes, image is \d+ bytes\.$/],
  ];
  for (const [name, server, version, status, message, extra] of cases) {
    test(name, async () => {
      const body: Record<string, unknown> = { ...server };
      if (body.networks === undefined && !('networks' in server && server.networks === undefined)) body.networks = [{ uuid: h.network('demo').id }];
      if (body.imageRef === 'ubuntu') body.imageRef = [...h.sims.glance.state.images.values()].find((i) => i.name === 'ubuntu-24.04')!.id;
      const r = await create(body, version, extra);
      const fault = status === 403 ? 'forbidden' : 'badRequest';
      assert.equal(r.status, status, JSON.stringify(r.body));
      const text = r.body[fault].message as string;
      if (typeof message === 'string') assert.equal(text, message);
      else assert.match(text, message);
    });
  }

  test('a user port already bound is 409; an external network is 403 unless shared', async () => {
    const id = await h.boot('demo', { name: 'holder' });
    await h.until(id, 'ACTIVE');
    const held = [...h.sims.neutron.state.ports.values()].find((p) => p.deviceId === id)!;
    const r = await create({ networks: [{ port: held.id }] }, '2.37');
    assert.equal(r.status, 409);
    assert.equal(r.body.conflictingRequest.message, `Port ${held.id} is still in use.`);
    const ext = h.sims.neutron.state.addNetwork({ name: 'ext-private', projectId: h.projects.admin, external: true, shared: false });
    const forbidden = await create({ networks: [{ uuid: ext.id }] }, '2.37');
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.forbidden.message, `It is not allowed to create an interface on external network ${ext.id}`);
  });

  test("'none' boots without interfaces; 'auto' takes the project's only network, several are ambiguous (409)", async () => {
    const none = await h.boot('other', { networks: 'none', name: 'island' }, '2.37');
    assert.deepEqual((await h.until(none, 'ACTIVE', 'other')).addresses, {});
    h.network('other');
    const auto = await h.boot('other', { networks: 'auto', name: 'auto' }, '2.37');
    assert.deepEqual(Object.keys((await h.until(auto, 'ACTIVE', 'other')).addresses), ['private']);
    h.network('other', 'second');
    const r = await h.call('POST', '/servers', 'other', { server: { name: 'x', flavorRef: '2', imageRef: h.image(), networks: 'auto' } }, '2.37');
    assert.equal(r.status, 409);
    assert.equal(r.body.conflictingRequest.message, 'Multiple possible networks found, use a Network ID to be more specific.');
  });

  test('instance quota: 403 with the requested, used and allowed numbers', async () => {
    const nova = h.sims.nova.state;
    nova.setQuota(h.projects.other, { cores: 2 });
    const used = nova.usage(h.projects.other).cores;
    const r = await h.call('POST', '/servers', 'other', { server: { name: 'big', flavorRef: '4', imageRef: h.image(), networks: 'none' } }, '2.37');
    assert.equal(r.status, 403);
    assert.equal(r.body.forbidden.message, `Quota exceeded for cores: Requested 4, but already used ${used} of 2 cores`);
    nova.setQuota(h.projects.other, { cores: 20 });
  });
});

describe('visibility', () => {
  test('other projects get 404; admins see it, and list every project with all_tenants', async () => {
    const id = await h.boot('demo', { name: 'private-vm' });
    await h.fails(404, 'itemNotFound', 'GET', `/servers/${id}`, 'other');
    await h.fails(404, 'itemNotFound', 'DELETE', `/servers/${id}`, 'other');
    assert.equal((await h.ok(200, 'GET', `/servers/${id}`, 'admin')).server.id, id);
    const mine = (await h.ok(200, 'GET', '/servers', 'admin')).servers.map((s: any) => s.id);
    assert.ok(!mine.includes(id), 'an admin lists its own project by default');
    const every = (await h.ok(200, 'GET', '/servers?all_tenants=1', 'admin')).servers.map((s: any) => s.id);
    assert.ok(every.includes(id));
    const denied = await h.fails(403, 'forbidden', 'GET', '/servers?all_tenants=1', 'demo');
    assert.match(denied, /get_all_tenants/);
  });

  test('the audit lists live servers with their tags', async () => {
    const id = await h.boot('demo', { name: 'audited', tags: ['cluster=a'] }, '2.52');
    const entry = h.sims.nova.state.auditResources().find((r) => r.id === id);
    assert.deepEqual(entry, { type: 'server', id, project_id: h.projects.demo, name: 'audited', tags: ['cluster=a'] });
  });

  test('snapshot and restore: servers, keypairs, groups and quotas come back; a build under way carries on', async () => {
    const nova = h.sims.nova.state;
    nova.clock.setDelay('nova.server.boot', { kind: 'fixed', ms: 300_000 });
    const id = await h.boot('demo', { name: 'restored' });
    nova.clock.setDelay('nova.server.boot', DEFAULT_DELAYS['nova.server.boot']);
    nova.setQuota(h.projects.demo, { instances: 42 });
    const saved = JSON.parse(JSON.stringify(nova.snapshot()));
    nova.restore(saved);
    assert.equal(nova.quotaOf(h.projects.demo).instances, 42);
    assert.equal((await h.until(id, 'ACTIVE')).name, 'restored');
    assert.equal([...h.sims.neutron.state.ports.values()].filter((p) => p.deviceId === id).length, 1);
    nova.quotas.delete(h.projects.demo);
  });

  test('microversions: echoed on answers and errors, 406 above 2.96', async () => {
    const r = await h.call('GET', '/servers', 'demo', undefined, '2.60');
    assert.equal(r.headers.get('openstack-api-version'), 'compute 2.60');
    const high = await h.call('GET', '/servers', 'demo', undefined, '2.97');
    assert.equal(high.status, 406);
  });
});

describe('console log (os-getConsoleOutput)', () => {
  test('the last `length` lines the guest wrote (null or -1: all; a numeric string too); 409 while it builds; the client reads it', async () => {
    h.sims.nova.state.clock.setDelay('nova.server.boot', { kind: 'fixed', ms: 400_000 });
    const r = await create({ name: 'console', networks: 'none' }, '2.79');
    h.sims.nova.state.clock.setDelay('nova.server.boot', DEFAULT_DELAYS['nova.server.boot']);
    const id = r.body.server.id;
    const action = (body: unknown, status = 200) => h.ok(status, 'POST', `/servers/${id}/action`, 'demo', body);
    await action({ 'os-getConsoleOutput': {} }, 409);
    await waitFor(() => h.ok(200, 'GET', `/servers/${id}`, 'demo'), (b) => b.server.status === 'ACTIVE');
    h.sims.nova.state.consoles.write(id, 'one\ntwo\nthree');
    assert.deepEqual(await action({ 'os-getConsoleOutput': { length: 2 } }), { output: 'two\nthree\n' });
    assert.deepEqual(await action({ 'os-getConsoleOutput': { length: '-1' } }), { output: 'one\ntwo\nthree\n' });
    assert.deepEqual(await action({ 'os-getConsoleOutput': { length: null } }), { output: 'one\ntwo\nthree\n' });
    assert.deepEqual(await action({ 'os-getConsoleOutput': { length: 0 } }), { output: '' });
    await action({ 'os-getConsoleOutput': { length: -2 } }, 400);
    await action({ 'os-unknown': {} }, 400);
    await h.ok(404, 'POST', `/servers/${id}/action`, 'other', { 'os-getConsoleOutput': {} });
    const nova = new NovaServersClient({ service: 'compute', baseUrl: h.sims.urls.compute, token: h.tokens.demo, timeoutMs: 5000 });
    assert.equal(await nova.consoleOutput(id, 1), 'three\n');
  });
});
