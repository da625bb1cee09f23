// Neutron simulator writes over HTTP (spec openstack-apis §3): networks, subnets and ports with
// their validation and IP allocation, the tag API, list filters, quotas (409 OverQuota),
// project scoping and availability zones.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './neutron-harness.js';

let h: Harness;
let demo: string;
let other: string;
let admin: string;
before(async () => {
  h = await startHarness();
  ({ demo, other, admin } = h.tokens);
});
after(() => h.close());

const net = async (token: string, body: Record<string, unknown> = {}) => (await h.ok(201, 'POST', '/v2.0/networks', token, { network: { name: 'n', ...body } })).network;
const subnet = async (token: string, networkId: string, cidr: string, extra: Record<string, unknown> = {}) =>
  (await h.ok(201, 'POST', '/v2.0/subnets', token, { subnet: { network_id: networkId, ip_version: 4, cidr, ...extra } })).subnet;
const port = async (token: string, networkId: string, extra: Record<string, unknown> = {}) =>
  (await h.ok(201, 'POST', '/v2.0/ports', token, { port: { network_id: networkId, ...extra } })).port;

describe('networks', () => {
  test('create 201, update 200, delete 204; admin-only attributes are 403', async () => {
    const n = await net(demo, { description: 'cluster-x', port_security_enabled: false });
    assert.deepEqual([n.name, n.status, n.shared, n['router:external'], n.port_security_enabled, n.revision_number], ['n', 'ACTIVE', false, false, false, 1]);
    const u = await h.ok(200, 'PUT', `/v2.0/networks/${n.id}`, demo, { network: { name: 'renamed', mtu: 1400 } });
    assert.deepEqual([u.network.name, u.network.mtu, u.network.revision_number], ['renamed', 1400, 2]);
    await h.fails(403, 'PolicyNotAuthorized', 'POST', '/v2.0/networks', demo, { network: { shared: true } });
    await h.fails(403, 'PolicyNotAuthorized', 'POST', '/v2.0/networks', demo, { network: { 'router:external': true } });
    await h.fails(403, 'PolicyNotAuthorized', 'PUT', `/v2.0/networks/${n.id}`, demo, { network: { shared: true } });
    const ext = await net(admin, { 'router:external': true, shared: true });
    assert.deepEqual([ext['router:external'], ext.shared], [true, true]);
    await h.ok(204, 'DELETE', `/v2.0/networks/${ext.id}`, admin);
    await h.ok(204, 'DELETE', `/v2.0/networks/${n.id}`, demo);
    await h.fails(404, 'NetworkNotFound', 'GET', `/v2.0/networks/${n.id}`, demo);
  });

  test('availability zones: listed per resource, filtered, announced as extensions; a network hinting an unknown zone is a 404', async () => {
    const all = (await h.ok(200, 'GET', '/v2.0/availability_zones', demo)).availability_zones;
    assert.deepEqual(all, [{ name: 'nova', resource: 'network', state: 'available' }, { name: 'nova', resource: 'router', state: 'available' }]);
    assert.deepEqual((await h.ok(200, 'GET', '/v2.0/availability_zones?resource=router', demo)).availability_zones.map((z: { resource: string }) => z.resource), ['router']);
    const aliases = (await h.ok(200, 'GET', '/v2.0/extensions', demo)).extensions.map((e: { alias: string }) => e.alias);
    for (const a of ['availability_zone', 'network_availability_zone', 'router_availability_zone']) assert.ok(aliases.includes(a), a);
    const hinted = await net(demo, { availability_zone_hints: ['nova'] });
    assert.deepEqual([hinted.availability_zone_hints, hinted.availability_zones], [['nova'], ['nova']]);
    assert.equal(await h.fails(404, 'AvailabilityZoneNotFound', 'POST', '/v2.0/networks', demo, { network: { availability_zone_hints: ['mars'] } }), 'AvailabilityZone mars could not be found.');
    await h.ok(204, 'DELETE', `/v2.0/networks/${hinted.id}`, demo);
  });

  test('body errors: tags in POST, unknown and read-only attributes, missing wrapper', async () => {
    const cases: [unknown, string][] = [
      [{ network: { tags: ['a'] } }, "Attribute 'tags' not allowed in POST"],
      [{ network: { bogus: 1 } }, "Unrecognized attribute(s) 'bogus'"],
      [{ network: { status: 'DOWN' } }, "Attribute 'status' not allowed in POST"],
      [{ name: 'x' }, "Unable to find 'network' in request body"],
      [{ network: { admin_state_up: 'maybe' } }, "Invalid input for admin_state_up. Reason: 'maybe' is not a valid boolean value."],
    ];
    for (const [body, message] of cases) assert.equal(await h.fails(400, 'HTTPBadRequest', 'POST', '/v2.0/networks', demo, body), message);
    const n = await net(demo);
    assert.equal(await h.fails(400, 'HTTPBadRequest', 'PUT', `/v2.0/networks/${n.id}`, demo, { network: { subnets: [] } }), 'Cannot update read-only attribute subnets');
    await h.ok(204, 'DELETE', `/v2.0/networks/${n.id}`, demo);
  });

  test('NetworkInUse lists the blocking ports; network:dhcp ports do not block and go with it', async () => {
    const n = await net(demo);
    await subnet(demo, n.id, '10.9.0.0/24');
    const vm = await port(demo, n.id, { device_owner: 'compute:nova', device_id: 'vm-1' });
    const dhcp = await port(demo, n.id, { device_owner: 'network:dhcp' });
    const msg = await h.fails(409, 'NetworkInUse', 'DELETE', `/v2.0/networks/${n.id}`, demo);
    assert.equal(msg, `Unable to complete operation on network ${n.id}. There are one or more ports still in use on the network, id for these ports is: ${vm.id}.`);
    await h.ok(204, 'DELETE', `/v2.0/ports/${vm.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/networks/${n.id}`, demo);
    assert.equal(h.sims.neutron.state.ports.has(dhcp.id), false);
  });

  test('If-Match revision_number mismatch is 412', async () => {
    const n = await net(demo);
    const r = await h.call('PUT', `/v2.0/networks/${n.id}`, demo, { network: { name: 'x' } }, { 'if-match': 'revision_number=7' });
    assert.deepEqual([r.status, r.body.NeutronError.type], [412, 'RevisionNumberConstraintFailed']);
    const ok = await h.call('DELETE', `/v2.0/networks/${n.id}`, demo, undefined, { 'if-match': 'revision_number=1' });
    assert.equal(ok.status, 204);
  });
});

describe('subnets', () => {
  test('defaults: gateway is the first host, one pool around it; DNS servers and pools kept', async () => {
    const n = await net(demo);
    const s = await subnet(demo, n.id, '10.1.0.0/24', { dns_nameservers: ['8.8.8.8'] });
    assert.deepEqual([s.gateway_ip, s.allocation_pools, s.enable_dhcp, s.dns_nameservers], ['10.1.0.1', [{ start: '10.1.0.2', end: '10.1.0.254' }], true, ['8.8.8.8']]);
    const t = await subnet(demo, n.id, '10.2.0.0/28', { gateway_ip: null, allocation_pools: [{ start: '10.2.0.5', end: '10.2.0.6' }] });
    assert.deepEqual([t.gateway_ip, t.allocation_pools], [null, [{ start: '10.2.0.5', end: '10.2.0.6' }]]);
    assert.deepEqual((await h.ok(200, 'GET', `/v2.0/networks/${n.id}`, demo)).network.subnets, [s.id, t.id]);
    const u = await h.ok(200, 'PUT', `/v2.0/subnets/${s.id}`, demo, { subnet: { name: 'sn', dns_nameservers: [] } });
    assert.deepEqual([u.subnet.name, u.subnet.dns_nameservers, u.subnet.revision_number], ['sn', [], 2]);
    await h.fails(400, 'HTTPBadRequest', 'PUT', `/v2.0/subnets/${s.id}`, demo, { subnet: { cidr: '10.3.0.0/24' } });
  });

  test('validation: a table of 400s and 409s', async () => {
    const n = await net(demo);
    await subnet(demo, n.id, '10.5.0.0/16');
    const cases: [Record<string, unknown>, number, string, string | RegExp][] = [
      [{ cidr: '10.5.1.0/24' }, 400, 'InvalidInput', `Invalid input for operation: Requested subnet with cidr: 10.5.1.0/24 for network: ${n.id} overlaps with another subnet.`],
      [{ cidr: 'banana' }, 400, 'HTTPBadRequest', "Invalid input for cidr. Reason: 'banana' is not a valid IP subnet."],
      [{ cidr: '10.6.0.5/24' }, 400, 'HTTPBadRequest', "Invalid input for cidr. Reason: '10.6.0.5/24' isn't a recognized IP subnet cidr, '10.6.0.0/24' is recommended."],
      [{ cidr: '10.6.0.0/24', dns_nameservers: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5', '1.1.1.6'] }, 400, 'DNSNameServersExhausted', /exceeds the limit 5/],
      [{ cidr: '10.6.0.0/24', allocation_pools: [{ start: '10.6.0.10', end: '10.6.1.5' }] }, 400, 'OutOfBoundsAllocationPool', 'The allocation pool 10.6.0.10-10.6.1.5 spans beyond the subnet cidr 10.6.0.0/24.'],
      [{ cidr: '10.6.0.0/24', allocation_pools: [{ start: '10.6.0.9', end: '10.6.0.3' }] }, 400, 'InvalidAllocationPool', 'The allocation pool 10.6.0.9-10.6.0.3 is not valid.'],
      [{ cidr: '10.6.0.0/24', allocation_pools: [{ start: '10.6.0.2', end: '10.6.0.9' }, { start: '10.6.0.5', end: '10.6.0.20' }] }, 400, 'OverlappingAllocationPools', /^Found overlapping allocation pools/],
      [{ cidr: '10.6.0.0/24', allocation_pools: [{ start: '10.6.0.1', end: '10.6.0.9' }] }, 409, 'GatewayConflictWithAllocationPools', 'Gateway ip 10.6.0.1 conflicts with allocation pool 10.6.0.1-10.6.0.9'],
      [{ cidr: '10.6.0.0/24', ip_version: 6 }, 400, 'HTTPBadRequest', /IPv6/],
      [{ cidr: '10.6.0.0/24', tags: ['x'] }, 400, 'HTTPBadRequest', "Attribute 'tags' not allowed in POST"],
    ];
    for (const [extra, status, type, message] of cases) {
      const msg = await h.fails(status, type, 'POST', '/v2.0/subnets', demo, { subnet: { network_id: n.id, ip_version: 4, ...extra } });
      if (typeof message === 'string') assert.equal(msg, message);
      else assert.match(msg, message);
    }
    await h.fails(404, 'NetworkNotFound', 'POST', '/v2.0/subnets', other, { subnet: { network_id: n.id, ip_version: 4, cidr: '10.7.0.0/24' } });
    await h.fails(403, 'PolicyNotAuthorized', 'POST', '/v2.0/subnets', demo, { subnet: { network_id: h.publicNet(), ip_version: 4, cidr: '10.8.0.0/24' } });
  });

  test('DHCP: loopback, multicast and /31 ranges are refused with it; a loopback floating-IP pool without it is accepted, and cannot turn it on', async () => {
    const ext = await net(admin, { name: 'loop-ext', 'router:external': true });
    for (const [cidr, why] of [
      ['127.30.0.0/24', 'Loopback IP subnet is not supported if enable_dhcp is True'],
      ['224.1.0.0/24', 'Multicast IP subnet is not supported if enable_dhcp is True'],
      ['10.9.0.0/31', 'Subnet has a prefix length that is incompatible with DHCP service enabled'],
    ]) {
      assert.equal(await h.fails(400, 'InvalidInput', 'POST', '/v2.0/subnets', admin, { subnet: { network_id: ext.id, ip_version: 4, cidr } }), `Invalid input for operation: ${why}.`);
    }
    const pool = await subnet(admin, ext.id, '127.30.0.0/24', { enable_dhcp: false });
    assert.deepEqual([pool.gateway_ip, pool.allocation_pools, pool.enable_dhcp], ['127.30.0.1', [{ start: '127.30.0.2', end: '127.30.0.254' }], false]);
    const msg = await h.fails(400, 'InvalidInput', 'PUT', `/v2.0/subnets/${pool.id}`, admin, { subnet: { enable_dhcp: true } });
    assert.equal(msg, 'Invalid input for operation: Loopback IP subnet is not supported if enable_dhcp is True.');
    const fip = (await h.ok(201, 'POST', '/v2.0/floatingips', demo, { floatingip: { floating_network_id: ext.id } })).floatingip;
    assert.equal(fip.floating_ip_address, '127.30.0.2');
    await h.ok(204, 'DELETE', `/v2.0/floatingips/${fip.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/networks/${ext.id}`, admin);
  });

  test('SubnetInUse while a port holds an address from it', async () => {
    const n = await net(demo);
    const s = await subnet(demo, n.id, '10.10.0.0/24');
    const p = await port(demo, n.id);
    const msg = await h.fails(409, 'SubnetInUse', 'DELETE', `/v2.0/subnets/${s.id}`, demo);
    assert.equal(msg, `Unable to complete operation on subnet ${s.id}: One or more ports have an IP allocation from this subnet.`);
    await h.ok(204, 'DELETE', `/v2.0/ports/${p.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/subnets/${s.id}`, demo);
    assert.deepEqual((await h.ok(200, 'GET', `/v2.0/networks/${n.id}`, demo)).network.subnets, []);
  });
});

describe('ports', () => {
  test('allocation: lowest free address, explicit addresses, 409 taken and exhausted', async () => {
    const n = await net(demo);
    const s = await subnet(demo, n.id, '10.20.0.0/29', { allocation_pools: [{ start: '10.20.0.2', end: '10.20.0.4' }] });
    const a = await port(demo, n.id);
    assert.deepEqual(a.fixed_ips, [{ subnet_id: s.id, ip_address: '10.20.0.2' }]);
    const b = await port(demo, n.id, { fixed_ips: [{ ip_address: '10.20.0.6' }] });
    assert.deepEqual(b.fixed_ips, [{ subnet_id: s.id, ip_address: '10.20.0.6' }]);
    const msg = await h.fails(409, 'IpAddressAlreadyAllocated', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, fixed_ips: [{ subnet_id: s.id, ip_address: '10.20.0.2' }] } });
    assert.equal(msg, `IP address 10.20.0.2 already allocated in subnet ${s.id}`);
    await h.fails(400, 'InvalidIpForNetwork', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, fixed_ips: [{ ip_address: '192.168.0.1' }] } });
    await port(demo, n.id, { fixed_ips: [{ subnet_id: s.id }] });
    await port(demo, n.id);
    assert.equal(await h.fails(409, 'IpAddressGenerationFailure', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id } }), `No more IP addresses available on network ${n.id}.`);
    // Moving a port to a free address releases the old one.
    const moved = await h.ok(200, 'PUT', `/v2.0/ports/${a.id}`, demo, { port: { fixed_ips: [{ ip_address: '10.20.0.5' }] } });
    assert.equal(moved.port.fixed_ips[0].ip_address, '10.20.0.5');
    assert.equal((await port(demo, n.id)).fixed_ips[0].ip_address, '10.20.0.2');
  });

  test('allocation goes on where it left off, back to an address released before it, and across pools', async () => {
    const n = await net(demo);
    await subnet(demo, n.id, '10.21.0.0/28', { allocation_pools: [{ start: '10.21.0.2', end: '10.21.0.3' }, { start: '10.21.0.6', end: '10.21.0.7' }] });
    const ip = (p: { fixed_ips: { ip_address: string }[] }) => p.fixed_ips[0]!.ip_address;
    const ports = [];
    for (let i = 0; i < 4; i++) ports.push(await port(demo, n.id));
    assert.deepEqual(ports.map(ip), ['10.21.0.2', '10.21.0.3', '10.21.0.6', '10.21.0.7']);
    await h.ok(204, 'DELETE', `/v2.0/ports/${ports[1]!.id}`, demo);
    assert.equal(ip(await port(demo, n.id)), '10.21.0.3');
    for (const p of [ports[2]!, ports[0]!]) await h.ok(204, 'DELETE', `/v2.0/ports/${p.id}`, demo);
    assert.deepEqual([ip(await port(demo, n.id)), ip(await port(demo, n.id))], ['10.21.0.2', '10.21.0.6']);
    await h.fails(409, 'IpAddressGenerationFailure', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id } });
  });

  test('security groups, port security, address pairs, device fields and tags at create', async () => {
    const n = await net(demo);
    await subnet(demo, n.id, '10.21.0.0/24');
    const sgs = (await h.ok(200, 'GET', '/v2.0/security-groups?name=default', demo)).security_groups;
    const p = await port(demo, n.id, { name: 'vm', tags: ['cluster=a'], device_owner: 'compute:nova', device_id: 'srv', allowed_address_pairs: [{ ip_address: '10.21.0.100/32' }] });
    assert.deepEqual([p.security_groups, p.tags, p.status, p.device_owner], [[sgs[0].id], ['cluster=a'], 'ACTIVE', 'compute:nova']);
    assert.deepEqual(p.allowed_address_pairs, [{ ip_address: '10.21.0.100/32', mac_address: p.mac_address }]);
    assert.match(p.mac_address, /^fa:16:3e(:[0-9a-f]{2}){3}$/);
    const bare = await port(demo, n.id, { port_security_enabled: false });
    assert.deepEqual([bare.security_groups, bare.status], [[], 'DOWN']);
    await h.fails(409, 'AddressPairAndPortSecurityRequired', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, port_security_enabled: false, allowed_address_pairs: [{ ip_address: '10.0.0.9' }] } });
    await h.fails(400, 'PortSecurityAndIPRequiredForSecurityGroups', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, port_security_enabled: false, security_groups: [sgs[0].id] } });
    await h.fails(409, 'PortSecurityPortHasSecurityGroup', 'PUT', `/v2.0/ports/${p.id}`, demo, { port: { port_security_enabled: false, allowed_address_pairs: [] } });
    const off = await h.ok(200, 'PUT', `/v2.0/ports/${p.id}`, demo, { port: { port_security_enabled: false, security_groups: [], allowed_address_pairs: [] } });
    assert.deepEqual([off.port.port_security_enabled, off.port.security_groups], [false, []]);
    await h.fails(404, 'SecurityGroupNotFound', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, security_groups: ['nope'] } });
    await h.fails(409, 'MacAddressInUse', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, mac_address: p.mac_address } });
    await h.fails(400, 'InvalidInput', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, tags: ['x'.repeat(256)] } });
  });
});

describe('tags, filters, quotas and scoping', () => {
  test('tag API: PUT one tag is 201 (again too), GET 204/404, PUT all, POST adds, DELETE', async () => {
    const n = await net(demo);
    const base = `/v2.0/networks/${n.id}/tags`;
    for (let i = 0; i < 2; i++) assert.equal((await h.call('PUT', `${base}/red`, demo)).status, 201);
    assert.deepEqual(await h.ok(200, 'GET', base, demo), { tags: ['red'] });
    assert.equal((await h.call('GET', `${base}/red`, demo)).status, 204);
    await h.fails(404, 'TagNotFound', 'GET', `${base}/blue`, demo);
    assert.deepEqual(await h.ok(200, 'PUT', base, demo, { tags: ['a', 'b'] }), { tags: ['a', 'b'] });
    assert.deepEqual(await h.ok(201, 'POST', base, demo, { tags: ['b', 'c'] }), { tags: ['a', 'b', 'c'] });
    await h.ok(204, 'DELETE', `${base}/a`, demo);
    await h.fails(404, 'TagNotFound', 'DELETE', `${base}/a`, demo);
    await h.fails(400, 'InvalidInput', 'PUT', base, demo, { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) });
    await h.fails(404, 'NetworkNotFound', 'PUT', `${base}/x`, other);
    await h.fails(403, 'PolicyNotAuthorized', 'PUT', `/v2.0/networks/${h.publicNet()}/tags/x`, demo);
    await h.ok(204, 'DELETE', base, demo);
    assert.deepEqual((await h.ok(200, 'GET', `/v2.0/networks/${n.id}`, demo)).network.tags, []);
    for (const res of ['subnets', 'ports', 'routers', 'security-groups', 'floatingips']) {
      assert.equal((await h.call('PUT', `/v2.0/${res}/nope/tags/x`, demo)).status, 404, res);
    }
  });

  test('list filters: tags, tags-any, not-tags, not-tags-any, name, repeated ids, unknown filter', async () => {
    const mk = async (name: string, tags: string[]) => {
      const n = await net(demo, { name });
      await h.ok(200, 'PUT', `/v2.0/networks/${n.id}/tags`, demo, { tags });
      return n.id as string;
    };
    const [ab, a, b] = [await mk('f-ab', ['fa', 'fb']), await mk('f-a', ['fa']), await mk('f-b', ['fb'])];
    const names = async (q: string) => (await h.ok(200, 'GET', `/v2.0/networks?${q}`, demo)).networks.map((n: { name: string }) => n.name).filter((x: string) => x.startsWith('f-')).sort();
    assert.deepEqual(await names('tags=fa,fb'), ['f-ab']);
    assert.deepEqual(await names('tags-any=fa,fb'), ['f-a', 'f-ab', 'f-b']);
    assert.deepEqual(await names('not-tags=fa,fb'), ['f-a', 'f-b']);
    assert.deepEqual(await names('not-tags-any=fa'), ['f-b']);
    assert.deepEqual(await names('name=f-a'), ['f-a']);
    assert.deepEqual(await names(`id=${a}&id=${b}`), ['f-a', 'f-b']);
    await h.fails(400, 'HTTPBadRequest', 'GET', '/v2.0/ports?colour=red', demo);
    for (const id of [ab, a, b]) await h.ok(204, 'DELETE', `/v2.0/networks/${id}`, demo);
  });

  test('quotas: 409 OverQuota with the sorted-list message; admins set them', async () => {
    const pid = h.keystone.state.projectId('other');
    await h.fails(403, 'PolicyNotAuthorized', 'PUT', `/v2.0/quotas/${pid}`, other, { quota: { network: 1 } });
    const q = await h.ok(200, 'PUT', `/v2.0/quotas/${pid}`, admin, { quota: { network: 1, router: 0, security_group: 1 } });
    assert.equal(q.quota.network, 1);
    const n = await net(other);
    assert.equal(await h.fails(409, 'OverQuota', 'POST', '/v2.0/networks', other, { network: {} }), "Quota exceeded for resources: ['network'].");
    await h.fails(409, 'OverQuota', 'POST', '/v2.0/routers', other, { router: {} });
    // The lazily created default group is the one allowed.
    await h.fails(409, 'OverQuota', 'POST', '/v2.0/security-groups', other, { security_group: { name: 'sg' } });
    assert.equal((await h.ok(200, 'GET', `/v2.0/quotas/${pid}/details`, other)).quota.network.used, 1);
    await h.ok(204, 'DELETE', `/v2.0/quotas/${pid}`, admin);
    await h.ok(204, 'DELETE', `/v2.0/networks/${n.id}`, other);
  });

  test("scoping: other projects' private resources are 404; admins see and change them", async () => {
    const n = await net(demo);
    const s = await subnet(demo, n.id, '10.30.0.0/24');
    const p = await port(demo, n.id);
    for (const path of [`/v2.0/networks/${n.id}`, `/v2.0/subnets/${s.id}`, `/v2.0/ports/${p.id}`]) {
      assert.equal((await h.call('GET', path, other)).status, 404, path);
      assert.equal((await h.call('DELETE', path, other)).status, 404, path);
      assert.equal((await h.call('GET', path, admin)).status, 200, path);
    }
    const ids = (await h.ok(200, 'GET', '/v2.0/ports', other)).ports.map((x: { id: string }) => x.id);
    assert.equal(ids.includes(p.id), false);
    assert.equal((await h.ok(200, 'GET', '/v2.0/ports', admin)).ports.some((x: { id: string }) => x.id === p.id), true);
    await h.ok(201, 'POST', '/v2.0/networks', admin, { network: { name: 'for-demo', project_id: h.keystone.state.projectId('demo') } });
    await h.fails(400, 'HTTPBadRequest', 'POST', '/v2.0/networks', other, { network: { project_id: h.keystone.state.projectId('demo') } });
    await h.ok(204, 'DELETE', `/v2.0/ports/${p.id}`, admin);
  });
});

describe('security group rules in bulk', () => {
  test('items bare or wrapped, answered as a list; empty, unknown attributes, another project\'s group and the quota refuse the whole bulk', async () => {
    const sg = (await h.ok(201, 'POST', '/v2.0/security-groups', demo, { security_group: { name: 'bulk' } })).security_group;
    const rule = (port: number) => ({ security_group_id: sg.id, direction: 'ingress', protocol: 'tcp', port_range_min: port, port_range_max: port });
    const made = await h.ok(201, 'POST', '/v2.0/security-group-rules', demo, { security_group_rules: [rule(1), { security_group_rule: rule(2) }] });
    assert.deepEqual(Object.keys(made), ['security_group_rules']);
    assert.deepEqual(made.security_group_rules.map((r: { port_range_min: number; ethertype: string }) => [r.port_range_min, r.ethertype]), [[1, 'IPv4'], [2, 'IPv4']]);
    const count = async () => (await h.ok(200, 'GET', `/v2.0/security-group-rules?security_group_id=${sg.id}`, demo)).security_group_rules.length;
    assert.equal(await count(), 4);
    assert.equal(await h.fails(400, 'HTTPBadRequest', 'POST', '/v2.0/security-group-rules', demo, { security_group_rules: [] }), 'Resources required');
    assert.equal(await h.fails(400, 'HTTPBadRequest', 'POST', '/v2.0/security-group-rules', demo, { security_group_rules: [rule(3), { ...rule(4), colour: 'red' }] }), "Unrecognized attribute(s) 'colour'");
    await h.fails(404, 'SecurityGroupNotFound', 'POST', '/v2.0/security-group-rules', other, { security_group_rules: [rule(3)] });
    const pid = h.keystone.state.projectId('demo');
    const used = (await h.ok(200, 'GET', `/v2.0/quotas/${pid}/details`, demo)).quota.security_group_rule.used as number;
    await h.ok(200, 'PUT', `/v2.0/quotas/${pid}`, admin, { quota: { security_group_rule: used + 1 } });
    await h.fails(409, 'OverQuota', 'POST', '/v2.0/security-group-rules', demo, { security_group_rules: [rule(3), rule(4)] });
    await h.ok(201, 'POST', '/v2.0/security-group-rules', demo, { security_group_rules: [rule(3)] });
    assert.equal(await count(), 5, 'only the bulk within the quota made its rule');
    await h.ok(204, 'DELETE', `/v2.0/quotas/${pid}`, admin);
    await h.ok(204, 'DELETE', `/v2.0/security-groups/${sg.id}`, demo);
  });
});
