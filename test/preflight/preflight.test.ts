// The pre-flight (src/preflight/preflight.ts) of a cluster create, a node group create and a CA rotation
// against the simulated cloud: what the cluster names must exist, and its bill must fit the project's
// quotas; else nothing is written.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEntity, type ClusterRow } from '../../src/db/entities/cluster.js';
import { startRotateCredential } from '../../src/clusters/rotate-credential.js';
import { ApiError } from '../../src/domain/errors.js';
import { NodeGroupEntity } from '../../src/db/entities/nodegroup.js';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { OctaviaClient } from '../../src/openstack/octavia.js';
import { groupPlan, groupPlans, Preflight } from '../../src/preflight/preflight.js';
import { clusterRow, nodegroupRow, specOf, templateRow } from '../support/rows.js';
import { callerOf } from '../support/callers.js';
import { testApp, type TestApp } from '../support/app.js';
import { insertCluster } from '../support/cluster-fixture.js';

let t: TestApp;
let template: string;
let demoProject: string;

before(async () => {
  t = await testApp({ cloud: true });
  demoProject = t.keystone.state.findProjectByName('demo', 'default')!.id;
  const res = await t.as('demo', {
    method: 'POST',
    url: '/v1/clustertemplates',
    payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', labels: { kube_tag: 'v1.35.1' } },
  });
  assert.equal(res.statusCode, 201, res.body);
  template = res.json().uuid;
});
after(() => t.close());
// The creates of one test are accepted and never run (no worker): their operations end before the next test,
// so that what they hold of the quotas (src/preflight/holds.ts) does not weigh on it.
beforeEach(() => t.app.services.db.query("UPDATE operation SET state = 'succeeded', finished_at = now() WHERE state IN ('pending', 'queued', 'running')"));

const create = (body: Record<string, unknown> = {}) => t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, ...body } });
const clusters = () => t.app.services.db.getRepository(ClusterEntity).count();
const appCreds = () => t.keystone.state.appCreds.all().length;
const sims = () => t.cloud!.sims;

test('a keypair, flavor or network that does not exist is refused before anything is made', async () => {
  const before = [await clusters(), appCreds()];
  const kp = await create({ keypair: 'nope' });
  assert.equal(kp.statusCode, 404);
  assert.equal(kp.json().errors[0].detail, 'Unable to find keypair nope.');
  const flavor = await create({ flavor_id: 'm9.huge' });
  assert.equal(flavor.statusCode, 400);
  assert.equal(flavor.json().errors[0].detail, 'Unable to find flavor m9.huge.');
  const net = await create({ fixed_network: 'nowhere' });
  assert.equal(net.statusCode, 400);
  assert.equal(net.json().errors[0].detail, 'Unable to find network nowhere.');
  assert.deepEqual([await clusters(), appCreds()], before);
});

test('a bill larger than the quotas is one 403 naming each missing resource; nothing is written', async () => {
  t.cloud!.nova.setQuota(demoProject, { cores: 4, instances: 3 });
  t.cloud!.neutron.quotas.set(demoProject, { floatingip: 0 });
  try {
    const before = [await clusters(), appCreds()];
    const res = await create({ node_count: 3, floating_ip_enabled: true });
    assert.equal(res.statusCode, 403, res.body);
    const detail: string = res.json().errors[0].detail;
    assert.match(detail, /^Resource limit exceeded: /);
    assert.match(detail, /instances: needed 4, in use 0, limit 3/);
    assert.match(detail, /cores: needed 5, in use 0, limit 4/);
    assert.match(detail, /floatingip: needed 4, in use 0, limit 0/);
    assert.deepEqual([await clusters(), appCreds()], before);
  } finally {
    t.cloud!.nova.quotas.delete(demoProject);
    t.cloud!.neutron.quotas.delete(demoProject);
  }
  assert.equal((await create({ node_count: 3 })).statusCode, 202);
});

test('Cinder and Octavia quotas count too; load balancers are counted in the caller’s project only, an admin’s too', async () => {
  const sims = t.cloud!.sims;
  const adminProject = t.keystone.state.findProjectByName('admin', 'default')!.id;
  sims.cinder.state.setQuota(demoProject, { volumes: 1, gigabytes: 15 });
  try {
    const res = await create({ docker_volume_size: 10 });
    assert.equal(res.statusCode, 403, res.body);
    const detail: string = res.json().errors[0].detail;
    assert.match(detail, /volumes: needed 2, in use 0, limit 1/);
    assert.match(detail, /gigabytes: needed 20, in use 0, limit 15/);
  } finally {
    sims.cinder.state.quotas.delete(demoProject);
  }
  // A load balancer of demo's, which an admin's list would show without the project filter.
  const subnet = [...t.cloud!.neutron.subnets.values()].find((x) => x.name === 'public-subnet')!;
  const octavia = new OctaviaClient({ service: 'load-balancer', baseUrl: sims.urls['load-balancer'], token: await t.token('demo'), timeoutMs: 5000 });
  await octavia.createLoadBalancer({ vip_subnet_id: subnet.id });
  sims.octavia.state.setQuota(adminProject, { load_balancer: 1 });
  try {
    const asAdmin = (body: Record<string, unknown>) => t.as('admin', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, master_lb_enabled: true, ...body } });
    assert.equal((await asAdmin({ name: 'lb-fits' })).statusCode, 202);
    sims.octavia.state.setQuota(adminProject, { load_balancer: 0 });
    const full = await asAdmin({ name: 'lb-over' });
    assert.equal(full.statusCode, 403, full.body);
    assert.match(full.json().errors[0].detail, /load_balancer: needed 1, in use \d+, (held by accepted operations 1, )?limit 0/);
  } finally {
    sims.octavia.state.quotas.delete(adminProject);
  }
});

test('the node image contract at create: a prebuilt image must carry kube_tag\'s version; an image that stopped meeting the contract is refused', async () => {
  const mk = async (name: string, image: string, labels: Record<string, string>) => {
    const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name, coe: 'kubernetes', image_id: image, external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', labels } });
    assert.equal(r.statusCode, 201, r.body);
    return r.json().uuid as string;
  };
  const prebuilt = await mk('prebuilt', 'ubuntu-2404-kube-v1.35.5', { kube_tag: 'v1.35.5' });
  const before = [await clusters(), appCreds()];
  const other = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: prebuilt, labels: { kube_tag: 'v1.36.1' } } });
  assert.equal(other.statusCode, 400, other.body);
  assert.equal(other.json().errors[0].detail,
    "Image ubuntu-2404-kube-v1.35.5 carries Kubernetes v1.35.5 (property kube_version) but the cluster's kube_tag is v1.36.1: set the label kube_tag=v1.35.5 or choose an image of v1.36.1.");
  // Without kube_tag the default version applies, which this image does not carry either.
  const silent = await mk('prebuilt-no-tag', 'ubuntu-2404-kube-v1.36.1', {});
  const dflt = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: silent } });
  assert.equal(dflt.statusCode, 400, dflt.body);
  assert.match(dflt.json().errors[0].detail, /carries Kubernetes v1\.36\.1 .* kube_tag is v1\.35\.5/);
  assert.deepEqual([await clusters(), appCreds()], before, 'nothing written');
  // The image changed after the template was made: the create checks it again.
  const image = t.cloud!.glance.byName('ubuntu-24.04')!;
  image.properties.os_distro = 'debian';
  try {
    const r = await create();
    assert.equal(r.statusCode, 400, r.body);
    assert.match(r.json().errors[0].detail, /^Cluster type \(vm, debian, kubernetes\) not supported\. Image ubuntu-24\.04 cannot boot Kubernetes nodes: its os_distro is 'debian'; nodes boot from images with os_distro ubuntu \(cloud-init\) or fedora-coreos \(Ignition\)\.$/);
  } finally {
    image.properties.os_distro = 'ubuntu';
  }
  const same = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: prebuilt } });
  assert.equal(same.statusCode, 202, same.body);
});

test('a node group create and a CA rotation are billed too: a shortage is the 403 naming the quota, nothing is written', async () => {
  const user = t.keystone.state.findUserByName('demo', 'default')!.id;
  const { cluster } = await insertCluster(t.app, { user, project: demoProject, name: 'billed', nodegroups: true, template: { master_lb_enabled: true, labels: { kube_tag: 'v1.35.2', boot_volume_size: '10' } } });
  const db = t.app.services.db;
  const written = async () => [await db.getRepository(NodeGroupEntity).count(), await db.getRepository(OperationEntity).count()];
  const before = await written();
  sims().cinder.state.setQuota(demoProject, { volumes: 1 });
  try {
    // Two nodes of a new group: two boot volumes.
    const ng = await t.as('demo', { method: 'POST', url: `/v1/clusters/${cluster.uuid}/nodegroups`, payload: { name: 'more', node_count: 2 } });
    assert.equal(ng.statusCode, 403, ng.body);
    assert.match(ng.json().errors[0].detail, /^Resource limit exceeded: .*volumes: needed 2, in use 0, limit 1\./);
    // The rotation's surge: one node at a time, its boot volume; none left.
    sims().cinder.state.setQuota(demoProject, { volumes: 0 });
    const rotate = await t.as('demo', { method: 'PATCH', url: `/v1/certificates/${cluster.uuid}`, headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(rotate.statusCode, 403, rotate.body);
    assert.match(rotate.json().errors[0].detail, /volumes: needed 1, in use 0, limit 0/);
    assert.deepEqual(await written(), before);
  } finally {
    sims().cinder.state.quotas.delete(demoProject);
  }
  const ok = await t.as('demo', { method: 'POST', url: `/v1/clusters/${cluster.uuid}/nodegroups`, payload: { name: 'more', node_count: 2 } });
  assert.equal(ok.statusCode, 202, ok.body);
});

describe('the pre-flight as functions', () => {
  test('groupPlan: the group’s flavor, else the cluster’s (its master flavor for control planes), else the template’s', () => {
    const tpl = templateRow({ flavor_id: 't-small', master_flavor_id: 't-medium' });
    const c = clusterRow(tpl, { flavor_id: null, master_flavor_id: 'c-large' });
    const master = nodegroupRow(c, { role: 'master', flavor_id: null, node_count: 3 });
    const worker = nodegroupRow(c, { role: 'worker', flavor_id: null, docker_volume_size: 20 });
    assert.deepEqual(groupPlans(c, tpl, [master, worker]), [
      { name: 'default-master', role: 'master', count: 3, flavor: 'c-large', image: 'ubuntu-24.04', runtimeVolumeGb: null },
      { name: 'default-worker', role: 'worker', count: 1, flavor: 't-small', image: 'ubuntu-24.04', runtimeVolumeGb: 20 },
    ]);
    assert.equal(groupPlan(c, tpl, { ...worker, flavor_id: 'own' }).flavor, 'own');
  });

  test('with CLOUD_RESOURCE_CHECKS off: the bill is computed, nothing is checked, the cloud is asked nothing', async () => {
    let asked = 0;
    const preflight = new Preflight({
      checkCloud: false,
      authUrl: t.config.keystone.authUrl,
      maxClustersPerProject: 3,
      clouds: { for: () => (asked++, undefined) } as never,
      quotas: { clusterUsage: async () => ({ limit: 3, used: 3 }), holds: async () => [] },
      checks: undefined,
      steps: [{ name: 'masters', bill: ({ groups }) => ({ instances: groups.reduce((n, g) => n + g.count, 0) }) }],
    });
    const tpl = templateRow();
    const c = clusterRow(tpl);
    const who = await callerOf(t, 'demo');
    const bill = await preflight.assess(who, { template: tpl, cluster: c, spec: specOf(), bill: { kind: 'create', groups: groupPlans(c, tpl, [nodegroupRow(c, { role: 'master' }), nodegroupRow(c, { node_count: 2 })]) } });
    assert.equal(bill.checked, false);
    assert.equal(bill.lines.find((l) => l.quota === 'instances')!.needed, 3);
    assert.ok(bill.lines.every((l) => !l.short && l.limit === null), 'no line is checked, not even the clusters');
    assert.equal(await preflight.fixedSubnetCidr(who, 'some-subnet'), undefined);
    await preflight.checkZones(who, [{ label: 'availability_zone', zone: 'mars' }]);
    assert.equal(asked, 0);
  });

  test('fixedSubnetCidr: the subnet’s CIDR by name or id; an unknown one is a 400', async () => {
    const who = await callerOf(t, 'demo');
    const neutron = t.cloud!.neutron;
    const net = neutron.addNetwork({ name: 'preflight-net', projectId: demoProject });
    const subnet = neutron.addSubnet({ networkId: net.id, cidr: '10.99.0.0/24', name: 'preflight-subnet' });
    assert.equal(await t.app.services.preflight.fixedSubnetCidr(who, 'preflight-subnet'), '10.99.0.0/24');
    assert.equal(await t.app.services.preflight.fixedSubnetCidr(who, subnet.id), '10.99.0.0/24');
    await assert.rejects(t.app.services.preflight.fixedSubnetCidr(who, 'no-such-subnet'), /Unable to find subnet no-such-subnet\./);
    assert.equal(await t.app.services.preflight.fixedSubnetCidr(who, null), undefined);
  });
});

test('fixed_subnet_cidr may not touch loopback, link-local (the metadata service), multicast or 0.0.0.0/8: a 400 naming the label, nothing written', async () => {
  const before = [await clusters(), appCreds()];
  const reserved = [
    ['127.0.0.0/24', /loopback/], ['169.254.0.0/24', /link-local, where the metadata service answers/], ['169.254.169.0/28', /link-local/],
    ['224.0.0.0/24', /multicast/], ['239.255.0.0/16', /multicast/], ['0.0.0.0/24', /"this network"/], ['0.0.0.0/0', /"this network"/],
    ['128.0.0.0/1', /link-local/], ['255.255.255.240/28', /broadcast/],
  ] as const;
  for (const [cidr, why] of reserved) {
    const r = await create({ labels: { fixed_subnet_cidr: cidr } });
    assert.equal(r.statusCode, 400, `${cidr}: ${r.body}`);
    const e = r.json().errors[0];
    assert.equal(e.status, 400);
    assert.match(e.detail, new RegExp(`^Invalid input for label fixed_subnet_cidr\\. Value: '${cidr.replace(/\./g, '\\.')}'\\. A cluster subnet may not overlap `), cidr);
    assert.match(e.detail, why, cidr);
  }
  // IPv6 ones (loopback, link-local, multicast, unspecified) are not IPv4 CIDRs: refused as the label is.
  for (const cidr of ['::1/128', 'fe80::/64', 'ff02::/16', '::/0', 'fd00:ec2::254/128']) {
    const r = await create({ labels: { fixed_subnet_cidr: cidr } });
    assert.equal(r.statusCode, 400, `${cidr}: ${r.body}`);
    assert.match(r.json().errors[0].detail, /^Invalid input for label fixed_subnet_cidr\. /);
  }
  assert.deepEqual([await clusters(), appCreds()], before);
  assert.equal((await create({ labels: { fixed_subnet_cidr: '192.168.40.0/24' } })).statusCode, 202);
});

test('a flavor whose disk is smaller than the image needs is refused at create, resize and node group create, naming both; boot volumes are weighed instead', async () => {
  // ubuntu-24.04: min_disk 10 GB; m1.tiny's disk is 1 GB.
  const tinyDetail = "Flavor m1.tiny's disk (1 GB) is smaller than image ubuntu-24.04 needs (10 GB, its min_disk or its size). Choose a flavor with a larger disk, or boot the nodes from volumes (label boot_volume_size).";
  const before = [await clusters(), appCreds()];
  for (const body of [{ flavor_id: 'm1.tiny' }, { master_flavor_id: 'm1.tiny' }]) {
    const r = await create(body);
    assert.equal(r.statusCode, 400, r.body);
    assert.equal(r.json().errors[0].detail, tinyDetail);
  }
  // The image's size counts when larger than its min_disk: 1.5 GiB on a 1 GB disk.
  const big = t.cloud!.glance.addImage({ name: 'ubuntu-big', min_disk: 0, size: 1.5 * 1024 ** 3, properties: { os_distro: 'ubuntu' } });
  const bigTemplate = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'big-image', coe: 'kubernetes', image_id: 'ubuntu-big', external_network_id: 'public', flavor_id: 'm1.tiny', master_flavor_id: 'm1.medium' } });
  assert.equal(bigTemplate.statusCode, 201, bigTemplate.body);
  const bigCreate = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: bigTemplate.json().uuid } });
  assert.equal(bigCreate.statusCode, 400, bigCreate.body);
  assert.match(bigCreate.json().errors[0].detail, /^Flavor m1\.tiny's disk \(1 GB\) is smaller than image ubuntu-big needs \(2 GB, /);
  // Booting from volumes: the volume must hold the image, the flavor's disk is not used.
  const small = await create({ flavor_id: 'm1.tiny', labels: { kube_tag: 'v1.35.1', boot_volume_size: '5' } });
  assert.equal(small.statusCode, 400, small.body);
  assert.equal(small.json().errors[0].detail, 'The boot volume (label boot_volume_size=5) is smaller than image ubuntu-24.04 needs (10 GB, its min_disk or its size).');
  assert.deepEqual([await clusters(), appCreds()], before, 'nothing written');
  // A flavor without a disk (0: the root disk is sized by the image or a volume) has nothing to weigh.
  t.cloud!.nova.addFlavor({ id: 'z1', name: 'z1.diskless', vcpus: 1, ram: 2048, disk: 0 });
  assert.equal((await create({ flavor_id: 'z1.diskless' })).statusCode, 202);
  assert.equal((await create({ flavor_id: 'm1.tiny', labels: { kube_tag: 'v1.35.1', boot_volume_size: '10' } })).statusCode, 202);

  // An existing cluster whose workers' flavor became too small for its image (a template's later flavor).
  const user = t.keystone.state.findUserByName('demo', 'default')!.id;
  const { cluster } = await insertCluster(t.app, { user, project: demoProject, name: 'tiny-workers', nodegroups: true, template: { flavor_id: 'm1.tiny' } });
  const db = t.app.services.db;
  const written = async () => [await db.getRepository(NodeGroupEntity).count(), await db.getRepository(OperationEntity).count()];
  const beforeOps = await written();
  const resize = await t.as('demo', { method: 'POST', url: `/v1/clusters/${cluster.uuid}/actions/resize`, payload: { node_count: 3 } });
  assert.equal(resize.statusCode, 400, resize.body);
  assert.equal(resize.json().errors[0].detail, tinyDetail);
  const ng = await t.as('demo', { method: 'POST', url: `/v1/clusters/${cluster.uuid}/nodegroups`, payload: { name: 'tiny', node_count: 1 } });
  assert.equal(ng.statusCode, 400, ng.body);
  assert.equal(ng.json().errors[0].detail, tinyDetail);
  const own = await t.as('demo', { method: 'POST', url: `/v1/clusters/${cluster.uuid}/nodegroups`, payload: { name: 'big', node_count: 1, flavor_id: 'm1.small', image_id: 'ubuntu-big' } });
  assert.equal(own.statusCode, 202, own.body);
  const ownTiny = await t.as('demo', { method: 'POST', url: `/v1/clusters/${cluster.uuid}/nodegroups`, payload: { name: 'big-tiny', node_count: 1, flavor_id: 'm1.tiny', image_id: 'ubuntu-big' } });
  assert.equal(ownTiny.statusCode, 400, ownTiny.body);
  assert.match(ownTiny.json().errors[0].detail, /^Flavor m1\.tiny's disk \(1 GB\) is smaller than image ubuntu-big needs \(2 GB, /);
  assert.equal((await written())[0], beforeOps[0]! + 1, 'only the group that fits was written');
  t.cloud!.glance.images.delete(big.id);
  t.cloud!.nova.removeFlavor('z1');
});

test('the pre-checks try a cloud read again when it failed for a moment (5xx, a dropped connection); only one that keeps failing is the 503', async () => {
  const nova = t.cloud!.nova;
  for (const rule of [{ status: 503, times: 2 }, { status: 500, times: 1 }, { action: 'drop' as const, times: 2 }]) {
    const clear = nova.faults.inject({ ...rule, method: 'GET' });
    try {
      const r = await create();
      assert.equal(r.statusCode, 202, `${JSON.stringify(rule)}: ${r.body}`);
      assert.equal(nova.faults.list()[0]?.hits ?? rule.times, rule.times, 'every fault was met, and passed');
    } finally {
      clear();
    }
  }
  const before = [await clusters(), appCreds()];
  const clear = nova.faults.inject({ status: 503, method: 'GET' });
  try {
    const r = await create();
    assert.equal(r.statusCode, 503, r.body);
    assert.equal(r.json().errors[0].detail, 'The compute service is temporarily unavailable.');
    assert.equal(nova.faults.list()[0]!.hits, 3, 'three attempts (OPENSTACK_API_ATTEMPTS), then the answer');
  } finally {
    clear();
  }
  assert.deepEqual([await clusters(), appCreds()], before);
});

test('under Octavia\'s shipped policy a user without load-balancer_member is refused a cluster with a load balancer at create, naming the role; nothing is made, and one without a load balancer is accepted', async () => {
  sims().octavia.state.behaviour.policy = 'default';
  try {
    const before = [await clusters(), appCreds()];
    const res = await create({ master_count: 1, node_count: 1, master_lb_enabled: true });
    assert.equal(res.statusCode, 403, res.body);
    const detail = res.json().errors[0].detail as string;
    assert.match(detail, /load-balancer_member on project /);
    assert.match(detail, /a load balancer \(master_lb_enabled\)/);
    assert.deepEqual([await clusters(), appCreds()], before, 'nothing written, no credential made');
    assert.equal((await create({ master_count: 1, node_count: 1, master_lb_enabled: false })).statusCode, 202);
  } finally {
    sims().octavia.state.behaviour.policy = 'admin_or_owner';
  }
});

test('under Octavia\'s shipped policy a user without load-balancer_member may not rotate the credential of a cluster with a load balancer (the new one would carry only their roles), naming the role; nothing is made; with the role, or for a cluster without one, it is accepted', async () => {
  const ks = t.keystone.state;
  const user = ks.findUserByName('demo', 'default')!.id;
  const { cluster: withLb } = await insertCluster(t.app, { user, project: demoProject, name: 'rotate-lb', nodegroups: true, template: { master_lb_enabled: true } });
  const { cluster: noLb } = await insertCluster(t.app, { user, project: demoProject, name: 'rotate-no-lb', nodegroups: true, template: { master_lb_enabled: false } });
  sims().octavia.state.behaviour.policy = 'default';
  try {
    const before = appCreds();
    await assert.rejects(startRotateCredential(t.app.services, await callerOf(t, 'demo'), withLb), (e) => {
      assert.ok(e instanceof ApiError && e.status === 403 && e.id === 'cloud_role_missing', String(e));
      assert.match(e.message, /load-balancer_member on project /);
      assert.match(e.message, /let a user who holds it rotate the credential/);
      return true;
    });
    assert.equal(appCreds(), before, 'no credential made');
    assert.equal((await t.app.services.clusters.find(withLb.uuid, { all: true }) as ClusterRow).app_cred_id, withLb.app_cred_id, 'the row unchanged');
    await startRotateCredential(t.app.services, await callerOf(t, 'demo'), noLb);
    assert.equal(appCreds(), before + 1, 'a cluster without a load balancer: rotated');
    ks.assignRole(user, demoProject, 'load-balancer_member');
    try {
      await startRotateCredential(t.app.services, await callerOf(t, 'demo'), withLb);
      assert.equal(appCreds(), before + 2, 'with the role: rotated');
    } finally {
      ks.unassignRole(user, demoProject, 'load-balancer_member');
    }
  } finally {
    sims().octavia.state.behaviour.policy = 'admin_or_owner';
  }
});
