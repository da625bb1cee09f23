// Pre-flight of a cluster create, a node group create and a CA rotation against the simulated cloud:
// what the cluster names must exist, and its bill must fit the project's quotas; else nothing is written.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assess, shortage } from '../../src/preflight/assess.js';
import { zero } from '../../src/preflight/quotas.js';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { NodeGroupEntity } from '../../src/db/entities/nodegroup.js';
import { OperationEntity } from '../../src/db/entities/operation.js';
import { OctaviaClient } from '../../src/openstack/octavia.js';
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

const create = (body: Record<string, unknown> = {}) => t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, ...body } });
const clusters = () => t.app.services.db.getRepository(ClusterEntity).count();
const appCreds = () => t.keystone.state.appCreds.all().length;
const sims = () => t.cloud!.sims;

test('the shortage names each short quota with what is needed, in use and the limit; Magnum\'s own words when only its cluster quota is short', () => {
  const needs = { ...zero(), clusters: 1, instances: 4, cores: 5, port: 6 };
  const a = assess(needs, { cores: { limit: 20, used: 16 }, instances: { limit: -1, used: 99 }, port: { limit: 50, used: 0 }, clusters: { limit: 5, used: 1 } });
  assert.deepEqual(a.lines.filter((l) => l.short).map((l) => l.quota), ['cores']);
  assert.equal(a.lines.find((l) => l.quota === 'volumes')!.limit, null, 'a quota nobody reported is not checked');
  const e = shortage(a)!;
  assert.equal(e.status, 403);
  assert.equal(e.message, "Resource limit exceeded: the project's quotas leave too little for this request; cores: needed 5, in use 16, limit 20. Ask for a larger quota or a smaller request.");
  const onlyClusters = shortage(assess(needs, { clusters: { limit: 1, used: 1 } }))!;
  assert.equal(onlyClusters.message, 'Resource limit exceeded: You have reached the maximum clusters per project, 1. You may delete a cluster to make room for a new one.');
  assert.equal(shortage(assess(needs, {})), undefined);
});

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
    assert.match(full.json().errors[0].detail, /load_balancer: needed 1, in use \d+, limit 0/);
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
