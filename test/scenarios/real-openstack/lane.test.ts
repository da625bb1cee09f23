// The real-cloud lane (issue 25): the product's API and a worker against Debian's Zed services on loopback (no
// simulator anywhere), driven through the real `openstack coe` CLI as an operator would. A template named by names
// (image, flavors, external network), then a 1+1 cluster without a load balancer made by a plain member under
// Octavia's shipped default policy (the member has no load-balancer_* role: every Octavia read answers it 403),
// reaching the wait for the Kubernetes API with every planned resource present and tagged; then the delete, after
// which nothing of the project remains. Then a 1+1 cluster with a load balancer by a member holding
// load-balancer_member: Octavia Zed without the jobboard leaves the graph create's children PENDING_CREATE, the
// worker builds them again one by one, and the delete again leaves nothing; the same by a plain member under
// devstack's admin_or_owner Octavia policy. Last, a worker no host can take: Nova
// answers NoValidHost, the worker boots it again twice and the create fails naming it and Nova's fault. Kubernetes cannot run here (the fake driver boots nothing): the worker
// dials the first control plane's floating IP, on the loopback range, where nothing answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterEntity } from '../../../src/db/entities/cluster.js';
import { ClusterEventEntity } from '../../../src/db/entities/cluster-event.js';
import { clusterTag } from '../../../src/steps/naming.js';
import { startWorker } from '../../../workers/main.js';
import { testApp, type TestApp } from '../../support/app.js';
import { inPublicRange } from '../../support/real-openstack/addresses.js';
import { openstackCli, type OpenStackCli } from '../../support/real-openstack/cli.js';
import { startRealOpenStack, type RealOpenStack, type Tenant } from '../../support/real-openstack/index.js';
import { Session } from '../../support/real-openstack/rest.js';

type Who = 'member' | 'lbMember' | 'admin';

describe('the real-cloud lane: 1+1 clusters through the real CLI, without and with a load balancer, under both Octavia policies', { timeout: 900_000 }, () => {
  let cloud: RealOpenStack;
  let tenant: Tenant;
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let os: OpenStackCli<Who>;
  let admin: Session;
  let member: Session;
  const registered: string[] = [];
  let uuid = '';

  before(async () => {
    cloud = await startRealOpenStack();
    await cloud.setOctaviaPolicy('default');
    tenant = await cloud.newTenant('lane');
    t = await testApp({
      listen: true,
      config: (c) => {
        c.keystone.authUrl = cloud.authUrl;
        c.keystone.service = { username: cloud.magnum.name, password: cloud.magnum.password, projectName: cloud.magnum.project, userDomainName: 'Default', projectDomainName: 'Default' };
        c.openstack.region = cloud.region;
        c.cloudResourceChecks = true;
      },
    });
    // The CLI finds the API in the real Keystone's catalog.
    admin = new Session(cloud.authUrl, cloud.admin);
    const service = await admin.expect('POST', `${cloud.authUrl}/services`, [201], { body: { service: { type: 'container-infra', name: 'magnum' } } });
    registered.push(`${cloud.authUrl}/services/${service.body.service.id}`);
    for (const iface of ['public', 'internal']) {
      const ep = await admin.expect('POST', `${cloud.authUrl}/endpoints`, [201], {
        body: { endpoint: { service_id: service.body.service.id, interface: iface, region_id: cloud.region, url: `${t.apiUrl}/v1` } },
      });
      registered.unshift(`${cloud.authUrl}/endpoints/${ep.body.endpoint.id}`);
    }
    worker = await startWorker({
      redisUrl: process.env.REDIS_URL!,
      concurrency: 2,
      heartbeatMs: 1000,
      prefix: t.config.queuePrefix,
      db: t.app.services.db,
      config: t.config,
      healthIntervalMs: 0,
      runner: { pollMs: 500 },
    });
    os = await openstackCli<Who>(cloud.authUrl, cloud.region, { member: tenant.memberOnly, lbMember: tenant.member, admin: cloud.admin });
    member = new Session(cloud.authUrl, tenant.memberOnly);
  });

  after(async () => {
    await worker?.close();
    for (const url of registered) await admin?.call('DELETE', url);
    await os?.close();
    await t?.close();
    await cloud?.setOctaviaPolicy('default');
  });

  const endpoint = (type: 'compute' | 'network' | 'load-balancer') => cloud.endpoints[type].replace('%(project_id)s', tenant.projectId).replace(/\/$/, '');
  const row = () => t.app.services.db.getRepository(ClusterEntity).findOneBy({ uuid });

  it('a template by names, a cluster created by a plain member, waiting for its Kubernetes API with every resource present and tagged', async () => {
    await os.ok('member', [
      'coe', 'cluster', 'template', 'create', 'lane', '--coe', 'kubernetes', '--image', 'ubuntu-2404-kube-v1.35.5',
      '--external-network', 'public', '--flavor', 'm1.small', '--master-flavor', 'm1.medium', '--network-driver', 'calico',
      '--floating-ip-enabled', '--labels', 'kube_tag=v1.35.5',
    ]);
    // Octavia's default policy refuses this member even a list: the cluster has no load balancer, so it is never asked.
    assert.equal((await member.call('GET', `${endpoint('load-balancer')}/v2/lbaas/loadbalancers`)).status, 403);
    await os.ok('member', ['coe', 'cluster', 'create', 'lane', '--cluster-template', 'lane', '--master-count', '1', '--node-count', '1']);
    const shown = await os.json('member', ['coe', 'cluster', 'show', 'lane']);
    uuid = shown.uuid;
    let c;
    for (let i = 0; i < 600; i++) {
      c = await row();
      if (c?.conditions.control_plane?.reason === 'Initializing' || c?.status.endsWith('FAILED')) break;
      await sleep(500);
    }
    assert.equal(c?.status, 'CREATE_IN_PROGRESS', `${c?.status}: ${c?.status_reason}`);
    assert.match(c!.conditions.control_plane!.message, /^Waiting for the API at https:\/\/(\S+):6443 to answer \/readyz\./);
    const apiIp = /https:\/\/([\d.]+):6443/.exec(c!.api_address ?? '')![1]!;
    assert.ok(inPublicRange(apiIp), `the API's floating IP ${apiIp} is on the loopback range`);
    const cli = await os.json('member', ['coe', 'cluster', 'show', 'lane']);
    assert.equal(cli.status, 'CREATE_IN_PROGRESS');
    assert.match(cli.status_reason, /control_plane: Waiting for the API/);

    // What the cloud holds, each tagged as the cluster's.
    const tag = clusterTag(uuid);
    const servers = (await member.expect('GET', `${endpoint('compute')}/servers/detail?tags=${encodeURIComponent(tag)}`, [200])).body.servers as { status: string; name: string }[];
    assert.deepEqual(servers.map((s) => s.status), ['ACTIVE', 'ACTIVE'], 'a control plane and a worker, ACTIVE');
    const net = endpoint('network');
    for (const [kind, n] of [['networks', 1], ['subnets', 1], ['routers', 1], ['security-groups', 2], ['ports', 2], ['floatingips', 2]] as const) {
      const listed = (await member.expect('GET', `${net}/v2.0/${kind}?tags=${encodeURIComponent(tag)}`, [200])).body[kind.replace('-', '_')] as unknown[];
      assert.equal(listed.length, n, `${kind} tagged ${tag}`);
    }
    const fips = (await member.expect('GET', `${net}/v2.0/floatingips?tags=${encodeURIComponent(tag)}`, [200])).body.floatingips as { floating_ip_address: string }[];
    for (const f of fips) assert.ok(inPublicRange(f.floating_ip_address), f.floating_ip_address);
    const groups = (await member.expect('GET', `${endpoint('compute')}/os-server-groups`, [200])).body.server_groups as { name: string }[];
    assert.equal(groups.filter((g) => g.name.includes(uuid)).length, 2, 'a server group per node group');
  });

  it('the delete leaves nothing of the project, the Octavia policy notwithstanding', async () => {
    await os.ok('member', ['coe', 'cluster', 'delete', 'lane']);
    let c;
    for (let i = 0; i < 600; i++) {
      c = await row();
      if (!c || c.status === 'DELETE_FAILED') break;
      await sleep(500);
    }
    assert.equal(c, null, `${c?.status}: ${c?.status_reason}`);
    const left = await os.run('member', ['coe', 'cluster', 'show', 'lane']);
    assert.notEqual(left.code, 0, 'the CLI finds no such cluster');
    const net = endpoint('network');
    const project = `project_id=${tenant.projectId}`;
    assert.deepEqual((await member.expect('GET', `${endpoint('compute')}/servers/detail`, [200])).body.servers, []);
    assert.deepEqual((await member.expect('GET', `${endpoint('compute')}/os-server-groups`, [200])).body.server_groups, []);
    for (const kind of ['networks', 'subnets', 'routers', 'floatingips'] as const) {
      assert.deepEqual((await member.expect('GET', `${net}/v2.0/${kind}?${project}`, [200])).body[kind], [], kind);
    }
    const ports = (await admin.expect('GET', `${net}/v2.0/ports?${project}`, [200])).body.ports as unknown[];
    assert.deepEqual(ports, [], 'no port, also as the admin sees them');
    const sgs = (await member.expect('GET', `${net}/v2.0/security-groups?${project}`, [200])).body.security_groups as { name: string }[];
    assert.deepEqual(sgs.map((s) => s.name), ['default'], 'only Neutron\'s default security group');
    const me = (await member.expect('GET', `${cloud.authUrl}/auth/tokens`, [200], { headers: { 'x-subject-token': await member.authToken() } })).body.token.user.id as string;
    const creds = (await member.expect('GET', `${cloud.authUrl}/users/${me}/application_credentials`, [200])).body.application_credentials as unknown[];
    assert.deepEqual(creds, [], 'the cluster\'s application credential is gone');
  });

  /** A 1+1 cluster with a load balancer made by `who` through the CLI: its children ACTIVE (built again one by one where Octavia left them pending), the API's wait reached; then deleted, nothing left. */
  async function lbCluster(who: 'lbMember' | 'member', name: string): Promise<void> {
    await os.ok(who, [
      'coe', 'cluster', 'template', 'create', name, '--coe', 'kubernetes', '--image', 'ubuntu-2404-kube-v1.35.5',
      '--external-network', 'public', '--flavor', 'm1.small', '--master-flavor', 'm1.medium', '--network-driver', 'calico',
      '--master-lb-enabled', '--labels', 'kube_tag=v1.35.5',
    ]);
    await os.ok(who, ['coe', 'cluster', 'create', name, '--cluster-template', name, '--master-count', '1', '--node-count', '1']);
    uuid = (await os.json(who, ['coe', 'cluster', 'show', name])).uuid;
    let c;
    for (let i = 0; i < 600; i++) {
      c = await row();
      if (c?.conditions.control_plane?.reason === 'Initializing' || c?.status.endsWith('FAILED')) break;
      await sleep(500);
    }
    assert.equal(c?.status, 'CREATE_IN_PROGRESS', `${c?.status}: ${c?.status_reason}`);
    assert.equal(c!.conditions.api_lb?.status, 'True', JSON.stringify(c!.conditions.api_lb));
    const lbm = new Session(cloud.authUrl, who === 'lbMember' ? tenant.member : tenant.memberOnly);
    const lbs = (await lbm.expect('GET', `${endpoint('load-balancer')}/v2/lbaas/loadbalancers?tags=${encodeURIComponent(clusterTag(uuid))}`, [200])).body.loadbalancers as { id: string; provisioning_status: string; vip_address: string }[];
    assert.equal(lbs.length, 1);
    // The health monitor comes after the members (off the way to the API): the tree settles once it is made.
    let tree: any;
    let statuses: string[] = [];
    for (let i = 0; i < 240; i++) {
      tree = (await lbm.expect('GET', `${endpoint('load-balancer')}/v2/lbaas/loadbalancers/${lbs[0]!.id}/status`, [200])).body.statuses.loadbalancer;
      statuses = [tree.provisioning_status, ...tree.listeners.flatMap((l: any) => [l.provisioning_status, ...l.pools.flatMap((p: any) => [p.provisioning_status, p.health_monitor?.provisioning_status, ...p.members.map((m: any) => m.provisioning_status)])])];
      if (statuses.every((x) => x === 'ACTIVE')) break;
      await sleep(500);
    }
    assert.deepEqual(statuses, ['ACTIVE', 'ACTIVE', 'ACTIVE', 'ACTIVE', 'ACTIVE'], JSON.stringify(tree));
    const events = await t.app.services.db.getRepository(ClusterEventEntity).find({ where: { cluster_id: uuid } });
    const stuck = events.filter((e) => e.type === 'LoadBalancerChildrenStuck');
    assert.ok(stuck.length > 0, 'Octavia without the jobboard left the graph create\'s children pending: they were built again');
    assert.match(stuck[0]!.message, /is ACTIVE but its (listener|pool) \S+ stays? PENDING_CREATE/);

    await os.ok(who, ['coe', 'cluster', 'delete', name]);
    for (let i = 0; i < 600; i++) {
      c = await row();
      if (!c || c.status === 'DELETE_FAILED') break;
      await sleep(500);
    }
    assert.equal(c, null, `${c?.status}: ${c?.status_reason}`);
    const net = endpoint('network');
    const project = `project_id=${tenant.projectId}`;
    assert.deepEqual((await lbm.expect('GET', `${endpoint('load-balancer')}/v2/lbaas/loadbalancers`, [200])).body.loadbalancers, []);
    assert.deepEqual((await member.expect('GET', `${endpoint('compute')}/servers/detail`, [200])).body.servers, []);
    for (const kind of ['networks', 'subnets', 'routers', 'floatingips'] as const) {
      assert.deepEqual((await member.expect('GET', `${net}/v2.0/${kind}?${project}`, [200])).body[kind], [], kind);
    }
    const ports = (await admin.expect('GET', `${net}/v2.0/ports?${project}`, [200])).body.ports as { device_owner: string; name: string }[];
    assert.deepEqual(ports.map((p) => `${p.device_owner} ${p.name}`), [], 'no port, also as the admin sees them');
  }

  it('a 1+1 cluster with a load balancer by a member holding load-balancer_member: its listener, pool and member, left PENDING_CREATE by Octavia without the jobboard, are built again one by one; the delete leaves nothing', () =>
    lbCluster('lbMember', 'lane-lb'));

  it('the same under devstack\'s admin_or_owner Octavia policy, by a plain member', async () => {
    await cloud.setOctaviaPolicy('admin_or_owner');
    try {
      await lbCluster('member', 'lane-lb-owner');
    } finally {
      await cloud.setOctaviaPolicy('default');
    }
  });

  it('a worker no host can take (No valid host was found) is booted again twice, then the create fails naming it and Nova\'s fault; the delete leaves nothing', async () => {
    // More disk than the fake hypervisor has; disk is in no quota, so only Nova's scheduler refuses it.
    const flavor = await os.json('admin', ['flavor', 'create', `lane-too-big-${tenant.projectName}`, '--vcpus', '1', '--ram', '512', '--disk', '1000000', '--private', '--project', tenant.projectId]);
    try {
      await os.ok('member', [
        'coe', 'cluster', 'template', 'create', 'lane-big', '--coe', 'kubernetes', '--image', 'ubuntu-2404-kube-v1.35.5',
        '--external-network', 'public', '--flavor', flavor.name, '--master-flavor', 'm1.medium', '--network-driver', 'calico', '--labels', 'kube_tag=v1.35.5',
      ]);
      await os.ok('member', ['coe', 'cluster', 'create', 'lane-big', '--cluster-template', 'lane-big', '--master-count', '1', '--node-count', '1']);
      uuid = (await os.json('member', ['coe', 'cluster', 'show', 'lane-big'])).uuid;
      let c;
      for (let i = 0; i < 600; i++) {
        c = await row();
        if (c?.status !== 'CREATE_IN_PROGRESS') break;
        await sleep(500);
      }
      assert.equal(c?.status, 'CREATE_FAILED', `${c?.status}: ${c?.status_reason}`);
      assert.match(c!.status_reason ?? '', /^NoValidHost: Server \S+ \(\S+\) is in ERROR: No valid host was found.*\(its node was booted 3 times\)$/);
      const shown = await os.json('member', ['coe', 'cluster', 'show', 'lane-big']);
      assert.equal(shown.status, 'CREATE_FAILED');
      const events = await t.app.services.db.getRepository(ClusterEventEntity).find({ where: { cluster_id: uuid } });
      const replacing = events.filter((e) => e.reason === 'ReplacingServer');
      assert.ok(replacing.length > 0, 'its condition said so');
      assert.match(replacing[0]!.message, /^Server \S+ \(\S+\) is in ERROR: No valid host was found.* Booting it again \(1 of 2\)\.$/);

      await os.ok('member', ['coe', 'cluster', 'delete', 'lane-big']);
      for (let i = 0; i < 600; i++) {
        c = await row();
        if (!c || c.status === 'DELETE_FAILED') break;
        await sleep(500);
      }
      assert.equal(c, null, `${c?.status}: ${c?.status_reason}`);
      assert.deepEqual((await member.expect('GET', `${endpoint('compute')}/servers/detail`, [200])).body.servers, []);
      const ports = (await admin.expect('GET', `${endpoint('network')}/v2.0/ports?project_id=${tenant.projectId}`, [200])).body.ports as unknown[];
      assert.deepEqual(ports, []);
    } finally {
      await os.ok('admin', ['flavor', 'delete', flavor.id]);
    }
  });
});
