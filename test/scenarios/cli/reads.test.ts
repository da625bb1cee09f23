// The read commands a user tries first, with Debian's real `openstack` client and its plugins, on every
// simulated service and on our own API: a list and a show of each kind of resource the simulator serves
// (Keystone, Nova, Neutron, Glance, Cinder, Octavia, Designate, Manila, Barbican) and of container-infra.
// One cloud holds one of each; each user's commands run in one CLI process; any command that fails
// (exits non-zero or writes to stderr, when run alone) fails the test with what it printed, so the next
// gap between the simulator and the real APIs shows up here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_USERS } from '../../../cloudsim/embedded.js';
import { ensureCliPlugins } from '../../cloudsim/cli-support.js';
import { testApp, type TestApp } from '../../support/app.js';
import { cliFor, type Cli, type CliResult } from '../../support/cli.js';
import { insertCluster } from '../../support/cluster-fixture.js';
import { call, waitFor } from '../../support/http.js';

type User = keyof typeof BUILTIN_USERS;

let t: TestApp;
let cli: Cli;
/** Ids the commands name (filled by the set-up). */
const ids: Record<string, string> = {};

before(async () => {
  await ensureCliPlugins(['manila', 'octavia', 'designate', 'barbican']);
  t = await testApp({ listen: true, cloud: true });
  const port = (t.keystone.app.server.address() as { port: number }).port;
  cli = await cliFor(`http://127.0.0.1:${port}/v3`);
  await oneOfEach();
});
after(async () => {
  await cli?.close();
  await t?.close();
});

/** A JSON call to a simulated service as demo; it must answer `status`. */
async function api(status: number, method: string, url: string, body?: unknown, headers?: Record<string, string>) {
  const r = await call(method, url, await t.token('demo'), body, headers);
  assert.equal(r.status, status, `${method} ${url}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** One resource of every kind, in project demo, made through the services' APIs. */
async function oneOfEach(): Promise<void> {
  const { sims } = t.cloud!;
  const s = t.keystone.state;
  ids.demoProject = s.projectId('demo');
  const urls = sims.urls;
  const compute = urls.compute;
  const network = `${urls.network}/v2.0`;
  const volume = urls['block-storage'].replace('%(project_id)s', ids.demoProject);
  const lb = `${urls['load-balancer']}/v2/lbaas`;

  // Keystone: an application credential.
  await api(201, 'POST', `${cliAuthUrl()}/users/${s.userId('demo')}/application_credentials`, { application_credential: { name: 'ci' } });

  // Neutron: a network, a subnet, a router on public with an interface, a floating IP.
  const net = (await api(201, 'POST', `${network}/networks`, { network: { name: 'net1' } })).network;
  const subnet = (await api(201, 'POST', `${network}/subnets`, { subnet: { name: 'sub1', network_id: net.id, ip_version: 4, cidr: '10.0.0.0/24' } })).subnet;
  const pub = [...sims.neutron.state.networks.values()].find((n) => n.name === 'public')!;
  const router = (await api(201, 'POST', `${network}/routers`, { router: { name: 'r1', external_gateway_info: { network_id: pub.id } } })).router;
  await api(200, 'PUT', `${network}/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
  ids.floatingIp = (await api(201, 'POST', `${network}/floatingips`, { floatingip: { floating_network_id: pub.id } })).floatingip.id;
  ids.securityGroupRule = (await api(200, 'GET', `${network}/security-group-rules`)).security_group_rules[0].id;

  // Nova: a keypair, a server group, a server (ACTIVE) with a volume attached.
  await api(200, 'POST', `${compute}/os-keypairs`, { keypair: { name: 'kp' } });
  await api(200, 'POST', `${compute}/os-server-groups`, { server_group: { name: 'g1', policies: ['anti-affinity'] } });
  const image = [...sims.glance.state.images.values()].find((i) => i.name === 'cirros')!.id;
  const server = (await api(202, 'POST', `${compute}/servers`, { server: { name: 'vm1', flavorRef: '2', imageRef: image, networks: [{ uuid: net.id }], key_name: 'kp' } })).server;
  await waitFor(() => api(200, 'GET', `${compute}/servers/${server.id}`), (b) => b.server.status === 'ACTIVE', 10_000);
  ids.port = [...sims.neutron.state.ports.values()].find((p) => p.deviceId === server.id)!.id;

  // Cinder: a volume, attached to the server.
  const vol = (await api(202, 'POST', `${volume}/volumes`, { volume: { name: 'v1', size: 1 } })).volume;
  await waitFor(() => api(200, 'GET', `${volume}/volumes/${vol.id}`), (b) => b.volume.status === 'available', 10_000);
  await api(200, 'POST', `${compute}/servers/${server.id}/os-volume_attachments`, { volumeAttachment: { volumeId: vol.id } });
  await waitFor(() => api(200, 'GET', `${volume}/volumes/${vol.id}`), (b) => b.volume.status === 'in-use', 10_000);

  // Octavia: a load balancer with a listener, a pool, a member and a health monitor.
  const active = async (id: string) =>
    waitFor(() => api(200, 'GET', `${lb}/loadbalancers/${id}`), (b) => b.loadbalancer.provisioning_status === 'ACTIVE', 10_000);
  const lb1 = (await api(201, 'POST', `${lb}/loadbalancers`, { loadbalancer: { name: 'lb1', vip_subnet_id: subnet.id } })).loadbalancer;
  await active(lb1.id);
  const listener = (await api(201, 'POST', `${lb}/listeners`, { listener: { name: 'api', protocol: 'TCP', protocol_port: 6443, loadbalancer_id: lb1.id } })).listener;
  await active(lb1.id);
  const pool = (await api(201, 'POST', `${lb}/pools`, { pool: { name: 'api-pool', listener_id: listener.id, protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' } })).pool;
  await active(lb1.id);
  ids.member = (await api(201, 'POST', `${lb}/pools/${pool.id}/members`, { member: { name: 'm1', address: '10.0.0.10', protocol_port: 6443, subnet_id: subnet.id } })).member.id;
  await active(lb1.id);
  await api(201, 'POST', `${lb}/healthmonitors`, { healthmonitor: { name: 'hm1', pool_id: pool.id, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 } });
  await active(lb1.id);

  // Designate: a zone with a record set.
  const zone = await api(202, 'POST', `${urls.dns}/v2/zones`, { name: 'example.org.', email: 'ops@example.org' });
  await waitFor(() => api(200, 'GET', `${urls.dns}/v2/zones/${zone.id}`), (b) => b.status === 'ACTIVE', 10_000);
  await api(202, 'POST', `${urls.dns}/v2/zones/${zone.id}/recordsets`, { name: 'www.example.org.', type: 'A', records: ['192.0.2.7'] });

  // Manila: a share. Barbican: a secret.
  const share = (await api(200, 'POST', `${urls.sharev2}/shares`, { share: { name: 'sh1', share_proto: 'NFS', size: 1 } })).share;
  await waitFor(() => api(200, 'GET', `${urls.sharev2}/shares/${share.id}`), (b) => b.share.status === 'available', 10_000);
  ids.secret = (await api(201, 'POST', `${urls['key-manager']}/v1/secrets`, { name: 's1', payload: 'hello', payload_content_type: 'text/plain' })).secret_ref;

  // Container-infra: a template of demo's, and a settled cluster with its node groups and CAs.
  const tpl = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small' } });
  assert.equal(tpl.statusCode, 201, tpl.body);
  await insertCluster(t.app, { name: 'c1', user: s.userId('demo'), project: ids.demoProject, nodegroups: true });
}

function cliAuthUrl(): string {
  return `http://127.0.0.1:${(t.keystone.app.server.address() as { port: number }).port}/v3`;
}

/** The commands, as [user, ...arguments]. */
function commands(): [User, ...string[]][] {
  const s = t.keystone.state;
  return [
    // Keystone
    ['demo', 'token', 'issue'],
    ['demo', 'catalog', 'list'],
    ['demo', 'catalog', 'show', 'compute'],
    ['demo', 'project', 'show', 'demo'],
    ['demo', 'project', 'list', '--my-projects'],
    ['demo', 'user', 'show', 'demo'],
    ['demo', 'application', 'credential', 'list'],
    ['demo', 'application', 'credential', 'show', 'ci'],
    ['demo', 'region', 'list'],
    ['demo', 'region', 'show', 'RegionOne'],
    ['admin', 'project', 'list'],
    ['admin', 'user', 'list'],
    ['admin', 'role', 'list'],
    ['admin', 'role', 'show', 'member'],
    ['admin', 'domain', 'list'],
    ['admin', 'domain', 'show', 'default'],
    ['admin', 'service', 'list'],
    ['admin', 'service', 'show', 'nova'],
    ['admin', 'endpoint', 'list'],
    ['admin', 'role', 'assignment', 'list', '--names'],
    // Nova
    ['demo', 'flavor', 'list'],
    ['demo', 'flavor', 'show', 'm1.small'],
    ['demo', 'server', 'list'],
    ['demo', 'server', 'show', 'vm1'],
    ['demo', 'server', 'volume', 'list', 'vm1'],
    ['demo', 'keypair', 'list'],
    ['demo', 'keypair', 'show', 'kp'],
    ['demo', 'server', 'group', 'list'],
    ['demo', 'server', 'group', 'show', 'g1'],
    ['demo', 'availability', 'zone', 'list'],
    ['demo', 'limits', 'show', '--absolute'],
    ['demo', 'quota', 'show'],
    ['admin', 'availability', 'zone', 'list', '--long'],
    ['admin', 'hypervisor', 'list'],
    ['admin', 'hypervisor', 'show', '1'],
    ['admin', 'hypervisor', 'stats', 'show'],
    ['admin', 'aggregate', 'list'],
    ['admin', 'aggregate', 'show', 'az-2'],
    ['admin', 'flavor', 'list', '--all'],
    // Neutron
    ['demo', 'network', 'list'],
    ['demo', 'network', 'show', 'net1'],
    ['demo', 'subnet', 'list'],
    ['demo', 'subnet', 'show', 'sub1'],
    ['demo', 'port', 'list'],
    ['demo', 'port', 'show', ids.port!],
    ['demo', 'router', 'list'],
    ['demo', 'router', 'show', 'r1'],
    ['demo', 'security', 'group', 'list'],
    ['demo', 'security', 'group', 'show', 'default'],
    ['demo', 'security', 'group', 'rule', 'list'],
    ['demo', 'security', 'group', 'rule', 'show', ids.securityGroupRule!],
    ['demo', 'floating', 'ip', 'list'],
    ['demo', 'floating', 'ip', 'show', ids.floatingIp!],
    ['demo', 'extension', 'list', '--network'],
    ['demo', 'availability', 'zone', 'list', '--network'],
    // Glance
    ['demo', 'image', 'list'],
    ['demo', 'image', 'show', 'cirros'],
    // Cinder
    ['demo', 'volume', 'list'],
    ['demo', 'volume', 'show', 'v1'],
    ['demo', 'volume', 'type', 'list'],
    ['demo', 'volume', 'type', 'list', '--default'],
    ['demo', 'volume', 'type', 'show', '__DEFAULT__'],
    ['demo', 'availability', 'zone', 'list', '--volume'],
    // Octavia
    ['demo', 'loadbalancer', 'list'],
    ['demo', 'loadbalancer', 'show', 'lb1'],
    ['demo', 'loadbalancer', 'stats', 'show', 'lb1'],
    ['demo', 'loadbalancer', 'status', 'show', 'lb1'],
    ['demo', 'loadbalancer', 'listener', 'list'],
    ['demo', 'loadbalancer', 'listener', 'show', 'api'],
    ['demo', 'loadbalancer', 'pool', 'list'],
    ['demo', 'loadbalancer', 'pool', 'show', 'api-pool'],
    ['demo', 'loadbalancer', 'member', 'list', 'api-pool'],
    ['demo', 'loadbalancer', 'member', 'show', 'api-pool', ids.member!],
    ['demo', 'loadbalancer', 'healthmonitor', 'list'],
    ['demo', 'loadbalancer', 'healthmonitor', 'show', 'hm1'],
    ['demo', 'loadbalancer', 'quota', 'show', s.projectId('demo')],
    // Designate
    ['demo', 'zone', 'list'],
    ['demo', 'zone', 'show', 'example.org.'],
    ['demo', 'recordset', 'list', 'example.org.'],
    ['demo', 'recordset', 'show', 'example.org.', 'www.example.org.'],
    // Manila
    ['demo', 'share', 'list'],
    ['demo', 'share', 'show', 'sh1'],
    ['demo', 'share', 'export', 'location', 'list', 'sh1'],
    ['demo', 'share', 'type', 'list'],
    ['demo', 'share', 'type', 'show', 'default'],
    // Barbican
    ['demo', 'secret', 'list'],
    ['demo', 'secret', 'get', ids.secret!],
    // Container-infra
    ['demo', 'coe', 'cluster', 'template', 'list'],
    ['demo', 'coe', 'cluster', 'template', 'show', 'k8s'],
    ['demo', 'coe', 'cluster', 'list'],
    ['demo', 'coe', 'cluster', 'show', 'c1'],
    ['demo', 'coe', 'nodegroup', 'list', 'c1'],
    ['demo', 'coe', 'nodegroup', 'show', 'c1', 'default-worker'],
    ['demo', 'coe', 'ca', 'show', 'c1'],
    ['demo', 'coe', 'stats', 'list', s.projectId('demo')],
    ['admin', 'coe', 'quotas', 'list'],
    ['admin', 'coe', 'service', 'list'],
  ];
}

/** Runs every command in its own process, `width` at a time; the results in the commands' order. */
async function oneByOne(list: [User, ...string[]][], width: number): Promise<CliResult[]> {
  const out: CliResult[] = new Array(list.length);
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      const [user, ...args] = list[i]!;
      out[i] = await cli.run(user, args);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

/** Did a batch (or a command) say something went wrong? */
const troubled = (r: CliResult) => r.code !== 0 || r.stderr.trim() !== '' || /is not an openstack command/.test(r.stdout);

test('every first read command works as demo (and admin where the policy says so) on every simulated service', { timeout: 600_000 }, async () => {
  const list = commands();
  const started = Date.now();
  // One process per user runs that user's commands (the CLI's start-up, ~1.5 s of CPU, once); when a
  // batch shows trouble, each command runs again alone to name the ones that fail.
  const users = [...new Set(list.map(([u]) => u))];
  // Each batch ends with a command whose output is known: the user's project id shows the batch ran to its end.
  const last = ['token', 'issue', '-f', 'value', '-c', 'project_id'];
  const batches = await Promise.all(users.map((u) => cli.batch(u, [...list.filter(([x]) => x === u).map(([, ...args]) => args), last])));
  users.forEach((u, i) => assert.ok(batches[i]!.stdout.trim().endsWith(t.keystone.state.projectId(BUILTIN_USERS[u].project)), `the batch of ${u} ran to its end`));
  const suspects = list.filter(([u]) => troubled(batches[users.indexOf(u)]!));
  const results = await oneByOne(suspects, 4);
  const failed = suspects.map(([user, ...args], i) => ({ command: `openstack --os-cloud ${user} ${args.join(' ')}`, r: results[i]! })).filter(({ r }) => troubled(r));
  const report = failed.map(({ command, r }) => `${command} → exit ${r.code}\n${(r.stderr || r.stdout).trim().split('\n').slice(-3).join('\n')}`).join('\n\n');
  const unexplained = users.filter((u, i) => troubled(batches[i]!) && !failed.some(({ command }) => command.startsWith(`openstack --os-cloud ${u} `)));
  assert.equal(failed.length, 0, `${failed.length} of ${list.length} commands failed:\n\n${report}`);
  assert.deepEqual(unexplained, [], `a batch showed trouble no single command repeats: ${unexplained.map((u) => batches[users.indexOf(u)]!.stderr).join('\n')}`);
  console.log(`${list.length} read commands (${users.map((u) => `${list.filter(([x]) => x === u).length} as ${u}`).join(', ')}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

test('what members may not read, they are refused with a 403 and the policy named, never a 404', async () => {
  for (const args of [['hypervisor', 'list'], ['aggregate', 'list'], ['hypervisor', 'show', '1']]) {
    const r = await cli.run('demo', args);
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.stderr, /403/, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /Policy doesn't allow os_compute_api:/);
  }
});
