// The real-cloud lane (issue 25): the product's API and a worker against Debian's Zed services on loopback (no
// simulator anywhere), driven through the real `openstack coe` CLI as an operator would. Two templates by names
// (image, flavors, external network), without and with a load balancer; then, under each of Octavia's two
// policies (Zed's shipped default, where users need load-balancer_member, and devstack's admin_or_owner), a 1+1
// cluster without a load balancer and a 3+2 cluster with one, made at the same time: each reaches the wait for
// its Kubernetes API with every resource its bill (the create's dry-run) plans present and tagged as the
// cluster's (Octavia Zed without the jobboard leaves the graph create's children PENDING_CREATE: the worker builds
// them again one by one); then both are deleted and nothing of the project remains, read as the CLI's users and
// the admin. Last, a worker no host can take: Nova answers NoValidHost, the worker boots it again twice and the
// create fails naming it and Nova's fault. Kubernetes cannot run here (the fake driver boots nothing): the worker
// dials the first control plane's floating IP (or the load balancer's), on the loopback range, where nothing
// answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterEntity } from '../../../src/db/entities/cluster.js';
import { ClusterEventEntity } from '../../../src/db/entities/cluster-event.js';
import { startWorker } from '../../../workers/main.js';
import { testApp, type TestApp } from '../../support/app.js';
import { inPublicRange } from '../../support/real-openstack/addresses.js';
import { openstackCli, type OpenStackCli } from '../../support/real-openstack/cli.js';
import { startRealOpenStack, type RealOpenStack, type Tenant } from '../../support/real-openstack/index.js';
import { endpointOf, heldByCluster, leftInProject, plannedBill, type ClusterRequest, type Kind } from '../../support/real-openstack/lane.js';
import { Session } from '../../support/real-openstack/rest.js';

type Who = 'member' | 'lbMember' | 'admin';

const KIND_KEYS: Kind[] = ['instances', 'server_groups', 'network', 'subnet', 'router', 'port', 'floatingip', 'security_group', 'security_group_rule', 'load_balancer', 'listener', 'pool', 'member', 'health_monitor'];

describe('the real-cloud lane: a 1+1 cluster without a load balancer and a 3+2 with one, through the real CLI, under both Octavia policies', { timeout: 900_000 }, () => {
  let cloud: RealOpenStack;
  let tenant: Tenant;
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let os: OpenStackCli<Who>;
  let admin: Session;
  let sessions: Record<'member' | 'lbMember', Session>;
  let endpoint: ReturnType<typeof endpointOf>;
  const registered: string[] = [];

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
    // A lane killed before its `after` left its API in the catalog, where the CLI would find it first: gone.
    for (const stale of (await admin.expect('GET', `${cloud.authUrl}/services?type=container-infra`, [200])).body.services as { id: string }[]) {
      await admin.expect('DELETE', `${cloud.authUrl}/services/${stale.id}`, [204, 404]);
    }
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
      concurrency: 4,
      heartbeatMs: 1000,
      prefix: t.config.queuePrefix,
      db: t.app.services.db,
      config: t.config,
      healthIntervalMs: 0,
      runner: { pollMs: 500 },
    });
    os = await openstackCli<Who>(cloud.authUrl, cloud.region, { member: tenant.memberOnly, lbMember: tenant.member, admin: cloud.admin });
    sessions = { member: new Session(cloud.authUrl, tenant.memberOnly), lbMember: new Session(cloud.authUrl, tenant.member) };
    endpoint = endpointOf(cloud, tenant);
  });

  after(async () => {
    await worker?.close();
    for (const url of registered) await admin?.call('DELETE', url);
    await os?.close();
    await t?.close();
    await cloud?.setOctaviaPolicy('default');
  });


  const row = (uuid: string) => t.app.services.db.getRepository(ClusterEntity).findOneBy({ uuid });

  it('two templates by names (image, flavors, external network): without and with a load balancer, floating IPs on', async () => {
    const common = [
      '--coe', 'kubernetes', '--image', 'ubuntu-2404-kube-v1.35.5', '--external-network', 'public', '--flavor', 'm1.small',
      '--master-flavor', 'm1.medium', '--network-driver', 'calico', '--floating-ip-enabled', '--labels', 'kube_tag=v1.35.5',
    ];
    await os.ok('member', ['coe', 'cluster', 'template', 'create', 'lane', ...common]);
    await os.ok('member', ['coe', 'cluster', 'template', 'create', 'lane-lb', ...common, '--master-lb-enabled']);
  });

  /**
   * A cluster made by `who` through the CLI: its bill (the dry-run) first; then it reaches the wait for its
   * Kubernetes API, and the cloud comes to hold every planned resource, tagged as the cluster's. Its uuid.
   */
  async function created(who: 'member' | 'lbMember', lbReader: Session, r: ClusterRequest): Promise<string> {
    const bill = await plannedBill(t.apiUrl!, sessions[who], r);
    await os.ok(who, ['coe', 'cluster', 'create', r.name, '--cluster-template', r.template, '--master-count', String(r.masters), '--node-count', String(r.workers)]);
    const uuid = (await os.json(who, ['coe', 'cluster', 'show', r.name])).uuid as string;
    let c;
    for (let i = 0; i < 600; i++) {
      c = await row(uuid);
      if (c?.conditions.control_plane?.reason === 'Initializing' || c?.status.endsWith('FAILED')) break;
      await sleep(500);
    }
    assert.equal(c?.status, 'CREATE_IN_PROGRESS', `${r.name}: ${c?.status}: ${c?.status_reason}`);
    assert.match(c!.conditions.control_plane!.message, /^Waiting for the API at https:\/\/(\S+):6443 to answer \/readyz\./);
    const apiIp = /https:\/\/([\d.]+):6443/.exec(c!.api_address ?? '')![1]!;
    assert.ok(inPublicRange(apiIp), `the API's floating IP ${apiIp} is on the loopback range`);
    // Off the way to the API (the workers' boot, the health monitor after the members) may come a little later.
    let seen: Awaited<ReturnType<typeof heldByCluster>> | undefined;
    for (let i = 0; i < 240; i++) {
      seen = await heldByCluster(endpoint, sessions.member, lbReader, uuid);
      if (KIND_KEYS.every((k) => seen!.held[k] === bill[k]) && seen.serverStatuses.every((x) => x === 'ACTIVE')) break;
      await sleep(500);
    }
    assert.deepEqual(seen!.held, bill, `${r.name}: what the cloud holds of the cluster (tagged as its) against its bill`);
    assert.deepEqual(seen!.serverStatuses, Array(r.masters + r.workers).fill('ACTIVE'));
    assert.equal(seen!.untaggedNodePorts, 0, 'every node port tagged');
    const cli = await os.json(who, ['coe', 'cluster', 'show', r.name]);
    assert.equal(cli.status, 'CREATE_IN_PROGRESS');
    assert.match(cli.status_reason, /control_plane: Waiting for the API/);
    return uuid;
  }

  /** Deletes the cluster through the CLI and waits until its row is gone. */
  async function deleted(who: Who, name: string, uuid: string): Promise<void> {
    await os.ok(who, ['coe', 'cluster', 'delete', name]);
    let c;
    for (let i = 0; i < 600; i++) {
      c = await row(uuid);
      if (!c || c.status === 'DELETE_FAILED') break;
      await sleep(500);
    }
    assert.equal(c, null, `${name}: ${c?.status}: ${c?.status_reason}`);
    assert.notEqual((await os.run(who, ['coe', 'cluster', 'show', name])).code, 0, 'the CLI finds no such cluster');
  }

  for (const policy of ['default', 'admin_or_owner'] as const) {
    // Under the shipped default a plain member cannot even list load balancers: the cluster with one is made by a
    // member holding load-balancer_member; under admin_or_owner both by the plain member.
    const lbMaker: 'member' | 'lbMember' = policy === 'default' ? 'lbMember' : 'member';
    it(`under Octavia's ${policy} policy: a 1+1 without a load balancer (a plain member) and a 3+2 with one (${lbMaker === 'member' ? 'a plain member' : 'a member holding load-balancer_member'}) reach the wait for their API with every planned resource present and tagged; deleted, they leave nothing of the project`, async () => {
      await cloud.setOctaviaPolicy(policy);
      try {
        if (policy === 'default') assert.equal((await sessions.member.call('GET', `${endpoint('load-balancer')}/v2/lbaas/loadbalancers`)).status, 403, 'a plain member may not list load balancers');
        const lbReader = sessions[lbMaker];
        const plain = { name: `lane-${policy}`, template: 'lane', masters: 1, workers: 1 };
        const withLb = { name: `lane-lb-${policy}`, template: 'lane-lb', masters: 3, workers: 2 };
        const [a, b] = await Promise.all([created('member', lbReader, plain), created(lbMaker, lbReader, withLb)]);
        const events = await t.app.services.db.getRepository(ClusterEventEntity).find({ where: { cluster_id: b } });
        const stuck = events.filter((e) => e.type === 'LoadBalancerChildrenStuck');
        assert.ok(stuck.length > 0, 'Octavia without the jobboard left the graph create\'s children pending: they were built again');
        assert.match(stuck[0]!.message, /is ACTIVE but its (listener|pool) \S+ stays? PENDING_CREATE/);
        await Promise.all([deleted('member', plain.name, a), deleted(lbMaker, withLb.name, b)]);
        const left = await leftInProject(cloud, tenant, lbReader, [sessions.member, sessions.lbMember]);
        assert.deepEqual(left, Object.fromEntries(Object.keys(left).map((k) => [k, []])), 'nothing of the project is left');
      } finally {
        await cloud.setOctaviaPolicy('default');
      }
    });
  }

  it('a worker no host can take (No valid host was found) is booted again twice, then the create fails naming it and Nova\'s fault; the delete leaves nothing', async () => {
    // More disk than the fake hypervisor has; disk is in no quota, so only Nova's scheduler refuses it.
    const flavor = await os.json('admin', ['flavor', 'create', `lane-too-big-${tenant.projectName}`, '--vcpus', '1', '--ram', '512', '--disk', '1000000', '--private', '--project', tenant.projectId]);
    try {
      await os.ok('member', [
        'coe', 'cluster', 'template', 'create', 'lane-big', '--coe', 'kubernetes', '--image', 'ubuntu-2404-kube-v1.35.5',
        '--external-network', 'public', '--flavor', flavor.name, '--master-flavor', 'm1.medium', '--network-driver', 'calico', '--labels', 'kube_tag=v1.35.5',
      ]);
      await os.ok('member', ['coe', 'cluster', 'create', 'lane-big', '--cluster-template', 'lane-big', '--master-count', '1', '--node-count', '1']);
      const uuid = (await os.json('member', ['coe', 'cluster', 'show', 'lane-big'])).uuid as string;
      let c;
      for (let i = 0; i < 600; i++) {
        c = await row(uuid);
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
        c = await row(uuid);
        if (!c || c.status === 'DELETE_FAILED') break;
        await sleep(500);
      }
      assert.equal(c, null, `${c?.status}: ${c?.status_reason}`);
      assert.deepEqual((await sessions.member.expect('GET', `${endpoint('compute')}/servers/detail`, [200])).body.servers, []);
      const ports = (await admin.expect('GET', `${endpoint('network')}/v2.0/ports?project_id=${tenant.projectId}`, [200])).body.ports as unknown[];
      assert.deepEqual(ports, []);
    } finally {
      await os.ok('admin', ['flavor', 'delete', flavor.id]);
    }
  });
});
