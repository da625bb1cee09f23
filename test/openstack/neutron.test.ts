// The Neutron client (src/openstack/neutron.ts) against the simulator: its reads (external networks by
// name and id, other projects' networks hidden, a repeated filter an OR, pages followed, faults), then its
// writes in the order a cluster's network is built and torn down: network, subnet, router (gateway, interface), security group and rules, ports
// (fixed IPs, groups, address pairs, tags), a floating IP, tags, quota usage; then the delete
// order of spec §3.2 with its 409s.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isCapacityError } from '../../src/openstack/errors.js';
import { requestJson, type CallRecord } from '../../src/openstack/http.js';
import { NeutronClient } from '../../src/openstack/neutron.js';
import { failure } from '../support/openstack.js';
import { startCloud, type Cloud } from './cloud.js';

let cloud: Cloud;
let neutron: NeutronClient;
before(async () => {
  cloud = await startCloud();
  neutron = new NeutronClient(await cloud.session('demo', 'network'));
});
after(() => cloud.close());

describe('reads: networks by filter, visibility, pages', () => {
  test('external networks by name and by id; visibility of other projects\' networks', async () => {
    const neutron = new NeutronClient(await cloud.session('demo', 'network'));
    const [pub] = await neutron.listNetworks({ 'router:external': true, name: 'public' });
    assert.ok(pub);
    assert.equal(pub['router:external'], true);
    assert.deepEqual((await neutron.listNetworks({ 'router:external': true, id: pub.id })).map((n) => n.name), ['public']);
    assert.equal((await neutron.getNetwork(pub.id)).id, pub.id);

    const priv = cloud.sims.neutron.state.addNetwork({ name: 'other-net', projectId: cloud.projectId('other') });
    try {
      assert.deepEqual(await neutron.listNetworks({ name: 'other-net' }), []);
      const e = await failure(() => neutron.getNetwork(priv.id));
      assert.deepEqual(e.body, { NeutronError: { type: 'NetworkNotFound', message: `Network ${priv.id} could not be found.`, detail: '' } });
      const other = new NeutronClient(await cloud.session('other', 'network'));
      assert.deepEqual((await other.listNetworks({ name: 'other-net' })).map((n) => n.id), [priv.id]);
      assert.deepEqual(await other.listNetworks({ name: 'other-net', 'router:external': true }), []);
    } finally {
      cloud.sims.neutron.state.removeNetwork(priv.id);
    }
  });

  test('a repeated filter is an OR; pages are followed to the end', async () => {
    const extra = ['a', 'b', 'c'].map((n) => cloud.sims.neutron.state.addNetwork({ name: `net-${n}`, projectId: cloud.projectId('demo') }));
    try {
      const calls: CallRecord[] = [];
      const neutron = new NeutronClient(await cloud.session('demo', 'network', { calls }));
      assert.equal((await neutron.listNetworks({ name: ['net-a', 'net-c'] })).length, 2);
      calls.length = 0;
      const all = await neutron.listNetworks({ limit: 1 });
      assert.deepEqual(all.map((n) => n.name).sort(), ['net-a', 'net-b', 'net-c', 'public']);
      assert.equal(calls.length, 5, 'four full pages, then the empty one');
    } finally {
      for (const n of extra) cloud.sims.neutron.state.removeNetwork(n.id);
    }
  });

  test('an unknown filter is a 400; a 503 fault is a 503', async () => {
    const s = await cloud.session('demo', 'network');
    const bad = await failure(() => requestJson(s, { path: '/v2.0/networks', query: { colour: 'blue' } }));
    assert.deepEqual([bad.status, bad.kind], [400, 'bad_request']);
    assert.deepEqual(bad.body, { NeutronError: { type: 'HTTPBadRequest', message: "['colour'] is invalid attribute for filtering", detail: '' } });
    cloud.sims.neutron.state.faults.inject({ status: 503, times: 1 });
    const e = await failure(() => new NeutronClient(s).listNetworks({ name: 'public' }));
    assert.deepEqual([e.status, e.kind], [503, 'server']);
  });
});

describe('a cluster network, built and torn down', () => {
  const cluster = 'c0ffee00-0000-4000-8000-000000000001';
  const ids: Record<string, string> = {};

  test('network and subnet; tags only after create (PUT tags), found by name and tag', async () => {
    const net = await neutron.networks.create({ name: `k8s-${cluster}`, description: cluster });
    ids.network = net.id;
    assert.deepEqual([net.status, net.admin_state_up, net['router:external'], net.tags], ['ACTIVE', true, false, []]);
    assert.deepEqual(await neutron.replaceTags('networks', net.id, [`cluster:${cluster}`]), [`cluster:${cluster}`]);
    await neutron.addTag('networks', net.id, 'magnum');
    await neutron.addTag('networks', net.id, 'magnum'); // 201 again: idempotent
    assert.deepEqual((await neutron.listNetworks({ tags: `cluster:${cluster},magnum` })).map((n) => n.id), [net.id]);
    assert.deepEqual((await neutron.listNetworks({ name: `k8s-${cluster}` })).map((n) => n.id), [net.id]);
    const versioned = new NeutronClient({ ...(await cloud.session('demo', 'network')), baseUrl: `${cloud.sims.urls.network}/v2.0` });
    assert.equal((await versioned.getNetwork(net.id)).id, net.id, 'a catalog URL ending in /v2.0 works too');

    const subnet = await neutron.subnets.create({ network_id: net.id, ip_version: 4, cidr: '10.0.0.0/24', name: `k8s-${cluster}`, dns_nameservers: ['8.8.8.8'] });
    ids.subnet = subnet.id;
    assert.deepEqual([subnet.cidr, subnet.gateway_ip, subnet.enable_dhcp, subnet.dns_nameservers], ['10.0.0.0/24', '10.0.0.1', true, ['8.8.8.8']]);
    assert.deepEqual((await neutron.getNetwork(net.id)).subnets, [subnet.id]);
    assert.deepEqual((await neutron.subnets.list({ network_id: net.id })).map((s) => s.id), [subnet.id]);
  });

  test('router with the external gateway, then the subnet as an interface (twice is a 400)', async () => {
    const [pub] = await neutron.listNetworks({ name: 'public', 'router:external': true });
    assert.ok(pub);
    ids.public = pub.id;
    const router = await neutron.routers.create({ name: `k8s-${cluster}`, external_gateway_info: { network_id: pub.id } });
    ids.router = router.id;
    assert.equal(router.external_gateway_info?.network_id, pub.id);
    const iface = await neutron.addRouterInterface(router.id, { subnet_id: ids.subnet! });
    assert.deepEqual([iface.id, iface.subnet_id, iface.network_id], [router.id, ids.subnet, ids.network]);
    const [port] = await neutron.ports.list({ device_id: router.id, network_id: ids.network! });
    assert.equal(port?.device_owner, 'network:router_interface');
    assert.equal(port?.fixed_ips[0]?.ip_address, '10.0.0.1');
    const again = await failure(() => neutron.addRouterInterface(router.id, { subnet_id: ids.subnet! }));
    assert.equal(again.status, 400);
  });

  test('security group with rules; a duplicate rule is 409 SecurityGroupRuleExists', async () => {
    const sg = await neutron.securityGroups.create({ name: `k8s-${cluster}-nodes`, description: cluster });
    ids.sg = sg.id;
    assert.equal(sg.security_group_rules.filter((r) => r.direction === 'egress').length, 2, 'two egress allow-all rules');
    const rule = { security_group_id: sg.id, direction: 'ingress' as const, ethertype: 'IPv4' as const, protocol: 'tcp', port_range_min: 6443, port_range_max: 6443, remote_ip_prefix: '0.0.0.0/0' };
    const created = await neutron.securityGroupRules.create(rule);
    assert.deepEqual([created.protocol, created.port_range_min, created.port_range_max], ['tcp', 6443, 6443]);
    const self = await neutron.securityGroupRules.create({ security_group_id: sg.id, direction: 'ingress', remote_group_id: sg.id });
    assert.equal(self.remote_group_id, sg.id);
    const dup = await failure(() => neutron.securityGroupRules.create(rule));
    assert.deepEqual([dup.status, dup.fault.type], [409, 'SecurityGroupRuleExists']);
    assert.equal(isCapacityError(dup), false);
    assert.equal((await neutron.securityGroupRules.list({ security_group_id: sg.id })).length, 4);
    assert.equal((await neutron.securityGroups.get(sg.id)).security_group_rules.length, 4);
  });

  test('rules in bulk: all made at once, or none (a rule already there, two alike, two groups)', async () => {
    const sg = await neutron.securityGroups.create({ name: `k8s-${cluster}-bulk` });
    const other = await neutron.securityGroups.create({ name: `k8s-${cluster}-bulk-other` });
    const count = async () => (await neutron.securityGroupRules.list({ security_group_id: sg.id })).length;
    const tcp = (port: number) => ({ security_group_id: sg.id, direction: 'ingress' as const, ethertype: 'IPv4' as const, protocol: 'tcp', port_range_min: port, port_range_max: port, remote_ip_prefix: '10.0.0.0/24' });
    const made = await neutron.createSecurityGroupRules([tcp(22), tcp(6443), { security_group_id: sg.id, direction: 'ingress', remote_group_id: other.id }]);
    assert.deepEqual(made.map((r) => [r.security_group_id, r.port_range_min, r.remote_group_id]), [[sg.id, 22, null], [sg.id, 6443, null], [sg.id, null, other.id]]);
    assert.equal(await count(), 5);
    const exists = await failure(() => neutron.createSecurityGroupRules([tcp(10250), tcp(22)]));
    assert.deepEqual([exists.status, exists.fault.type], [409, 'SecurityGroupRuleExists']);
    assert.match(exists.fault.message ?? '', new RegExp(made[0]!.id));
    const twice = await failure(() => neutron.createSecurityGroupRules([tcp(10250), tcp(10250)]));
    assert.deepEqual([twice.status, twice.fault.type], [409, 'DuplicateSecurityGroupRuleInPost']);
    const two = await failure(() => neutron.createSecurityGroupRules([tcp(10250), { ...tcp(10250), security_group_id: other.id }]));
    assert.deepEqual([two.status, two.fault.type], [400, 'SecurityGroupNotSingleGroupRules']);
    assert.equal(await count(), 5, 'none of the refused bulks made a rule');
    await neutron.securityGroups.delete(sg.id);
    await neutron.securityGroups.delete(other.id);
  });

  test('ports: fixed IP, security groups, allowed address pairs and tags at create; listed by tag, name and device', async () => {
    const port = await neutron.ports.create({
      network_id: ids.network!,
      name: `k8s-${cluster}-master-0`,
      fixed_ips: [{ subnet_id: ids.subnet!, ip_address: '10.0.0.10' }],
      security_groups: [ids.sg!],
      allowed_address_pairs: [{ ip_address: '10.100.0.0/16' }],
      tags: [`cluster:${cluster}`, 'role:master'],
    });
    ids.port = port.id;
    assert.deepEqual(port.fixed_ips, [{ subnet_id: ids.subnet, ip_address: '10.0.0.10' }]);
    assert.deepEqual(port.security_groups, [ids.sg]);
    assert.deepEqual(port.allowed_address_pairs.map((p) => p.ip_address), ['10.100.0.0/16']);
    assert.deepEqual(port.tags, [`cluster:${cluster}`, 'role:master']);
    assert.deepEqual((await neutron.ports.list({ tags: `cluster:${cluster}` })).map((p) => p.id), [port.id]);
    assert.deepEqual((await neutron.ports.list({ name: `k8s-${cluster}-master-0` })).map((p) => p.id), [port.id]);
    const updated = await neutron.ports.update(port.id, { device_id: 'server-1', device_owner: 'compute:nova' });
    assert.equal(updated.device_id, 'server-1');
    assert.deepEqual((await neutron.ports.list({ device_id: 'server-1' })).map((p) => p.id), [port.id]);
    const taken = await failure(() => neutron.ports.create({ network_id: ids.network!, fixed_ips: [{ ip_address: '10.0.0.10' }] }));
    assert.deepEqual([taken.status, taken.fault.type], [409, 'IpAddressAlreadyAllocated']);
  });

  test('floating IP: created on the external network, associated, found by port, disassociated', async () => {
    const fip = await neutron.floatingIps.create({ floating_network_id: ids.public!, description: cluster });
    ids.fip = fip.id;
    assert.equal(fip.port_id, null);
    assert.match(fip.floating_ip_address, /^127\.24\.4\./);
    const associated = await neutron.associateFloatingIp(fip.id, ids.port!);
    assert.deepEqual([associated.port_id, associated.fixed_ip_address, associated.router_id], [ids.port, '10.0.0.10', ids.router]);
    assert.deepEqual((await neutron.floatingIps.list({ port_id: ids.port! })).map((f) => f.id), [fip.id]);
    const inUse = await failure(() => neutron.setRouterGateway(ids.router!, null));
    assert.equal(inUse.status, 409, 'the gateway carries a floating IP');
    assert.equal((await neutron.disassociateFloatingIp(fip.id)).port_id, null);
  });

  test('quota usage counts what was made', async () => {
    const quota = await neutron.quotaDetails(cloud.projectId('demo'));
    assert.ok(quota.network!.used >= 1);
    assert.ok(quota.port!.used >= 2);
    assert.equal(typeof quota.floatingip!.limit, 'number');
    assert.equal((await failure(() => neutron.quotaDetails(cloud.projectId('other')))).status, 403);
  });

  test('teardown in order; each step refused (409) while its dependents remain; deletes of the gone are false', async () => {
    assert.equal(await neutron.floatingIps.delete(ids.fip!), true);
    const netInUse = await failure(() => neutron.networks.delete(ids.network!));
    assert.deepEqual([netInUse.status, netInUse.fault.type], [409, 'NetworkInUse']);
    const routerPort = await failure(async () => {
      const [p] = await neutron.ports.list({ device_id: ids.router! });
      return neutron.ports.delete(p!.id);
    });
    assert.deepEqual([routerPort.status, routerPort.fault.type], [409, 'ServicePortInUse']);
    const routerInUse = await failure(() => neutron.routers.delete(ids.router!));
    assert.deepEqual([routerInUse.status, routerInUse.fault.type], [409, 'RouterInUse']);
    await neutron.removeRouterInterface(ids.router!, { subnet_id: ids.subnet! });
    assert.equal((await neutron.setRouterGateway(ids.router!, null)).external_gateway_info, null);
    assert.equal(await neutron.routers.delete(ids.router!), true);
    const sgInUse = await failure(() => neutron.securityGroups.delete(ids.sg!));
    assert.deepEqual([sgInUse.status, sgInUse.fault.type], [409, 'SecurityGroupInUse']);
    assert.equal(await neutron.ports.delete(ids.port!), true);
    assert.equal(await neutron.ports.delete(ids.port!), false);
    assert.equal(await neutron.subnets.delete(ids.subnet!), true);
    assert.equal(await neutron.networks.delete(ids.network!), true);
    assert.equal(await neutron.securityGroups.delete(ids.sg!), true);
    assert.equal(await neutron.networks.delete(ids.network!), false);
    assert.equal((await failure(() => neutron.getNetwork(ids.network!))).status, 404);
  });
});
