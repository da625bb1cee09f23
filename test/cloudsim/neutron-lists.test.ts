// Neutron's lists answered from indexes: filters on indexed attributes (device_id, network_id, tags,
// port_id, floating_ip_address, security_group_id) follow every change of what they file, and
// what a project sees of others' resources (shared networks, ports on its networks) is unchanged.
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

const ids = (items: { id: string }[]) => items.map((i) => i.id).sort();

describe('lists by index', () => {
  test("a port's device_id, name, tags and fixed IPs are found by their new values after a change", async () => {
    const n = (await h.ok(201, 'POST', '/v2.0/networks', demo, { network: { name: 'ix-net' } })).network;
    const s = (await h.ok(201, 'POST', '/v2.0/subnets', demo, { subnet: { network_id: n.id, ip_version: 4, cidr: '10.61.0.0/24' } })).subnet;
    const p = (await h.ok(201, 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, name: 'before', device_id: 'dev-1' } })).port;
    const list = async (q: string) => ids((await h.ok(200, 'GET', `/v2.0/ports?${q}`, demo)).ports);
    assert.deepEqual(await list('device_id=dev-1'), [p.id]);
    assert.deepEqual(await list(`network_id=${n.id}`), [p.id]);
    await h.ok(200, 'PUT', `/v2.0/ports/${p.id}`, demo, { port: { name: 'after', device_id: 'dev-2', fixed_ips: [{ subnet_id: s.id, ip_address: '10.61.0.77' }] } });
    assert.deepEqual(await list('device_id=dev-1'), []);
    assert.deepEqual(await list('device_id=dev-2'), [p.id]);
    assert.deepEqual(await list('name=before'), []);
    assert.deepEqual(await list('name=after&device_id=dev-2'), [p.id]);
    // The old address is free again, the new one taken.
    await h.fails(409, 'IpAddressAlreadyAllocated', 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, fixed_ips: [{ ip_address: '10.61.0.77' }] } });
    const reuse = (await h.ok(201, 'POST', '/v2.0/ports', demo, { port: { network_id: n.id, fixed_ips: [{ ip_address: p.fixed_ips[0].ip_address }] } })).port;
    await h.ok(201, 'PUT', `/v2.0/ports/${p.id}/tags/ix`, demo);
    assert.deepEqual(await list('tags=ix'), [p.id]);
    assert.deepEqual(await list('tags-any=ix,nothing'), [p.id]);
    await h.ok(204, 'DELETE', `/v2.0/ports/${p.id}/tags`, demo);
    assert.deepEqual(await list('tags=ix'), []);
    for (const id of [p.id, reuse.id]) await h.ok(204, 'DELETE', `/v2.0/ports/${id}`, demo);
    assert.deepEqual(await list(`network_id=${n.id}`), []);
    await h.ok(204, 'DELETE', `/v2.0/networks/${n.id}`, demo);
  });

  test("a floating IP is found by its port while associated, and not after its port goes", async () => {
    const n = (await h.ok(201, 'POST', '/v2.0/networks', demo, { network: { name: 'ix-fip' } })).network;
    const s = (await h.ok(201, 'POST', '/v2.0/subnets', demo, { subnet: { network_id: n.id, ip_version: 4, cidr: '10.62.0.0/24' } })).subnet;
    const r = (await h.ok(201, 'POST', '/v2.0/routers', demo, { router: { external_gateway_info: { network_id: h.publicNet() } } })).router;
    await h.ok(200, 'PUT', `/v2.0/routers/${r.id}/add_router_interface`, demo, { subnet_id: s.id });
    const p = (await h.ok(201, 'POST', '/v2.0/ports', demo, { port: { network_id: n.id } })).port;
    const fip = (await h.ok(201, 'POST', '/v2.0/floatingips', demo, { floatingip: { floating_network_id: h.publicNet() } })).floatingip;
    const byPort = async () => ids((await h.ok(200, 'GET', `/v2.0/floatingips?port_id=${p.id}`, demo)).floatingips);
    assert.deepEqual(await byPort(), []);
    await h.ok(200, 'PUT', `/v2.0/floatingips/${fip.id}`, demo, { floatingip: { port_id: p.id } });
    assert.deepEqual(await byPort(), [fip.id]);
    assert.deepEqual(ids((await h.ok(200, 'GET', `/v2.0/floatingips?router_id=${r.id}`, demo)).floatingips), [fip.id]);
    assert.deepEqual(ids((await h.ok(200, 'GET', `/v2.0/floatingips?floating_ip_address=${fip.floating_ip_address}`, demo)).floatingips), [fip.id]);
    assert.deepEqual(ids((await h.ok(200, 'GET', `/v2.0/floatingips?floating_ip_address=${fip.floating_ip_address}`, other)).floatingips), []);
    await h.ok(204, 'DELETE', `/v2.0/ports/${p.id}`, demo);
    assert.deepEqual(await byPort(), []);
    assert.equal((await h.ok(200, 'GET', `/v2.0/floatingips/${fip.id}`, demo)).floatingip.router_id, null);
    await h.ok(204, 'DELETE', `/v2.0/floatingips/${fip.id}`, demo);
    await h.ok(200, 'PUT', `/v2.0/routers/${r.id}/remove_router_interface`, demo, { subnet_id: s.id });
    await h.ok(204, 'DELETE', `/v2.0/routers/${r.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/networks/${n.id}`, demo);
  });

  test("others see a shared network's subnets and their own ports on it; the owner sees those ports too", async () => {
    const n = (await h.ok(201, 'POST', '/v2.0/networks', admin, { network: { name: 'ix-shared', shared: true, project_id: h.keystone.state.projectId('demo') } })).network;
    const s = (await h.ok(201, 'POST', '/v2.0/subnets', demo, { subnet: { network_id: n.id, ip_version: 4, cidr: '10.63.0.0/24' } })).subnet;
    assert.deepEqual(ids((await h.ok(200, 'GET', '/v2.0/subnets', other)).subnets).includes(s.id), true);
    assert.deepEqual(ids((await h.ok(200, 'GET', '/v2.0/networks', other)).networks).includes(n.id), true);
    const theirs = (await h.ok(201, 'POST', '/v2.0/ports', other, { port: { network_id: n.id } })).port;
    assert.deepEqual(ids((await h.ok(200, 'GET', '/v2.0/ports', demo)).ports).includes(theirs.id), true, 'the network owner sees ports on it');
    assert.deepEqual(ids((await h.ok(200, 'GET', `/v2.0/ports?network_id=${n.id}`, other)).ports), [theirs.id]);
    await h.ok(204, 'DELETE', `/v2.0/ports/${theirs.id}`, other);
    await h.ok(200, 'PUT', `/v2.0/networks/${n.id}`, admin, { network: { shared: false } });
    assert.deepEqual(ids((await h.ok(200, 'GET', '/v2.0/subnets', other)).subnets).includes(s.id), false, 'no longer shared');
    assert.deepEqual(ids((await h.ok(200, 'GET', '/v2.0/networks', other)).networks).includes(n.id), false);
    await h.ok(204, 'DELETE', `/v2.0/networks/${n.id}`, demo);
  });

  test("security group rules by group, and a group's rules in its body, follow creates and deletes", async () => {
    const sg = (await h.ok(201, 'POST', '/v2.0/security-groups', demo, { security_group: { name: 'ix-sg' } })).security_group;
    assert.equal(sg.security_group_rules.length, 2);
    const rule = (await h.ok(201, 'POST', '/v2.0/security-group-rules', demo, { security_group_rule: { security_group_id: sg.id, direction: 'ingress', protocol: 'tcp', port_range_min: 22, port_range_max: 22 } }))
      .security_group_rule;
    const ofGroup = async () => ids((await h.ok(200, 'GET', `/v2.0/security-group-rules?security_group_id=${sg.id}`, demo)).security_group_rules);
    assert.equal((await ofGroup()).length, 3);
    assert.equal((await h.ok(200, 'GET', `/v2.0/security-groups/${sg.id}`, demo)).security_group.security_group_rules.length, 3);
    await h.ok(204, 'DELETE', `/v2.0/security-group-rules/${rule.id}`, demo);
    assert.equal((await ofGroup()).includes(rule.id), false);
    await h.ok(200, 'PUT', `/v2.0/security-groups/${sg.id}`, demo, { security_group: { name: 'ix-sg-renamed' } });
    assert.deepEqual(ids((await h.ok(200, 'GET', '/v2.0/security-groups?name=ix-sg-renamed', demo)).security_groups), [sg.id]);
    assert.deepEqual(ids((await h.ok(200, 'GET', '/v2.0/security-groups?name=ix-sg', demo)).security_groups), []);
    await h.ok(204, 'DELETE', `/v2.0/security-groups/${sg.id}`, demo);
    assert.deepEqual(await ofGroup(), []);
  });
});
