// The real-OpenStack harness proven with the real `openstack` CLI: in a fresh project whose users mirror the
// demo project's (a member with load-balancer_member, a member without it, a reader), the calls the product's
// workers make are accepted by Debian's Zed services and their results look as on a real cloud: a tenant
// network behind a router, a security group with a remote-group rule, a port, a soft-anti-affinity server
// group, a server booted from the port with user-data, floating IPs from the loopback range on the port and on
// a load balancer's VIP, a volume attached and detached, a fully populated load balancer whose children stay
// PENDING_CREATE (Zed without jobboard), Octavia's two policies, a server that cannot be placed; then
// everything is deleted and nothing of the project remains.
// Every change goes through the CLI; the waits for a status poll the APIs directly (the CLI's --wait polls
// every few seconds and each CLI start costs a second or more of CPU).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inPublicRange, TENANT_CIDR } from '../support/real-openstack/addresses.js';
import { openstackCli, type OpenStackCli } from '../support/real-openstack/cli.js';
import { startRealOpenStack, type RealOpenStack, type Tenant } from '../support/real-openstack/index.js';
import { Session, call, login } from '../support/real-openstack/rest.js';

type Who = 'admin' | 'member' | 'memberOnly' | 'reader' | 'demo';

describe('real OpenStack harness (Debian Zed on loopback, driven by the openstack CLI)', { timeout: 900_000 }, () => {
  let cloud: RealOpenStack;
  let tenant: Tenant;
  let os: OpenStackCli<Who>;
  let api: Session; // the tenant's member, for polling
  let work: string;
  const ids: Record<string, string> = {};
  const image = 'ubuntu-2404-kube-v1.35.5';

  /** GETs `path` of a service until `done` holds of the answer (404 is an answer: status 404, no body). */
  async function waitFor(service: 'compute' | 'load-balancer' | 'volumev3', path: string, done: (status: number, body: any) => boolean, what: string): Promise<any> {
    const base = cloud.endpoints[service].replace('%(project_id)s', tenant.projectId);
    let last: { status: number; body: any } = { status: 0, body: undefined };
    for (let i = 0; i < 240; i++) {
      last = await api.call('GET', `${base}${path}`);
      if (done(last.status, last.body)) return last.body;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.fail(`${what}: still ${last.status} ${JSON.stringify(last.body).slice(0, 500)} after 60 s`);
  }
  const gone = (status: number) => status === 404;

  // A first run on a bare machine installs about 300 packages (~8 min) and makes the pristine cloud (~2 min).
  before(async () => {
    cloud = await startRealOpenStack();
    tenant = await cloud.newTenant('harness');
    os = await openstackCli<Who>(cloud.authUrl, cloud.region, {
      admin: cloud.admin, member: tenant.member, memberOnly: tenant.memberOnly, reader: tenant.reader, demo: cloud.demo.member,
    });
    api = new Session(cloud.authUrl, tenant.member);
    work = await mkdtemp(join(tmpdir(), 'realos-test-'));
  }, { timeout: 1_800_000 });

  after(async () => {
    await cloud?.setOctaviaPolicy('default');
    await os?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('serves every service on loopback with the catalog, the demo users, flavors, images and a loopback public network', async () => {
    for (const u of Object.values(cloud.endpoints)) assert.match(u, /^http:\/\/127\.0\.0\.1:\d+(\/|$)/);
    const [catalog, flavors, img, coreos, pub, sub] = await os.batchJson('demo', [
      ['catalog', 'list'],
      ['flavor', 'list'],
      ['image', 'show', image],
      ['image', 'show', 'fedora-coreos-43'],
      ['network', 'show', 'public'],
      ['subnet', 'show', cloud.publicNetwork.subnetId],
    ]);
    assert.deepEqual(
      (catalog as { Type: string }[]).map((c) => c.Type).sort(),
      ['block-storage', 'compute', 'identity', 'image', 'load-balancer', 'network', 'placement', 'volumev3'],
    );
    const flavorNames = (flavors as { Name: string }[]).map((f) => f.Name);
    for (const f of ['m1.tiny', 'm1.small', 'm1.medium', 'm1.large']) assert.ok(flavorNames.includes(f), `${f} in ${flavorNames.join(', ')}`);
    assert.deepEqual([img.properties.os_distro, img.properties.kube_version, img.disk_format, img.size, img.visibility], ['ubuntu', 'v1.35.5', 'raw', 1 << 20, 'public']);
    assert.equal(coreos.properties.os_distro, 'fedora-coreos');
    assert.deepEqual([pub['router:external'], pub.is_default, pub.shared], [true, true, true]);
    assert.deepEqual([sub.cidr, sub.enable_dhcp], ['127.24.4.0/24', false]);
    const demo = await login(cloud.authUrl, cloud.demo.member);
    const roles = (demo.body.token.roles as { name: string }[]).map((r) => r.name);
    assert.ok(roles.includes('member') && roles.includes('load-balancer_member'), roles.join(','));
  });

  it('builds a network, subnet and router with gateway and interface, a security group with a remote-group rule and a port', async () => {
    const [net, subnet, router, sg] = await os.batchJson('member', [
      ['network', 'create', 'net1'],
      ['subnet', 'create', 'sub1', '--network', 'net1', '--subnet-range', TENANT_CIDR],
      ['router', 'create', 'r1'],
      ['security', 'group', 'create', 'sg1'],
    ]);
    Object.assign(ids, { net: net.id, subnet: subnet.id, router: router.id, sg: sg.id });
    await os.batch('member', [['router', 'set', 'r1', '--external-gateway', 'public'], ['router', 'add', 'subnet', 'r1', 'sub1']]);
    const [shown, interfaces, rule, port] = await os.batchJson('member', [
      ['router', 'show', 'r1'],
      ['port', 'list', '--router', 'r1', '--long'],
      ['security', 'group', 'rule', 'create', 'sg1', '--protocol', 'tcp', '--dst-port', '6443', '--remote-group', 'sg1'],
      ['port', 'create', 'p1', '--network', 'net1', '--security-group', 'sg1'],
    ]);
    const gw = typeof shown.external_gateway_info === 'string' ? JSON.parse(shown.external_gateway_info) : shown.external_gateway_info;
    assert.equal(gw.network_id, cloud.publicNetwork.id);
    assert.ok(gw.external_fixed_ips.length > 0 && gw.external_fixed_ips.every((f: { ip_address: string }) => inPublicRange(f.ip_address)), JSON.stringify(gw));
    const iface = (interfaces as { 'Device Owner': string; 'Fixed IP Addresses': { subnet_id: string }[] }[]).find((p) => p['Device Owner'] === 'network:router_interface');
    assert.equal(iface?.['Fixed IP Addresses'][0]?.subnet_id, ids.subnet, JSON.stringify(interfaces));
    assert.equal(rule.remote_group_id, ids.sg);
    assert.deepEqual(port.security_group_ids, [ids.sg]);
    ids.port = port.id;
  });

  it('boots a server from the port with user-data in a soft-anti-affinity server group (microversion 2.79), and puts a loopback floating IP on it', async () => {
    const group = await os.json('member', ['--os-compute-api-version', '2.79', 'server', 'group', 'create', 'grp1', '--policy', 'soft-anti-affinity']);
    ids.group = group.id;
    assert.equal(group.policy, 'soft-anti-affinity');
    const userData = join(work, 'user-data');
    const userDataText = '#cloud-config\nruncmd: [[echo, hello]]\n';
    await writeFile(userData, userDataText);
    const server = await os.json('member', [
      '--os-compute-api-version', '2.79', 'server', 'create', 'vm1', '--flavor', 'm1.small', '--image', image,
      '--port', 'p1', '--user-data', userData, '--hint', `group=${ids.group}`,
    ]);
    ids.server = server.id;
    await waitFor('compute', `/servers/${server.id}`, (s, b) => s === 200 && ['ACTIVE', 'ERROR'].includes(b.server.status), 'server vm1');
    const [shown, grp, fip] = await os.batchJson('member', [
      ['server', 'show', 'vm1'],
      ['server', 'group', 'show', 'grp1'],
      ['floating', 'ip', 'create', 'public', '--port', 'p1'],
    ], { OS_COMPUTE_API_VERSION: '2.79' });
    assert.equal(shown.status, 'ACTIVE', JSON.stringify(shown.fault));
    assert.deepEqual(grp.members, [ids.server]);
    ids.fip = fip.id;
    assert.ok(inPublicRange(fip.floating_ip_address), fip.floating_ip_address);
    assert.equal(fip.port_id, ids.port);
    const [bound, asAdmin] = await os.batchJson('admin', [['port', 'show', ids.port!], ['server', 'show', ids.server!]], { OS_COMPUTE_API_VERSION: '2.79' });
    assert.deepEqual([bound.status, bound.device_id, bound.binding_vif_type], ['ACTIVE', ids.server, 'ovs']);
    assert.equal(Buffer.from(asAdmin['OS-EXT-SRV-ATTR:user_data'], 'base64').toString(), userDataText);
  });

  it('makes a volume (Cinder\'s fake driver: no LVM) that Nova attaches to the server and detaches', async () => {
    const volume = await os.json('member', ['volume', 'create', '--size', '1', 'vol1']);
    const status = (want: string) => waitFor('volumev3', `/volumes/${volume.id}`, (s, b) => s === 200 && [want, 'error'].includes(b.volume.status), `volume ${want}`)
      .then((b) => assert.equal(b.volume.status, want));
    await status('available');
    await os.ok('member', ['server', 'add', 'volume', 'vm1', 'vol1']);
    await status('in-use');
    await os.ok('member', ['server', 'remove', 'volume', 'vm1', 'vol1']);
    await status('available');
    await os.ok('member', ['volume', 'delete', 'vol1']);
    await waitFor('volumev3', `/volumes/${volume.id}`, gone, 'volume deleted');
  });

  it('makes a load balancer on the subnet that goes ACTIVE, with a loopback floating IP on its VIP port', async () => {
    const lb = await os.json('member', ['loadbalancer', 'create', '--name', 'lb1', '--vip-subnet-id', 'sub1']);
    ids.lb = lb.id;
    const ready = await waitFor('load-balancer', `/v2/lbaas/loadbalancers/${lb.id}`, (s, b) => s === 200 && !b.loadbalancer.provisioning_status.startsWith('PENDING'), 'load balancer lb1');
    assert.equal(ready.loadbalancer.provisioning_status, 'ACTIVE');
    const [vip, fip] = await os.batchJson('member', [['port', 'show', lb.vip_port_id], ['floating', 'ip', 'create', 'public', '--port', lb.vip_port_id]]);
    assert.equal(vip.network_id, ids.net);
    ids.lbFip = fip.id;
    assert.ok(inPublicRange(fip.floating_ip_address), fip.floating_ip_address);
  });

  it('accepts a fully populated load balancer whose listener, pool and member stay PENDING_CREATE (Zed, no jobboard)', async () => {
    const token = await api.authToken();
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
    const ready = await waitFor('load-balancer', `/v2/lbaas/loadbalancers/${ids.lb2}`, (s, b) => s === 200 && !b.loadbalancer.provisioning_status.startsWith('PENDING'), 'load balancer lb2');
    assert.equal(ready.loadbalancer.provisioning_status, 'ACTIVE');
    const [listener, pool, members] = await os.batchJson('member', [
      ['loadbalancer', 'listener', 'show', 'api'],
      ['loadbalancer', 'pool', 'show', 'api-pool'],
      ['loadbalancer', 'member', 'list', 'api-pool'],
    ]);
    assert.equal(listener.provisioning_status, 'PENDING_CREATE');
    assert.equal(pool.provisioning_status, 'PENDING_CREATE');
    assert.deepEqual((members as { provisioning_status: string }[]).map((m) => m.provisioning_status), ['PENDING_CREATE']);
    const monitor = await call('POST', `${octavia}/healthmonitors`, { token, body: { healthmonitor: { pool_id: pool.id, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 } } });
    assert.equal(monitor.status, 409, JSON.stringify(monitor.body));
    assert.match(JSON.stringify(monitor.body), /immutable/);
  });

  it('refuses load balancer reads to a member without load-balancer_member under Zed\'s default policy, and allows them under admin_or_owner', async () => {
    const [denied, reader] = await Promise.all([
      os.run('memberOnly', ['loadbalancer', 'list', '-f', 'json']),
      os.run('reader', ['loadbalancer', 'list', '-f', 'json']),
    ]);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /403|Forbidden|not authorized/i);
    assert.notEqual(reader.code, 0);
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
    await waitFor('compute', `/servers/${server.id}`, (s, b) => s === 200 && b.server.status !== 'BUILD', 'server too-big');
    const shown = await os.json('member', ['server', 'show', server.id]);
    assert.equal(shown.status, 'ERROR');
    assert.match(String(shown.fault?.message), /No valid host was found/);
  });

  it('deletes everything, after which nothing of the project remains', async () => {
    await os.batch('member', [
      ['server', 'delete', ids.server!, ids.bigServer!],
      ['floating', 'ip', 'delete', ids.fip!, ids.lbFip!],
      ['loadbalancer', 'delete', '--cascade', ids.lb!],
      ['loadbalancer', 'delete', '--cascade', ids.lb2!],
    ]);
    await os.ok('admin', ['flavor', 'delete', ids.flavor!]);
    await Promise.all([
      waitFor('compute', `/servers/${ids.server}`, gone, 'server vm1 deleted'),
      waitFor('compute', `/servers/${ids.bigServer}`, gone, 'server too-big deleted'),
      // Octavia shows a deleted load balancer as DELETED for a while, then 404.
      waitFor('load-balancer', `/v2/lbaas/loadbalancers/${ids.lb}`, (s, b) => gone(s) || b?.loadbalancer?.provisioning_status === 'DELETED', 'lb1 deleted'),
      waitFor('load-balancer', `/v2/lbaas/loadbalancers/${ids.lb2}`, (s, b) => gone(s) || b?.loadbalancer?.provisioning_status === 'DELETED', 'lb2 deleted'),
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
    const [servers, ports, networks, subnets, routers, fips, groups, lbs, volumes] = await os.batchJson('admin', [
      ['server', 'list', '--all-projects', ...project],
      ['port', 'list', ...project],
      ['network', 'list', ...project],
      ['subnet', 'list', ...project],
      ['router', 'list', ...project],
      ['floating', 'ip', 'list', ...project],
      ['security', 'group', 'list', ...project],
      ['loadbalancer', 'list', ...project],
      ['volume', 'list', ...project],
    ]);
    const [serverGroups, ownLbs] = await os.batchJson('member', [['server', 'group', 'list'], ['loadbalancer', 'list']]);
    assert.deepEqual({ servers, ports, networks, subnets, routers, fips, lbs, volumes, serverGroups, ownLbs }, {
      servers: [], ports: [], networks: [], subnets: [], routers: [], fips: [], lbs: [], volumes: [], serverGroups: [], ownLbs: [],
    });
    assert.deepEqual((groups as { Name: string }[]).map((g) => g.Name), ['default']);
  });
});
