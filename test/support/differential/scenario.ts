// The differential test's scenario (issue 25): the calls a cluster's life makes, through our own thin clients
// (src/openstack/), with the error answers the workers meet (404 missing, 409 conflict, 400 bad input). The
// same code runs against the simulator and against the real services; the recorder keeps what each answered.
// Waits for a status are polls left out of the recording (their count depends on the cloud's speed); the
// answer that ends a wait is recorded once.
import { contextFromToken } from '../../../src/keystone/context.js';
import { findEndpoint } from '../../../src/openstack/catalog.js';
import { GlanceClient } from '../../../src/openstack/glance.js';
import { requestJson, type Session } from '../../../src/openstack/http.js';
import { KeystoneClient } from '../../../src/openstack/keystone.js';
import { NeutronClient } from '../../../src/openstack/neutron.js';
import { NovaClient } from '../../../src/openstack/nova.js';
import { NovaResourcesClient } from '../../../src/openstack/nova-resources.js';
import { NovaServersClient } from '../../../src/openstack/nova-servers.js';
import { OctaviaClient } from '../../../src/openstack/octavia.js';
import type { Recorder } from './record.js';

export interface Login {
  name: string;
  password: string;
  project: string;
}

/** One cloud as the scenario sees it. */
export interface Target {
  /** Keystone, …/v3. */
  authUrl: string;
  region: string;
  /** A project member holding load-balancer_member, in a project of its own that starts empty. */
  member: Login;
  /** A reader of the same project (Octavia's default policy refuses it). */
  reader: Login;
  image: string;
  flavor: string;
  externalNetwork: string;
}

const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxcV5q8S1F1m1pX0ZrJxW9qYfR0y3v1S2Q9a7p1b2c3 differential';
const MISSING = '00000000-0000-4000-8000-000000000000';
const TIMEOUT_MS = 5000;

/** A failing call's status (the error's own; the recorder has its body). */
async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 0;
  } catch (e) {
    const s = (e as { status?: number }).status;
    if (s === undefined) throw e;
    return s;
  }
}

async function poll<T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: not done within ${ms / 1000} s; last ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function login(rec: Recorder, t: Target, who: Login): Promise<{ token: string; session: (type: string) => Session; userId: string; projectId: string }> {
  const identity: Session = { service: 'identity', baseUrl: t.authUrl.replace(/\/v3$/, ''), timeoutMs: TIMEOUT_MS, trace: rec.trace };
  const res = await requestJson<unknown>(identity, {
    method: 'POST',
    path: '/v3/auth/tokens',
    body: { auth: { identity: { methods: ['password'], password: { user: { name: who.name, domain: { name: 'Default' }, password: who.password } } }, scope: { project: { name: who.project, domain: { name: 'Default' } } } } },
  });
  const token = res.headers.get('x-subject-token')!;
  const ctx = contextFromToken(res.body);
  const session = (type: string): Session => {
    const url = findEndpoint(ctx.catalog, type, { region: t.region });
    if (!url) throw new Error(`no ${type} endpoint in ${who.name}'s catalog`);
    return { service: type, baseUrl: url, token, timeoutMs: 30_000, trace: rec.trace };
  };
  return { token, session, userId: ctx.userId, projectId: ctx.projectId! };
}

/** Runs the scenario against `t`, recording into `rec`. Leaves nothing behind when it succeeds. */
export async function runScenario(rec: Recorder, t: Target, suffix: string): Promise<void> {
  const n = (base: string) => {
    const name = `diff-${base}-${suffix}`;
    rec.name(name, base);
    return name;
  };
  rec.at('keystone login');
  const me = await login(rec, t, t.member);
  rec.name(me.projectId, 'project');
  rec.name(me.userId, 'user');
  const keystone = new KeystoneClient({ ...me.session('identity'), baseUrl: t.authUrl }, me.userId);
  const glance = new GlanceClient(me.session('image'));
  const nova = new NovaClient(me.session('compute'));
  const servers = new NovaServersClient(me.session('compute'));
  const novaRes = new NovaResourcesClient(me.session('compute'));
  const neutron = new NeutronClient(me.session('network'));
  const octavia = new OctaviaClient(me.session('load-balancer'));

  rec.at('application credential');
  const cred = await keystone.createApplicationCredential({ name: n('cred'), roles: [{ name: 'member' }], description: 'differential' });
  await keystone.listApplicationCredentials(cred.name);
  await keystone.getApplicationCredential(cred.id);
  await keystone.deleteApplicationCredential(cred.id);
  await status(keystone.getApplicationCredential(cred.id));

  rec.at('glance');
  const [image] = await glance.listImages({ name: t.image });
  if (!image) throw new Error(`no image ${t.image}`);
  await glance.getImage(image.id);
  await status(glance.getImage(MISSING));

  rec.at('flavors');
  const flavor = (await nova.listFlavors()).find((f) => f.name === t.flavor);
  if (!flavor) throw new Error(`no flavor ${t.flavor}`);
  rec.name(`/flavors/${flavor.id}`, 'flavor');
  await nova.getFlavor(flavor.id);
  await status(nova.getFlavor('no-such-flavor'));

  rec.at('quotas');
  await novaRes.limits();
  await novaRes.quotaDetail(me.projectId);
  await neutron.quotaDetails(me.projectId);
  await octavia.quota(me.projectId);

  rec.at('octavia policy: a reader');
  const reader = await login(rec, t, t.reader);
  await status(new OctaviaClient(reader.session('load-balancer')).listLoadBalancers());

  rec.at('keypair');
  const keyName = n('key');
  await novaRes.createKeypair({ name: keyName, public_key: PUBLIC_KEY });
  await novaRes.getKeypair(keyName);
  await novaRes.listKeypairs();
  await status(novaRes.createKeypair({ name: keyName, public_key: PUBLIC_KEY }));
  await novaRes.deleteKeypair(keyName);
  await status(novaRes.getKeypair(keyName));

  rec.at('server group');
  const group = await novaRes.createServerGroup({ name: n('group'), policy: 'soft-anti-affinity' });
  await novaRes.getServerGroup(group.id);
  await novaRes.listServerGroups({ name: group.name });
  await status(novaRes.createServerGroup({ name: n('bad-group'), policy: 'no-such-policy' as 'affinity' }));

  rec.at('network');
  const tag = n('tag');
  const [pub] = await neutron.listNetworks({ name: t.externalNetwork });
  if (!pub) throw new Error(`no network ${t.externalNetwork}`);
  const net = await neutron.networks.create({ name: n('net') });
  await neutron.replaceTags('networks', net.id, [tag]);
  await neutron.listNetworks({ tags: tag });
  await neutron.getNetwork(net.id);
  await status(neutron.getNetwork(MISSING));
  await status(neutron.subnets.create({ network_id: net.id, ip_version: 4, cidr: 'not-a-cidr' }));
  const subnet = await neutron.subnets.create({ name: n('subnet'), network_id: net.id, ip_version: 4, cidr: '10.0.0.0/24', dns_nameservers: ['127.0.0.53'] });
  await status(neutron.subnets.create({ name: n('overlap'), network_id: net.id, ip_version: 4, cidr: '10.0.0.0/25' }));
  await neutron.subnets.list({ network_id: net.id });

  rec.at('router');
  const router = await neutron.routers.create({ name: n('router'), external_gateway_info: { network_id: pub.id } });
  await neutron.addRouterInterface(router.id, { subnet_id: subnet.id });
  await status(neutron.addRouterInterface(router.id, { subnet_id: subnet.id }));
  await neutron.routers.get(router.id);
  await neutron.routers.list({ name: router.name });

  rec.at('security groups');
  const sg = await neutron.securityGroups.create({ name: n('sg'), description: 'differential' });
  const rule = await neutron.securityGroupRules.create({ security_group_id: sg.id, direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: 6443, port_range_max: 6443, remote_group_id: sg.id });
  await status(neutron.securityGroupRules.create({ security_group_id: sg.id, direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: 6443, port_range_max: 6443, remote_group_id: sg.id }));
  await status(neutron.securityGroupRules.create({ security_group_id: sg.id, direction: 'ingress', ethertype: 'IPv4', protocol: 'no-such-protocol' }));
  await neutron.securityGroupRules.list({ security_group_id: sg.id });
  await neutron.securityGroups.get(sg.id);
  await neutron.securityGroups.list({ name: sg.name });

  rec.at('port and floating IP');
  const port = await neutron.ports.create({ name: n('port'), network_id: net.id, security_groups: [sg.id] });
  await neutron.replaceTags('ports', port.id, [tag]);
  await neutron.ports.list({ tags: tag });
  const fip = await neutron.floatingIps.create({ floating_network_id: pub.id, port_id: port.id, description: 'differential' });
  await neutron.floatingIps.get(fip.id);
  await neutron.floatingIps.list({ port_id: port.id });
  // The delete's two asks for OCCM's floating IPs: by several VIP ports at once, and those on no port (status=DOWN).
  await neutron.floatingIps.list({ port_id: [port.id, MISSING] });
  const loose = await neutron.floatingIps.create({ floating_network_id: pub.id, description: 'differential loose' });
  await neutron.floatingIps.list({ status: 'DOWN', description: 'differential loose' });
  await neutron.floatingIps.delete(loose.id);
  await status(neutron.floatingIps.create({ floating_network_id: net.id }));
  await status(neutron.networks.delete(net.id));
  await status(neutron.securityGroups.delete(sg.id));

  rec.at('server');
  const created = await servers.create({ name: n('server'), imageRef: image.id, flavorRef: flavor.id, networks: [{ port: port.id }], tags: [tag], key_name: undefined }, { group: group.id });
  await rec.quiet(() => poll('server ACTIVE', () => servers.get(created.id), (s) => s.status !== 'BUILD'));
  await servers.get(created.id);
  await servers.list({ tags: [tag] });
  await servers.listTags(created.id);
  await status(servers.get(MISSING));
  await status(servers.create({ name: n('bad-server'), imageRef: image.id, flavorRef: 'no-such-flavor', networks: [{ port: port.id }] }));

  await loadBalancers(rec, octavia, neutron, subnet.id, n, tag);

  rec.at('delete');
  await servers.delete(created.id);
  await rec.quiet(() => poll('server gone', () => status(servers.get(created.id)), (s) => s === 404));
  await neutron.floatingIps.delete(fip.id);
  await neutron.ports.delete(port.id);
  await neutron.securityGroupRules.delete(rule.id);
  await neutron.securityGroups.delete(sg.id);
  await neutron.removeRouterInterface(router.id, { subnet_id: subnet.id });
  await status(neutron.removeRouterInterface(router.id, { subnet_id: subnet.id }));
  await neutron.routers.delete(router.id);
  await neutron.subnets.delete(subnet.id);
  await neutron.networks.delete(net.id);
  await neutron.listNetworks({ tags: tag });
  await novaRes.deleteServerGroup(group.id);
  await status(novaRes.getServerGroup(group.id));
}

/** Octavia: a load balancer built one child at a time, then one created whole (its children left pending by Zed without the jobboard). */
async function loadBalancers(rec: Recorder, octavia: OctaviaClient, neutron: NeutronClient, subnetId: string, n: (base: string) => string, tag: string): Promise<void> {
  const settled = (id: string) => rec.quiet(() => poll('load balancer settled', () => octavia.provisioningStatus(id), (s) => !s.startsWith('PENDING')));
  rec.at('load balancer');
  const lb = await octavia.createLoadBalancer({ name: n('lb'), vip_subnet_id: subnetId, tags: [tag] });
  await settled(lb.id);
  await octavia.getLoadBalancer(lb.id);
  await octavia.listLoadBalancers({ tags: tag });
  await status(octavia.getLoadBalancer(MISSING));
  await status(octavia.listeners.create({ loadbalancer_id: lb.id, protocol: 'NO-SUCH' as 'TCP', protocol_port: 6443 }));
  const listener = await octavia.listeners.create({ name: n('listener'), loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 6443 });
  await settled(lb.id);
  await octavia.listeners.get(listener.id);
  const pool = await octavia.pools.create({ name: n('pool'), listener_id: listener.id, protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' });
  await settled(lb.id);
  await octavia.pools.get(pool.id);
  const member = await octavia.createMember(pool.id, { address: '10.0.0.50', protocol_port: 6443, subnet_id: subnetId });
  await settled(lb.id);
  await octavia.listMembers(pool.id);
  const hm = await octavia.healthMonitors.create({ pool_id: pool.id, type: 'TCP', delay: 10, timeout: 5, max_retries: 3 });
  await settled(lb.id);
  await octavia.healthMonitors.get(hm.id);
  await status(octavia.deleteLoadBalancer(lb.id, { cascade: false }));
  await octavia.healthMonitors.delete(hm.id);
  await settled(lb.id);
  await status(octavia.healthMonitors.get(hm.id));
  await octavia.deleteMember(pool.id, member.id);
  await settled(lb.id);
  await octavia.pools.delete(pool.id);
  await settled(lb.id);
  await octavia.listeners.delete(listener.id);
  await settled(lb.id);
  await octavia.listeners.list({ loadbalancer_id: lb.id });
  await octavia.deleteLoadBalancer(lb.id, { cascade: false });
  await rec.quiet(() => poll('load balancer gone', () => octavia.provisioningStatus(lb.id), (s) => s === 'DELETED'));

  rec.at('load balancer made whole');
  const whole = await octavia.createLoadBalancer({
    name: n('lb-whole'), vip_subnet_id: subnetId, tags: [tag],
    listeners: [{ name: n('listener-whole'), protocol: 'TCP', protocol_port: 6443, default_pool: { name: n('pool-whole'), protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN', members: [{ address: '10.0.0.51', protocol_port: 6443, subnet_id: subnetId }] } }],
  });
  await settled(whole.id);
  const shown = await octavia.getLoadBalancer(whole.id);
  const [wholePool] = await octavia.pools.list({ loadbalancer_id: shown.id });
  await status(octavia.healthMonitors.create({ pool_id: wholePool!.id, type: 'TCP', delay: 10, timeout: 5, max_retries: 3 }));
  await octavia.deleteLoadBalancer(whole.id);
  await rec.quiet(() => poll('load balancer gone', () => octavia.provisioningStatus(whole.id), (s) => s === 'DELETED'));
  // Octavia's no-op network driver leaves the VIP ports the API made (the simulator deletes them, as the real
  // amphora driver does): not part of the comparison.
  await rec.quiet(async () => {
    for (const p of await neutron.ports.list({ network_id: (await neutron.subnets.get(subnetId)).network_id })) {
      if (p.device_owner === 'Octavia' || p.name.startsWith('octavia-lb-')) await neutron.ports.delete(p.id);
    }
  });
}
