// Neutron simulator routers, floating IPs and security groups over HTTP (spec openstack-apis
// §3.1, §3.2): the gateway's SNAT address, router interfaces, floating IP association and
// reachability, security group rules, and every 409 on delete.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NeutronVipAllocator } from '../../cloudsim/neutron/index.js';
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

/** A demo network with one subnet. */
async function lan(cidr: string) {
  const network = (await h.ok(201, 'POST', '/v2.0/networks', demo, { network: { name: `lan-${cidr}` } })).network;
  const subnet = (await h.ok(201, 'POST', '/v2.0/subnets', demo, { subnet: { network_id: network.id, ip_version: 4, cidr } })).subnet;
  return { network, subnet };
}
const router = async (body: Record<string, unknown> = {}) => (await h.ok(201, 'POST', '/v2.0/routers', demo, { router: { name: 'r', ...body } })).router;
const gw = () => ({ network_id: h.publicNet() });
const iface = (id: string, op: 'add' | 'remove') => `/v2.0/routers/${id}/${op}_router_interface`;

describe('routers', () => {
  test('gateway: SNAT address from the public subnet; set, clear, 400 for a non-external network, admin-only enable_snat', async () => {
    const r = await router({ external_gateway_info: gw() });
    const info = r.external_gateway_info;
    assert.equal(info.network_id, h.publicNet());
    assert.equal(info.enable_snat, true);
    assert.match(info.external_fixed_ips[0].ip_address, /^127\.24\.4\.\d+$/);
    const gwPort = [...h.sims.neutron.state.ports.values()].find((p) => p.deviceId === r.id)!;
    assert.deepEqual([gwPort.deviceOwner, gwPort.fixedIps[0]!.ipAddress], ['network:router_gateway', info.external_fixed_ips[0].ip_address]);
    const cleared = await h.ok(200, 'PUT', `/v2.0/routers/${r.id}`, demo, { router: { external_gateway_info: {} } });
    assert.equal(cleared.router.external_gateway_info, null);
    assert.equal(h.sims.neutron.state.ports.has(gwPort.id), false);
    const { network } = await lan('10.40.0.0/24');
    const msg = await h.fails(400, 'BadRequest', 'PUT', `/v2.0/routers/${r.id}`, demo, { router: { external_gateway_info: { network_id: network.id } } });
    assert.equal(msg, `Bad router request: Network ${network.id} is not an external network.`);
    await h.fails(403, 'PolicyNotAuthorized', 'POST', '/v2.0/routers', demo, { router: { external_gateway_info: { ...gw(), enable_snat: false } } });
    const own = await h.ok(201, 'POST', '/v2.0/routers', admin, { router: { external_gateway_info: { ...gw(), enable_snat: false, external_fixed_ips: [{ ip_address: '127.24.4.200' }] } } });
    assert.deepEqual([own.router.external_gateway_info.enable_snat, own.router.external_gateway_info.external_fixed_ips[0].ip_address], [false, '127.24.4.200']);
    await h.fails(409, 'IpAddressAlreadyAllocated', 'POST', '/v2.0/routers', admin, { router: { external_gateway_info: { ...gw(), external_fixed_ips: [{ ip_address: '127.24.4.200' }] } } });
    await h.fails(400, 'HTTPBadRequest', 'POST', '/v2.0/routers', demo, { router: { tags: ['a'] } });
    await h.ok(204, 'DELETE', `/v2.0/routers/${own.router.id}`, admin);
    await h.ok(204, 'DELETE', `/v2.0/routers/${r.id}`, demo);
    await h.fails(404, 'RouterNotFound', 'GET', `/v2.0/routers/${r.id}`, demo);
  });

  test('interfaces by subnet and by port, their errors, RouterInUse, ServicePortInUse, NetworkInUse', async () => {
    const r = await router();
    const a = await lan('10.41.0.0/24');
    const added = await h.ok(200, 'PUT', iface(r.id, 'add'), demo, { subnet_id: a.subnet.id });
    assert.deepEqual([added.id, added.subnet_id, added.subnet_ids, added.network_id], [r.id, a.subnet.id, [a.subnet.id], a.network.id]);
    const ifPort = (await h.ok(200, 'GET', `/v2.0/ports/${added.port_id}`, demo)).port;
    assert.deepEqual([ifPort.device_owner, ifPort.device_id, ifPort.fixed_ips[0].ip_address], ['network:router_interface', r.id, '10.41.0.1']);
    assert.equal(await h.fails(400, 'BadRequest', 'PUT', iface(r.id, 'add'), demo, { subnet_id: a.subnet.id }), `Bad router request: Router already has a port on subnet ${a.subnet.id}.`);
    const b = await lan('10.41.0.0/16');
    assert.match(await h.fails(400, 'BadRequest', 'PUT', iface(r.id, 'add'), demo, { subnet_id: b.subnet.id }), /^Bad router request: Cidr 10\.41\.0\.0\/16 of subnet .* overlaps with cidr 10\.41\.0\.0\/24/);
    const noGw = (await h.ok(201, 'POST', '/v2.0/subnets', demo, { subnet: { network_id: b.network.id, ip_version: 4, cidr: '10.99.0.0/24', gateway_ip: null } })).subnet;
    assert.equal(await h.fails(400, 'BadRequest', 'PUT', iface(r.id, 'add'), demo, { subnet_id: noGw.id }), 'Bad router request: Subnet for router interface must have a gateway IP.');
    await h.fails(400, 'BadRequest', 'PUT', iface(r.id, 'add'), demo, {});
    await h.fails(400, 'BadRequest', 'PUT', iface(r.id, 'add'), demo, { subnet_id: a.subnet.id, port_id: 'x' });
    // By port: a free port becomes the interface; a port with a device is 409 PortInUse.
    const c = await lan('10.42.0.0/24');
    const free = (await h.ok(201, 'POST', '/v2.0/ports', demo, { port: { network_id: c.network.id } })).port;
    const vm = (await h.ok(201, 'POST', '/v2.0/ports', demo, { port: { network_id: c.network.id, device_id: 'srv', device_owner: 'compute:nova' } })).port;
    await h.fails(409, 'PortInUse', 'PUT', iface(r.id, 'add'), demo, { port_id: vm.id });
    const byPort = await h.ok(200, 'PUT', iface(r.id, 'add'), demo, { port_id: free.id });
    assert.deepEqual([byPort.port_id, byPort.subnet_id], [free.id, c.subnet.id]);
    // What the interfaces block.
    assert.equal(await h.fails(409, 'RouterInUse', 'DELETE', `/v2.0/routers/${r.id}`, demo), `Router ${r.id} has ports still attached: ${added.port_id}, ${free.id}`);
    assert.match(await h.fails(409, 'ServicePortInUse', 'DELETE', `/v2.0/ports/${added.port_id}`, demo), /cannot be deleted directly via the port API: has device owner network:router_interface/);
    await h.fails(409, 'NetworkInUse', 'DELETE', `/v2.0/networks/${a.network.id}`, demo);
    await h.fails(409, 'SubnetInUse', 'DELETE', `/v2.0/subnets/${a.subnet.id}`, demo);
    // Removal by subnet and by port; then everything deletes.
    await h.fails(404, 'RouterInterfaceNotFoundForSubnet', 'PUT', iface(r.id, 'remove'), demo, { subnet_id: b.subnet.id });
    await h.fails(404, 'RouterInterfaceNotFound', 'PUT', iface(r.id, 'remove'), demo, { port_id: vm.id });
    assert.equal((await h.ok(200, 'PUT', iface(r.id, 'remove'), demo, { subnet_id: a.subnet.id })).port_id, added.port_id);
    await h.ok(200, 'PUT', iface(r.id, 'remove'), demo, { port_id: free.id });
    await h.ok(204, 'DELETE', `/v2.0/routers/${r.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/networks/${a.network.id}`, demo);
    await h.fails(404, 'RouterNotFound', 'PUT', iface(r.id, 'add'), other, { subnet_id: c.subnet.id });
  });
});

describe('floating IPs', () => {
  test('allocate, associate through a router, disassociate, and the errors', async () => {
    const l = await lan('10.50.0.0/24');
    const vm = (await h.ok(201, 'POST', '/v2.0/ports', demo, { port: { network_id: l.network.id } })).port;
    const fip = (await h.ok(201, 'POST', '/v2.0/floatingips', demo, { floatingip: { floating_network_id: h.publicNet(), description: 'cluster-x' } })).floatingip;
    assert.deepEqual([fip.status, fip.port_id, fip.router_id, fip.description], ['DOWN', null, null, 'cluster-x']);
    assert.match(fip.floating_ip_address, /^127\.24\.4\.\d+$/);
    // No router between the port's subnet and the external network.
    const msg = await h.fails(404, 'ExternalGatewayForFloatingIPNotFound', 'PUT', `/v2.0/floatingips/${fip.id}`, demo, { floatingip: { port_id: vm.id } });
    assert.equal(msg, `External network ${h.publicNet()} is not reachable from subnet ${l.subnet.id}.  Therefore, cannot associate Port ${vm.id} with a Floating IP.`);
    const r = await router({ external_gateway_info: gw() });
    const added = await h.ok(200, 'PUT', iface(r.id, 'add'), demo, { subnet_id: l.subnet.id });
    const assoc = (await h.ok(200, 'PUT', `/v2.0/floatingips/${fip.id}`, demo, { floatingip: { port_id: vm.id } })).floatingip;
    assert.deepEqual([assoc.status, assoc.port_id, assoc.fixed_ip_address, assoc.router_id], ['ACTIVE', vm.id, vm.fixed_ips[0].ip_address, r.id]);
    await h.fails(409, 'FloatingIPPortAlreadyAssociated', 'POST', '/v2.0/floatingips', demo, { floatingip: { floating_network_id: h.publicNet(), port_id: vm.id } });
    await h.fails(400, 'BadRequest', 'PUT', `/v2.0/floatingips/${fip.id}`, demo, { floatingip: { port_id: vm.id, fixed_ip_address: '10.50.0.200' } });
    // What the association blocks.
    await h.fails(409, 'RouterInterfaceInUseByFloatingIP', 'PUT', iface(r.id, 'remove'), demo, { subnet_id: l.subnet.id });
    await h.fails(409, 'RouterExternalGatewayInUseByFloatingIp', 'PUT', `/v2.0/routers/${r.id}`, demo, { router: { external_gateway_info: null } });
    const off = (await h.ok(200, 'PUT', `/v2.0/floatingips/${fip.id}`, demo, { floatingip: { port_id: null } })).floatingip;
    assert.deepEqual([off.status, off.port_id, off.router_id], ['DOWN', null, null]);
    await h.ok(200, 'PUT', `/v2.0/floatingips/${fip.id}`, demo, { floatingip: { port_id: vm.id } });
    // Deleting the port disassociates.
    await h.ok(204, 'DELETE', `/v2.0/ports/${vm.id}`, demo);
    assert.equal((await h.ok(200, 'GET', `/v2.0/floatingips/${fip.id}`, demo)).floatingip.port_id, null);
    await h.fails(400, 'BadRequest', 'POST', '/v2.0/floatingips', demo, { floatingip: { floating_network_id: l.network.id } });
    await h.fails(403, 'PolicyNotAuthorized', 'POST', '/v2.0/floatingips', demo, { floatingip: { floating_network_id: h.publicNet(), floating_ip_address: '127.24.4.99' } });
    await h.fails(404, 'FloatingIPNotFound', 'GET', `/v2.0/floatingips/${fip.id}`, other);
    const otherFip = (await h.ok(201, 'POST', '/v2.0/floatingips', other, { floatingip: { floating_network_id: h.publicNet() } })).floatingip;
    await h.fails(404, 'PortNotFound', 'PUT', `/v2.0/floatingips/${otherFip.id}`, other, { floatingip: { port_id: l.subnet.id } });
    await h.ok(204, 'DELETE', `/v2.0/floatingips/${otherFip.id}`, other);
    await h.ok(204, 'DELETE', `/v2.0/floatingips/${fip.id}`, demo);
    await h.ok(200, 'PUT', iface(r.id, 'remove'), demo, { port_id: added.port_id });
    await h.ok(204, 'DELETE', `/v2.0/routers/${r.id}`, demo);
  });

  test('an exhausted external pool is 409 IpAddressGenerationFailure', async () => {
    const ext = (await h.ok(201, 'POST', '/v2.0/networks', admin, { network: { name: 'tiny-ext', 'router:external': true, shared: true } })).network;
    await h.ok(201, 'POST', '/v2.0/subnets', admin, { subnet: { network_id: ext.id, ip_version: 4, cidr: '127.51.100.0/30', enable_dhcp: false } });
    await h.ok(201, 'POST', '/v2.0/floatingips', demo, { floatingip: { floating_network_id: ext.id } });
    assert.equal(await h.fails(409, 'IpAddressGenerationFailure', 'POST', '/v2.0/floatingips', demo, { floatingip: { floating_network_id: ext.id } }), `No more IP addresses available on network ${ext.id}.`);
  });
});

describe('security groups', () => {
  test('default group created lazily with 4 rules; new groups get 2 egress rules; default is protected', async () => {
    const list = (await h.ok(200, 'GET', '/v2.0/security-groups', other)).security_groups;
    assert.deepEqual(list.map((g: { name: string }) => g.name), ['default']);
    const def = list[0];
    assert.deepEqual(def.security_group_rules.map((r: { direction: string; ethertype: string }) => `${r.direction}/${r.ethertype}`).sort(), ['egress/IPv4', 'egress/IPv6', 'ingress/IPv4', 'ingress/IPv6']);
    const sg = (await h.ok(201, 'POST', '/v2.0/security-groups', other, { security_group: { name: 'web', description: 'd' } })).security_group;
    assert.deepEqual(sg.security_group_rules.map((r: { direction: string; ethertype: string; remote_ip_prefix: null }) => [r.direction, r.ethertype, r.remote_ip_prefix]), [['egress', 'IPv4', null], ['egress', 'IPv6', null]]);
    assert.equal((await h.ok(200, 'PUT', `/v2.0/security-groups/${sg.id}`, other, { security_group: { name: 'web2' } })).security_group.name, 'web2');
    await h.fails(409, 'SecurityGroupCannotRemoveDefault', 'DELETE', `/v2.0/security-groups/${def.id}`, other);
    await h.fails(409, 'SecurityGroupCannotUpdateDefault', 'PUT', `/v2.0/security-groups/${def.id}`, other, { security_group: { name: 'x' } });
    await h.fails(409, 'SecurityGroupDefaultAlreadyExists', 'POST', '/v2.0/security-groups', other, { security_group: { name: 'default' } });
    await h.fails(400, 'HTTPBadRequest', 'POST', '/v2.0/security-groups', other, { security_group: { name: 'x', tags: ['t'] } });
    await h.fails(404, 'SecurityGroupNotFound', 'GET', `/v2.0/security-groups/${sg.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/security-groups/${sg.id}`, other);
  });

  test('rules: validation table, duplicates 409 SecurityGroupRuleExists, normalised prefix', async () => {
    const sg = (await h.ok(201, 'POST', '/v2.0/security-groups', demo, { security_group: { name: 'rules' } })).security_group;
    const peer = (await h.ok(201, 'POST', '/v2.0/security-groups', demo, { security_group: { name: 'peer' } })).security_group;
    const rule = (body: Record<string, unknown>) => ({ security_group_rule: { security_group_id: sg.id, direction: 'ingress', ...body } });
    const ssh = (await h.ok(201, 'POST', '/v2.0/security-group-rules', demo, rule({ protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_ip_prefix: '10.0.0.7/8' }))).security_group_rule;
    assert.deepEqual([ssh.remote_ip_prefix, ssh.ethertype, ssh.protocol], ['10.0.0.0/8', 'IPv4', 'tcp']);
    const dup = await h.fails(409, 'SecurityGroupRuleExists', 'POST', '/v2.0/security-group-rules', demo, rule({ protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_ip_prefix: '10.0.0.0/8' }));
    assert.equal(dup, `Security group rule already exists. Rule id is ${ssh.id}.`);
    await h.ok(201, 'POST', '/v2.0/security-group-rules', demo, rule({ protocol: 'icmp', port_range_min: 8, port_range_max: 0 }));
    await h.ok(201, 'POST', '/v2.0/security-group-rules', demo, rule({ remote_group_id: peer.id, ethertype: 'IPv6', protocol: 'udp' }));
    const cases: [Record<string, unknown>, string][] = [
      [{ port_range_min: 22, port_range_max: 22 }, 'SecurityGroupProtocolRequiredWithPorts'],
      [{ protocol: 'tcp', port_range_min: 90, port_range_max: 80 }, 'SecurityGroupInvalidPortRange'],
      [{ protocol: 'tcp', port_range_min: 0, port_range_max: 80 }, 'SecurityGroupInvalidPortValue'],
      [{ protocol: 'icmp', port_range_min: 300 }, 'SecurityGroupInvalidIcmpValue'],
      [{ protocol: 'gre', port_range_min: 1, port_range_max: 2 }, 'SecurityGroupInvalidProtocolForPort'],
      [{ protocol: 'banana' }, 'SecurityGroupRuleInvalidProtocol'],
      [{ remote_ip_prefix: '10.0.0.0/8', remote_group_id: peer.id }, 'SecurityGroupRemoteGroupAndRemoteIpPrefix'],
      [{ ethertype: 'IPv6', remote_ip_prefix: '10.0.0.0/8' }, 'SecurityGroupRuleParameterConflict'],
      [{ direction: 'sideways' }, 'HTTPBadRequest'],
    ];
    for (const [body, type] of cases) await h.fails(400, type, 'POST', '/v2.0/security-group-rules', demo, rule(body));
    await h.fails(404, 'SecurityGroupNotFound', 'POST', '/v2.0/security-group-rules', demo, rule({ remote_group_id: 'nope' }));
    await h.fails(404, 'SecurityGroupNotFound', 'POST', '/v2.0/security-group-rules', other, rule({}));
    const listed = (await h.ok(200, 'GET', `/v2.0/security-group-rules?security_group_id=${sg.id}&direction=ingress`, demo)).security_group_rules;
    assert.equal(listed.length, 3);
    // A group another group's rule points at is in use; so is a group on a port.
    assert.equal(await h.fails(409, 'SecurityGroupInUse', 'DELETE', `/v2.0/security-groups/${peer.id}`, demo), `Security Group ${peer.id} in use.`);
    const l = await lan('10.60.0.0/24');
    const p = (await h.ok(201, 'POST', '/v2.0/ports', demo, { port: { network_id: l.network.id, security_groups: [sg.id] } })).port;
    await h.fails(409, 'SecurityGroupInUse', 'DELETE', `/v2.0/security-groups/${sg.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/ports/${p.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/security-group-rules/${ssh.id}`, demo);
    await h.fails(404, 'SecurityGroupRuleNotFound', 'DELETE', `/v2.0/security-group-rules/${ssh.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/security-groups/${sg.id}`, demo);
    await h.ok(204, 'DELETE', `/v2.0/security-groups/${peer.id}`, demo);
  });
});

describe('Octavia VIP ports', () => {
  test('NeutronVipAllocator holds a real port: it blocks the network until released', async () => {
    const vip = new NeutronVipAllocator(h.sims.neutron.state);
    const l = await lan('10.70.0.0/24');
    const port = vip.allocate({ projectId: l.network.project_id, lbId: 'lb1', subnetId: l.subnet.id });
    assert.deepEqual([port.address, port.deviceOwner, port.deviceId], ['10.70.0.2', 'Octavia', 'lb-lb1']);
    const shown = (await h.ok(200, 'GET', `/v2.0/ports/${port.id}`, demo)).port;
    assert.deepEqual([shown.name, shown.fixed_ips[0].ip_address], ['octavia-lb-lb1', '10.70.0.2']);
    assert.throws(() => vip.allocate({ projectId: 'p', lbId: 'lb2', subnetId: l.subnet.id, address: '10.70.0.2' }), /already allocated/);
    await h.fails(409, 'NetworkInUse', 'DELETE', `/v2.0/networks/${l.network.id}`, demo);
    vip.release(port.id);
    await h.ok(204, 'DELETE', `/v2.0/networks/${l.network.id}`, demo);
  });
});
