// The real-OpenStack harness proven with the real `openstack` CLI: in a fresh project whose users mirror the
// demo project's (a member with load-balancer_member, a member without it, a reader), the calls the product's
// workers make are accepted by Debian's Zed services and their results look as on a real cloud: a tenant
// network behind a router, a security group with a remote-group rule, a port, a soft-anti-affinity server
// group, a server booted from the port with user-data, floating IPs from the loopback range on the port and on
// a load balancer's VIP, a fully populated load balancer whose children stay PENDING_CREATE (Zed without
// jobboard), Octavia's two policies, a server that cannot be placed; then everything is deleted and nothing of
// the project remains.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inPublicRange, TENANT_CIDR } from '../support/real-openstack/addresses.js';
import { openstackCli, type OpenStackCli } from '../support/real-openstack/cli.js';
import { startRealOpenStack, type RealOpenStack, type Tenant } from '../support/real-openstack/index.js';
import { call, login } from '../support/real-openstack/rest.js';

type Who = 'admin' | 'member' | 'memberOnly' | 'reader' | 'demo';

describe('real OpenStack harness (Debian Zed on loopback, driven by the openstack CLI)', { timeout: 900_000 }, () => {
  let cloud: RealOpenStack;
  let tenant: Tenant;
  let os: OpenStackCli<Who>;
  let work: string;
  const ids: Record<string, string> = {};
  const image = 'ubuntu-2404-kube-v1.35.5';

  // A first run on a bare machine installs about 300 packages (~8 min) and makes the pristine cloud (~2 min).
  before(async () => {
    cloud = await startRealOpenStack();
    tenant = await cloud.newTenant('harness');
    os = await openstackCli<Who>(cloud.authUrl, cloud.region, {
      admin: cloud.admin, member: tenant.member, memberOnly: tenant.memberOnly, reader: tenant.reader, demo: cloud.demo.member,
    });
    work = await mkdtemp(join(tmpdir(), 'realos-test-'));
  }, { timeout: 1_800_000 });

  after(async () => {
    await cloud?.setOctaviaPolicy('default');
    await os?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('serves every service on loopback with the catalog, the demo users, flavors, images and a loopback public network', async () => {
    for (const u of Object.values(cloud.endpoints)) assert.match(u, /^http:\/\/127\.0\.0\.1:\d+(\/|$)/);
    const catalog = await os.json<{ Name: string; Type: string }[]>('demo', ['catalog', 'list']);
    assert.deepEqual(
      catalog.map((c) => c.Type).sort(),
      ['block-storage', 'compute', 'identity', 'image', 'load-balancer', 'network', 'placement', 'volumev3'],
    );
    const demo = await login(cloud.authUrl, cloud.demo.member);
    assert.deepEqual((demo.body.token.roles as { name: string }[]).map((r) => r.name).filter((r) => r !== 'reader').sort(), ['load-balancer_member', 'member']);
    const flavors = await os.json<{ Name: string }[]>('member', ['flavor', 'list']);
    for (const f of ['m1.tiny', 'm1.small', 'm1.medium', 'm1.large']) assert.ok(flavors.some((x) => x.Name === f), f);
    const img = await os.json<{ properties: Record<string, string>; disk_format: string; size: number; visibility: string }>('member', ['image', 'show', image]);
    assert.equal(img.properties.os_distro, 'ubuntu');
    assert.equal(img.properties.kube_version, 'v1.35.5');
    assert.equal(img.disk_format, 'raw');
    assert.equal(img.size, 1 << 20);
    assert.equal(img.visibility, 'public');
    const coreos = await os.json<{ properties: Record<string, string> }>('member', ['image', 'show', 'fedora-coreos-43']);
    assert.equal(coreos.properties.os_distro, 'fedora-coreos');
    const pub = await os.json<{ 'router:external': boolean; is_default: boolean; shared: boolean }>('member', ['network', 'show', 'public']);
    assert.equal(pub['router:external'], true);
    assert.equal(pub.is_default, true);
    assert.equal(pub.shared, true);
    const sub = await os.json<{ cidr: string }>('admin', ['subnet', 'show', cloud.publicNetwork.subnetId]);
    assert.equal(sub.cidr, '127.24.4.0/24');
  });

  it('builds a network, subnet and router with gateway and interface, a security group with a remote-group rule and a port', async () => {
    ids.net = (await os.json('member', ['network', 'create', 'net1'])).id;
    ids.subnet = (await os.json('member', ['subnet', 'create', 'sub1', '--network', 'net1', '--subnet-range', TENANT_CIDR])).id;
    ids.router = (await os.json('member', ['router', 'create', 'r1'])).id;
    await os.ok('member', ['router', 'set', 'r1', '--external-gateway', 'public']);
    await os.ok('member', ['router', 'add', 'subnet', 'r1', 'sub1']);
    const router = await os.json('member', ['router', 'show', 'r1']);
    const gw = typeof router.external_gateway_info === 'string' ? JSON.parse(router.external_gateway_info) : router.external_gateway_info;
    assert.equal(gw.network_id, cloud.publicNetwork.id);
    assert.ok(gw.external_fixed_ips.every((f: { ip_address: string }) => inPublicRange(f.ip_address)), JSON.stringify(gw));
    const interfaces = await os.json<{ 'Device Owner': string; 'Fixed IP Addresses': { subnet_id: string }[] }[]>('member', ['port', 'list', '--router', 'r1', '--long']);
    const iface = interfaces.find((p) => p['Device Owner'] === 'network:router_interface');
    assert.equal(iface?.['Fixed IP Addresses'][0]?.subnet_id, ids.subnet, JSON.stringify(interfaces));

    ids.sg = (await os.json('member', ['security', 'group', 'create', 'sg1'])).id;
    const rule = await os.json('member', ['security', 'group', 'rule', 'create', 'sg1', '--protocol', 'tcp', '--dst-port', '6443', '--remote-group', 'sg1']);
    assert.equal(rule.remote_group_id, ids.sg);
    const port = await os.json('member', ['port', 'create', 'p1', '--network', 'net1', '--security-group', 'sg1']);
    ids.port = port.id;
    assert.deepEqual(port.security_group_ids, [ids.sg]);
  });

  it('boots a server from the port with user-data in a soft-anti-affinity server group (microversion 2.79), and puts a loopback floating IP on it', async () => {
    const group = await os.json('member', ['--os-compute-api-version', '2.79', 'server', 'group', 'create', 'grp1', '--policy', 'soft-anti-affinity']);
    ids.group = group.id;
    assert.equal(group.policy, 'soft-anti-affinity');
    const userData = join(work, 'user-data');
    await writeFile(userData, '#cloud-config\nruncmd: [[echo, hello]]\n');
    const server = await os.json('member', [
      '--os-compute-api-version', '2.79', 'server', 'create', 'vm1', '--flavor', 'm1.small', '--image', image,
      '--port', 'p1', '--user-data', userData, '--hint', `group=${ids.group}`, '--wait',
    ]);
    ids.server = server.id;
    assert.equal(server.status, 'ACTIVE');
    const members = await os.json('member', ['--os-compute-api-version', '2.79', 'server', 'group', 'show', 'grp1']);
    assert.deepEqual(members.members, [ids.server]);
    const bound = await os.json('admin', ['port', 'show', ids.port!]);
    assert.equal(bound.status, 'ACTIVE');
    assert.equal(bound.device_id, ids.server);
    assert.equal(bound.binding_vif_type, 'ovs');

    const fip = await os.json('member', ['floating', 'ip', 'create', 'public', '--port', 'p1']);
    ids.fip = fip.id;
    assert.ok(inPublicRange(fip.floating_ip_address), fip.floating_ip_address);
    assert.equal(fip.port_id, ids.port);
  });

  it('makes a load balancer on the subnet that goes ACTIVE, with a loopback floating IP on its VIP port', async () => {
    const lb = await os.json('member', ['loadbalancer', 'create', '--name', 'lb1', '--vip-subnet-id', 'sub1', '--wait']);
    ids.lb = lb.id;
    assert.equal(lb.provisioning_status, 'ACTIVE');
    const vip = await os.json('member', ['port', 'show', lb.vip_port_id]);
    assert.equal(vip.network_id, ids.net);
    const fip = await os.json('member', ['floating', 'ip', 'create', 'public', '--port', lb.vip_port_id]);
    ids.lbFip = fip.id;
    assert.ok(inPublicRange(fip.floating_ip_address), fip.floating_ip_address);
  });

  it('accepts a fully populated load balancer whose listener, pool and member stay PENDING_CREATE (Zed, no jobboard)', async () => {
    const { token } = await login(cloud.authUrl, tenant.member);
    const octavia = `${cloud.endpoints['load-balancer']}/v2/lbaas`;
    const created = await call('POST', `${octavia}/loadbalancers`, {
      token,
      body: {
        loadbalancer: {
          name: 'lb2', vip_subnet_id: ids.subnet,
          listeners: [{
            name: 'api', protocol: 'TCP', protocol_port: 6443,
            default_pool: { name: 'api-pool', protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN', members: [{ address: '10.0.0.50', protocol_port: 6443, subnet_id: ids.subnet }] },
          }],
        },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    ids.lb2 = created.body.loadbalancer.id;
    let lb2: { provisioning_status: string } = created.body.loadbalancer;
    for (let i = 0; i < 120 && lb2.provisioning_status !== 'ACTIVE'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      lb2 = await os.json('member', ['loadbalancer', 'show', ids.lb2!]);
      assert.notEqual(lb2.provisioning_status, 'ERROR');
    }
    assert.equal(lb2.provisioning_status, 'ACTIVE');
    const listener = await os.json('member', ['loadbalancer', 'listener', 'show', 'api']);
    const pool = await os.json('member', ['loadbalancer', 'pool', 'show', 'api-pool']);
    const members = await os.json<{ provisioning_status: string }[]>('member', ['loadbalancer', 'member', 'list', 'api-pool']);
    assert.equal(listener.provisioning_status, 'PENDING_CREATE');
    assert.equal(pool.provisioning_status, 'PENDING_CREATE');
    assert.deepEqual(members.map((m) => m.provisioning_status), ['PENDING_CREATE']);
    const monitor = await call('POST', `${octavia}/healthmonitors`, { token, body: { healthmonitor: { pool_id: pool.id, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 } } });
    assert.equal(monitor.status, 409, JSON.stringify(monitor.body));
    assert.match(JSON.stringify(monitor.body), /immutable/);
  });

  it('refuses load balancer reads to a member without load-balancer_member under Zed\'s default policy, and allows them under admin_or_owner', async () => {
    const denied = await os.run('memberOnly', ['loadbalancer', 'list', '-f', 'json']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /403|Forbidden|not authorized/i);
    const reader = await os.run('reader', ['loadbalancer', 'list', '-f', 'json']);
    assert.match(reader.stderr, /403|Forbidden|not authorized/i);
    await cloud.setOctaviaPolicy('admin_or_owner');
    try {
      const allowed = await os.json<{ name: string }[]>('memberOnly', ['loadbalancer', 'list']);
      assert.deepEqual(allowed.map((l) => l.name).sort(), ['lb1', 'lb2']);
    } finally {
      await cloud.setOctaviaPolicy('default');
    }
    const again = await os.run('memberOnly', ['loadbalancer', 'list', '-f', 'json']);
    assert.notEqual(again.code, 0);
  });

  it('puts a server that fits no host in ERROR with "No valid host was found"', async () => {
    // More disk than the fake hypervisor's 600000 GB; disk is in no quota, so only the scheduler can refuse it.
    const flavor = await os.json('admin', ['flavor', 'create', `realos-too-big-${tenant.projectName}`, '--vcpus', '1', '--ram', '512', '--disk', '1000000', '--private', '--project', tenant.projectId]);
    ids.flavor = flavor.id;
    const server = await os.json('member', ['server', 'create', 'too-big', '--flavor', flavor.id, '--image', image, '--network', 'net1']);
    ids.bigServer = server.id;
    let shown: { status: string; fault?: { message: string } } = server;
    for (let i = 0; i < 60 && shown.status !== 'ERROR'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      shown = await os.json('member', ['server', 'show', server.id]);
    }
    assert.equal(shown.status, 'ERROR');
    assert.match(String(shown.fault?.message), /No valid host was found/);
  });

  it('deletes everything, after which nothing of the project remains', async () => {
    // What does not depend on each other goes at once (each CLI call costs a second or two of start-up).
    await Promise.all([
      os.ok('member', ['server', 'delete', '--wait', ids.server!, ids.bigServer!]),
      os.ok('member', ['floating', 'ip', 'delete', ids.fip!, ids.lbFip!]),
      os.ok('member', ['loadbalancer', 'delete', '--cascade', '--wait', ids.lb!]),
      os.ok('member', ['loadbalancer', 'delete', '--cascade', '--wait', ids.lb2!]),
      os.ok('admin', ['flavor', 'delete', ids.flavor!]),
    ]);
    await os.batch('member', [
      ['router', 'remove', 'subnet', 'r1', 'sub1'],
      ['router', 'unset', '--external-gateway', 'r1'],
      ['router', 'delete', 'r1'],
      ['port', 'delete', 'p1'],
      ['subnet', 'delete', 'sub1'],
      ['network', 'delete', 'net1'],
      ['security', 'group', 'delete', 'sg1'],
      ['server', 'group', 'delete', 'grp1'],
    ]);

    const project = ['--project', tenant.projectId];
    const [servers, ports, networks, subnets, routers, fips, groups, serverGroups, lbs, lbsAsAdmin] = await Promise.all([
      os.json('admin', ['server', 'list', '--all-projects', ...project]),
      os.json('admin', ['port', 'list', ...project]),
      os.json('admin', ['network', 'list', ...project]),
      os.json('admin', ['subnet', 'list', ...project]),
      os.json('admin', ['router', 'list', ...project]),
      os.json('admin', ['floating', 'ip', 'list', ...project]),
      os.json<{ Name: string }[]>('admin', ['security', 'group', 'list', ...project]),
      os.json('member', ['server', 'group', 'list']),
      os.json('member', ['loadbalancer', 'list']),
      os.json('admin', ['loadbalancer', 'list', ...project]),
    ]);
    assert.deepEqual({ servers, ports, networks, subnets, routers, fips, serverGroups, lbs, lbsAsAdmin }, {
      servers: [], ports: [], networks: [], subnets: [], routers: [], fips: [], serverGroups: [], lbs: [], lbsAsAdmin: [],
    });
    assert.deepEqual(groups.map((g) => g.Name), ['default']);
  });
});
