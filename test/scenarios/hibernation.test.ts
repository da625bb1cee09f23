// Hibernation end to end on the simulated cloud (issue 28): a 1+1 cluster hibernates (every server
// SHELVED_OFFLOADED, off its host, its ports unchanged, the API silent; Magnum's status UPDATE_COMPLETE while
// the extension says HIBERNATED and other changes are refused), wakes (the same ports, every node Ready, the
// API answering, its objects kept), hibernates again and is deleted while hibernated, leaving nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeReady } from '../../src/kube/api-client.js';
import { clusterKube, closeClusterKubes } from './cluster-kube.js';
import { api, createCluster, deleteCluster, leftovers, servers, settled, until, withHarness, type Harness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => {
  h = x;
});

const nova = () => h.t.cloud!.nova;
const sims = () => h.t.cloud!.sims;
/** Each server of the cluster: its status, host and ports (ids). */
function observed(uuid: string) {
  return [...servers(h, uuid).entries()].map(([name, { id }]) => {
    const s = nova().servers.get(id)!;
    const ports = [...sims().neutron.state.ports.values()].filter((p) => p.deviceId === id).map((p) => p.id).sort();
    return { name, id, vmState: s.vmState, host: s.host, ports };
  }).sort((a, b) => a.name.localeCompare(b.name));
}
/** vCPUs the project's servers hold on the compute hosts. */
const vcpusOnHosts = () => [...nova().servers.values()].filter((s) => s.projectId === h.project && s.vmState !== 'deleted' && s.host).reduce((n, s) => n + s.flavor.vcpus, 0);

test('hibernate: every server shelved off its host, the API silent, changes refused; wake: the same ports, nodes Ready; delete while hibernated leaves nothing', async () => {
  const uuid = await createCluster(h, 'sleepy', 1, 1);
  const created = await settled(h, uuid, 'CREATE_COMPLETE');
  const before = observed(uuid);
  assert.equal(before.length, 2);
  const kube = await clusterKube(h, uuid);
  await kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'default' }, data: { a: 'b' } });
  const onHosts = vcpusOnHosts();

  const view = await api(h, 'GET', `/v1/clusters/${uuid}/hibernation`);
  assert.equal(view.status, 200, JSON.stringify(view.body));
  // m1.medium (2 vCPUs, 4096 MiB) for the control plane, m1.small (1, 2048) for the worker
  assert.deepEqual([view.body.state, view.body.hibernated_at, view.body.frees], ['AWAKE', null, { servers: 2, vcpus: 3, ram_mb: 6144 }]);
  assert.equal((await api(h, 'POST', `/v1/clusters/${uuid}/actions/hibernate`, { now: true })).status, 400, 'the action takes no arguments');

  const asked = await api(h, 'POST', `/v1/clusters/${uuid}/actions/hibernate`);
  assert.equal(asked.status, 202, JSON.stringify(asked.body));
  assert.deepEqual(asked.body, { uuid });
  assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}/hibernation`)).body.state, 'HIBERNATING');
  const done = await settled(h, uuid, 'UPDATE_COMPLETE');
  assert.deepEqual(Object.keys(done).sort(), Object.keys(created).sort(), "Magnum's fields, nothing added");
  const asleep = observed(uuid);
  assert.ok(asleep.every((s) => s.vmState === 'shelved_offloaded' && s.host === null), JSON.stringify(asleep));
  assert.deepEqual(asleep.map((s) => s.ports), before.map((s) => s.ports), 'the same ports');
  assert.equal(vcpusOnHosts(), onHosts - 3, 'the hosts freed');
  assert.equal(await kube.readyz(), false, 'the API is silent');
  const hib = (await api(h, 'GET', `/v1/clusters/${uuid}/hibernation`)).body;
  assert.equal(hib.state, 'HIBERNATED');
  assert.ok(Date.parse(hib.hibernated_at) > 0);
  const events = (await api(h, 'GET', `/v1/clusters/${uuid}/events`)).body;
  assert.deepEqual([events.conditions.workers.reason, events.conditions.control_plane.reason], ['Hibernated', 'Hibernated']);
  assert.ok(events.events.some((e: { reason: string }) => e.reason === 'Hibernated'));

  // refused while hibernated, in Magnum's envelope
  const resize = await api(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 2 });
  assert.equal(resize.status, 409);
  assert.equal(resize.body.errors[0].detail, `Cluster sleepy is hibernated: a resize is not possible while its servers are shelved. Wake it first (POST /v1/clusters/${uuid}/actions/wake).`);
  const again = await api(h, 'POST', `/v1/clusters/${uuid}/actions/hibernate`);
  assert.deepEqual([again.status, again.body.errors?.[0]?.detail], [409, 'Cluster sleepy is already hibernated.']);

  assert.equal((await api(h, 'POST', `/v1/clusters/${uuid}/actions/wake`)).status, 202);
  await settled(h, uuid, 'UPDATE_COMPLETE');
  const awake = observed(uuid);
  assert.ok(awake.every((s) => s.vmState === 'active' && s.host !== null), JSON.stringify(awake));
  assert.deepEqual(awake.map((s) => s.ports), before.map((s) => s.ports), 'the same ports back');
  assert.equal(vcpusOnHosts(), onHosts);
  // The worker saw /readyz answer before it ended the wake; this client's first ask may meet a socket the
  // silent API closed meanwhile.
  await until('the API answers this client again', async () => await kube.readyz(), 10_000);
  const nodes = await kube.listNodes();
  assert.equal(nodes.length, 2);
  assert.ok(nodes.every(nodeReady));
  assert.deepEqual((await kube.get('v1', 'ConfigMap', 'default', 'kept'))?.data, { a: 'b' }, "etcd's data kept");
  assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}/hibernation`)).body.state, 'AWAKE');
  const wakeAgain = await api(h, 'POST', `/v1/clusters/${uuid}/actions/wake`);
  assert.deepEqual([wakeAgain.status, wakeAgain.body.errors?.[0]?.detail], [409, 'Cluster sleepy is not hibernated: there is nothing to wake.']);
  closeClusterKubes();

  assert.equal((await api(h, 'POST', `/v1/clusters/${uuid}/actions/hibernate`)).status, 202);
  await settled(h, uuid, 'UPDATE_COMPLETE');
  assert.ok(observed(uuid).every((s) => s.vmState === 'shelved_offloaded'));
  await deleteCluster(h, uuid);
  await until('the cloud clean', async () => leftovers(h).length === 0, 30_000).catch(() => assert.deepEqual(leftovers(h), []));
});
