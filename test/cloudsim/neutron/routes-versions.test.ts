// Neutron's discovery documents: the version list without a token, the extension list and one extension
// by alias behind it (Zed's texts; an unknown alias is webob's 404 page), each listed alias backed by what the
// simulator renders or answers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../neutron-harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

test('GET / lists v2.0 without a token', async () => {
  const res = await fetch(`${h.sims.urls.network}/`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { versions: [{ id: 'v2.0', status: 'CURRENT', links: [{ rel: 'self', href: `${h.sims.urls.network}/v2.0/` }] }] });
});

test('the extension list: Zed shapes, one entry an alias; each shown by alias; an unknown alias is webob\'s 404', async () => {
  const { demo } = h.tokens;
  const list = (await h.ok(200, 'GET', '/v2.0/extensions', demo)).extensions as { alias: string; name: string; description: string; updated: string; links: unknown[] }[];
  assert.equal(new Set(list.map((e) => e.alias)).size, list.length);
  for (const e of list) {
    assert.deepEqual(Object.keys(e).sort(), ['alias', 'description', 'links', 'name', 'updated']);
    assert.match(e.updated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-\d\d:\d\d$/);
    assert.deepEqual(e.links, []);
    assert.deepEqual((await h.ok(200, 'GET', `/v2.0/extensions/${e.alias}`, demo)).extension, e);
  }
  assert.deepEqual(list.find((e) => e.alias === 'router'), {
    name: 'Neutron L3 Router',
    alias: 'router',
    description: 'Router abstraction for basic L3 forwarding between L2 Neutron networks and access to external networks via a NAT gateway.',
    updated: '2012-07-20T10:00:00-00:00',
    links: [],
  });
  // Not a NeutronError: pecan's abort reaches the client as webob's page (Zed's neutron-server answers so).
  assert.deepEqual(await h.call('GET', '/v2.0/extensions/trunk', demo), {
    status: 404,
    body: { message: 'The resource could not be found.<br /><br />\nExtension with alias trunk does not exist\n\n', code: '404 Not Found', title: 'Not Found' },
  });
  assert.equal((await h.call('GET', '/v2.0/extensions', 'no-token')).status, 401);
});

test('every listed extension is one the simulator implements', async () => {
  const { demo, admin } = h.tokens;
  const aliases = ((await h.ok(200, 'GET', '/v2.0/extensions', demo)).extensions as { alias: string }[]).map((e) => e.alias).sort();
  const net = (await h.ok(201, 'POST', '/v2.0/networks', demo, { network: { name: 'ext-proof' } })).network;
  const subnet = (await h.ok(201, 'POST', '/v2.0/subnets', demo, { subnet: { network_id: net.id, ip_version: 4, cidr: '10.61.0.0/24' } })).subnet;
  const port = (await h.ok(201, 'POST', '/v2.0/ports', demo, { port: { network_id: net.id } })).port;
  const router = (await h.ok(201, 'POST', '/v2.0/routers', demo, { router: { name: 'ext-proof', external_gateway_info: { network_id: h.publicNet() } } })).router;
  const fip = (await h.ok(201, 'POST', '/v2.0/floatingips', demo, { floatingip: { floating_network_id: h.publicNet() } })).floatingip;
  const group = (await h.ok(201, 'POST', '/v2.0/security-groups', demo, { security_group: { name: 'ext-proof' } })).security_group;
  const asAdmin = (await h.ok(200, 'GET', `/v2.0/networks/${net.id}`, admin)).network;
  const has = (o: Record<string, unknown>, k: string) => assert.ok(k in o, `${k} in ${JSON.stringify(o)}`);
  const proofs: Record<string, () => Promise<void> | void> = {
    'external-net': () => has(net, 'router:external'),
    router: () => assert.equal(router.name, 'ext-proof'),
    'ext-gw-mode': () => assert.equal(router.external_gateway_info.enable_snat, true),
    'security-group': () => assert.ok(group.security_group_rules.length > 0),
    'stateful-security-group': () => assert.equal(group.stateful, true),
    'port-security': () => has(port, 'port_security_enabled'),
    'allowed-address-pairs': () => assert.deepEqual(port.allowed_address_pairs, []),
    extra_dhcp_opt: () => assert.deepEqual(port.extra_dhcp_opts, []),
    binding: () => has(port, 'binding:vnic_type'),
    provider: () => has(asAdmin, 'provider:network_type'),
    'net-mtu': () => has(net, 'mtu'),
    'fip-port-details': () => has(fip, 'port_details'),
    quotas: async () => has((await h.ok(200, 'GET', `/v2.0/quotas/${net.project_id}`, demo)).quota, 'network'),
    quota_details: async () => has((await h.ok(200, 'GET', `/v2.0/quotas/${net.project_id}/details`, demo)).quota.network, 'used'),
    'standard-attr-description': () => has(subnet, 'description'),
    'standard-attr-timestamp': () => has(subnet, 'created_at'),
    'standard-attr-revisions': () => assert.equal(typeof subnet.revision_number, 'number'),
    'revision-if-match': async () => assert.equal((await h.call('PUT', `/v2.0/networks/${net.id}`, demo, { network: { name: 'x' } }, { 'if-match': 'revision_number=999' })).status, 412),
    'standard-attr-tag': async () => assert.equal((await h.call('PUT', `/v2.0/networks/${net.id}/tags/t1`, demo)).status, 201),
    'tag-creation': async () => assert.equal((await h.call('POST', `/v2.0/networks/${net.id}/tags`, demo, { tags: ['t2'] })).status, 201),
    availability_zone: async () => assert.ok((await h.ok(200, 'GET', '/v2.0/availability_zones', demo)).availability_zones.length > 0),
    network_availability_zone: () => has(net, 'availability_zones'),
    router_availability_zone: () => has(router, 'availability_zones'),
    'filter-validation': async () => assert.equal((await h.call('GET', '/v2.0/networks?colour=blue', demo)).status, 400),
    pagination: async () => has(await h.ok(200, 'GET', '/v2.0/networks?limit=1', demo), 'networks_links'),
    sorting: async () => assert.ok(Array.isArray((await h.ok(200, 'GET', '/v2.0/networks?sort_key=name&sort_dir=desc', demo)).networks)),
    'project-id': () => has(net, 'project_id'),
  };
  assert.deepEqual(aliases, Object.keys(proofs).sort(), 'each listed alias has its proof here');
  for (const proof of Object.values(proofs)) await proof();
  await h.ok(204, 'DELETE', `/v2.0/floatingips/${fip.id}`, demo);
  await h.ok(200, 'PUT', `/v2.0/routers/${router.id}`, demo, { router: { external_gateway_info: {} } });
  await h.ok(204, 'DELETE', `/v2.0/routers/${router.id}`, demo);
  await h.ok(204, 'DELETE', `/v2.0/ports/${port.id}`, demo);
  await h.ok(204, 'DELETE', `/v2.0/security-groups/${group.id}`, demo);
  await h.ok(204, 'DELETE', `/v2.0/networks/${net.id}`, demo);
});
