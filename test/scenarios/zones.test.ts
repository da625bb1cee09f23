// Availability zones through the API, against a simulated Nova of three zones (nova, az-2, az-3): control
// planes and workers spread one per zone by their index, their volumes made in their zone (where Nova, at
// its default cross_az_attach, would have made them in Cinder's default zone; and accepted by a Nova that
// keeps volumes in their server's zone), their Nodes labelled with it by the cloud provider (read
// back through the cluster's API); a node group of its own zone; a freed index refilled in its zone; zones the
// cloud does not offer refused at template, cluster and node group create; a spread that loses etcd's quorum
// with one zone said in the events; the delete leaving nothing behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, deleteCluster, type Harness, leftovers, servers, settled, until, userKubeClient, withHarness } from './lifecycle-support.js';

let h: Harness;
withHarness(
  (x) => {
    h = x;
    h.t.cloud!.sims.cinder.state.defaultQuota = { volumes: -1, gigabytes: -1 };
  },
  { roomy: true },
);

const ZONES = 'nova,az-2,az-3';
const OFFERED = "(Nova's zones: nova, az-2, az-3)";

/** The cluster's live servers with their zone and group, by name. */
function placed(uuid: string): Map<string, { id: string; zone: string; role: string; group: string; index: string }> {
  const nova = h.t.cloud!.nova;
  const out = new Map<string, { id: string; zone: string; role: string; group: string; index: string }>();
  for (const [name, s] of servers(h, uuid)) {
    const md = s.metadata;
    out.set(name, { id: s.id, zone: nova.servers.get(s.id)!.availabilityZone, role: md.magnum_role!, group: md.magnum_nodegroup!, index: md.magnum_node_index! });
  }
  return out;
}

const zonesOf = (m: Map<string, { zone: string }>, pick: (x: { zone: string; role: string }) => boolean) =>
  [...m.values()].filter((x) => pick(x as { zone: string; role: string })).map((x) => x.zone).sort();

test('zones the cloud does not offer are 400s naming the zone and the offered ones; nothing is made', async () => {
  const before = (await api(h, 'GET', '/v1/clusters')).body.clusters.length;
  const cluster = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'mars', master_count: 3, labels: { kube_tag: 'v1.35.1', control_plane_availability_zones: 'nova,az-9,az-3' } });
  assert.equal(cluster.status, 400, JSON.stringify(cluster.body));
  assert.equal(cluster.body.errors[0].detail, `Invalid input for label control_plane_availability_zones. Value: 'az-9'. The cloud offers no availability zone az-9 ${OFFERED}.`);
  const twice = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'twice', labels: { kube_tag: 'v1.35.1', worker_availability_zones: 'nova,nova' } });
  assert.equal(twice.status, 400);
  assert.match(twice.body.errors[0].detail, /worker_availability_zones.*Zone nova is listed twice/);
  const template = await api(h, 'POST', '/v1/clustertemplates', { name: 'on-mars', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', labels: { availability_zone: 'mars' } });
  assert.equal(template.status, 400, JSON.stringify(template.body));
  assert.equal(template.body.errors[0].detail, `Invalid input for label availability_zone. Value: 'mars'. The cloud offers no availability zone mars ${OFFERED}.`);
  const patched = await api(h, 'PATCH', `/v1/clustertemplates/${h.templates.v136}`, [{ op: 'add', path: '/labels/worker_availability_zones', value: 'az-2,venus' }]);
  assert.equal(patched.status, 400, JSON.stringify(patched.body));
  assert.match(patched.body.errors[0].detail, /venus/);
  assert.equal((await api(h, 'GET', '/v1/clusters')).body.clusters.length, before);
});

test('3 control planes and 3 workers over three zones: one of each per zone, volumes in it, Nodes labelled with it; node groups and resizes keep the spread; delete leaves nothing', async () => {
  const labels = { kube_tag: 'v1.35.1', control_plane_availability_zones: ZONES, worker_availability_zones: ZONES, etcd_volume_size: '2' };
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'spread', master_count: 3, node_count: 3, docker_volume_size: 3, labels });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');

  let nodes = placed(uuid);
  assert.deepEqual(zonesOf(nodes, (x) => x.role !== 'worker'), ['az-2', 'az-3', 'nova'], 'one control plane per zone');
  assert.deepEqual(zonesOf(nodes, (x) => x.role === 'worker'), ['az-2', 'az-3', 'nova'], 'one worker per zone');
  // Each server's volumes (etcd, runtime) are in its zone.
  const cinder = h.t.cloud!.sims.cinder.state;
  for (const [name, s] of nodes) {
    const vols = [...cinder.volumes.values()].filter((v) => cinder.attachmentsOf(v.id).some((a) => a.serverId === s.id));
    assert.equal(vols.length, s.role === 'worker' ? 1 : 2, `${name}: its volumes`);
    for (const v of vols) assert.equal(v.availabilityZone, s.zone, `${name}: ${v.name} in its zone`);
  }
  const events = JSON.stringify((await api(h, 'GET', `/v1/clusters/${uuid}/events`)).body);
  assert.ok(!events.includes('ZoneQuorumAtRisk'), 'three over three keeps the quorum when a zone goes');

  // A node group of its own zone: every node there.
  const bad = await api(h, 'POST', `/v1/clusters/${uuid}/nodegroups`, { name: 'lost', node_count: 1, labels: { availability_zone: 'az-7' }, merge_labels: true });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  assert.equal(bad.body.errors[0].detail, `Invalid input for label availability_zone. Value: 'az-7'. The cloud offers no availability zone az-7 ${OFFERED}.`);
  const edge = await api(h, 'POST', `/v1/clusters/${uuid}/nodegroups`, { name: 'edge', node_count: 2, labels: { availability_zone: 'az-3' }, merge_labels: true });
  assert.equal(edge.status, 202, JSON.stringify(edge.body));
  await settled(h, uuid, 'UPDATE_COMPLETE');
  nodes = placed(uuid);
  const edgeNodes = [...nodes.entries()].filter(([n]) => n.includes('-edge-'));
  assert.deepEqual(edgeNodes.map(([, x]) => x.zone), ['az-3', 'az-3'], 'the group\'s own zone');

  // The Nodes carry their server's zone, set by the cloud provider.
  const kube = await userKubeClient(h, uuid);
  try {
    const listed = new Map((await kube.listNodes()).map((n) => [n.metadata.name, n]));
    assert.equal(listed.size, 8);
    for (const [name, s] of nodes) assert.equal(listed.get(name)?.metadata.labels?.['topology.kubernetes.io/zone'], s.zone, name);
  } finally {
    kube.close();
  }

  // A removed worker frees its index; the next node takes it, and so its zone.
  const defaultWorkers = () => [...placed(uuid).entries()].filter(([n, x]) => x.role === 'worker' && !n.includes('-edge-'));
  const [gone, goneNode] = defaultWorkers().find(([, x]) => x.zone === 'az-2')!;
  let resize = await api(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 2, nodes_to_remove: [goneNode.id] });
  assert.equal(resize.status, 202, JSON.stringify(resize.body));
  await settled(h, uuid, 'UPDATE_COMPLETE');
  assert.deepEqual(defaultWorkers().map(([, x]) => x.zone).sort(), ['az-3', 'nova']);
  resize = await api(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 4 });
  assert.equal(resize.status, 202, JSON.stringify(resize.body));
  await settled(h, uuid, 'UPDATE_COMPLETE');
  const after = defaultWorkers();
  assert.ok(!after.some(([n]) => n === gone));
  assert.deepEqual(after.map(([, x]) => `${x.index}:${x.zone}`).sort(), ['0:nova', '1:az-2', '2:az-3', '3:nova'], 'index 1 back in az-2, index 3 round to nova');

  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), [], 'servers, volumes and the rest went');
});

test('control planes over two zones: created, with a warning that losing the zone of two loses etcd\'s quorum', async () => {
  // A Nova that refuses a server whose volumes are in another zone.
  h.t.cloud!.nova.behaviour.crossAzAttach = false;
  const labels = { kube_tag: 'v1.35.1', control_plane_availability_zones: 'az-2,az-3', etcd_volume_size: '2' };
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'two', master_count: 3, node_count: 0, labels });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  const warning = await until('the quorum warning', async () => {
    const events = (await api(h, 'GET', `/v1/clusters/${uuid}/events`)).body.events as { reason: string; message: string; severity: string }[];
    return events.find((e) => e.reason === 'ZoneQuorumAtRisk');
  });
  assert.equal(warning.severity, 'warning');
  assert.equal(warning.message, "3 control planes over az-2, az-3: losing az-2 (2 of them) loses etcd's quorum of 2. 3 or 5 control planes over 3 zones survive the loss of any one.");
  await settled(h, uuid, 'CREATE_COMPLETE');
  assert.deepEqual(zonesOf(placed(uuid), () => true), ['az-2', 'az-2', 'az-3']);
  const cinder = h.t.cloud!.sims.cinder.state;
  for (const s of placed(uuid).values()) {
    const etcd = [...cinder.volumes.values()].find((v) => cinder.attachmentsOf(v.id).some((a) => a.serverId === s.id))!;
    assert.equal(etcd.availabilityZone, s.zone);
  }
  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});
