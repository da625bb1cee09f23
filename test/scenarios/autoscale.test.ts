// Autoscaling (labels auto_scaling_enabled, min_node_count, max_node_count), done by the service's health pass:
// pods the scheduler reports Unschedulable get nodes (as many as their requests need, within max_node_count);
// a worker running only DaemonSet pods for the unneeded time is removed by name, never below min_node_count;
// a worker running a workload stays; a cluster without the label is left alone. The simulated cluster holds
// the pods the test writes, as a scheduler would report them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { CloudFactory } from '../../src/steps/cloud.js';
import { healthPass } from '../../workers/health.js';
import { api, deleteCluster, leftovers, servers, settled, until, withHarness, type Harness } from './lifecycle-support.js';

let h: Harness;
let factory: CloudFactory;
withHarness((x) => {
  h = x;
  factory = new CloudFactory(h.t.config);
});

const db = () => h.t.app.services.db;
const workers = (uuid: string) => [...servers(h, uuid).entries()].filter(([, s]) => s.metadata.magnum_role === 'worker').map(([n]) => n).sort();
const reason = async (uuid: string) => (await api(h, 'GET', `/v1/clusters/${uuid}`)).body.health_status_reason as Record<string, string>;

/** The simulated cluster whose Nodes include `node`. */
function clusterWith(node: string) {
  const c = [...h.t.cloud!.sims.kube.clusters.values()].find((x) => x.store.has({ group: '', resource: 'nodes', namespace: '', name: node }));
  assert.ok(c, `a simulated cluster has the Node ${node}`);
  return c;
}

function pod(name: string, status: Record<string, unknown>, spec: Record<string, unknown> = {}, owner?: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner, name: `${name}-owner`, uid: `${name}-uid` }] } : {}) },
    spec: { containers: [{ name: 'app', image: 'nginx:1.29.0', resources: { requests: { cpu: '1500m', memory: '1Gi' } } }], ...spec },
    status,
  };
}

const unschedulable = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: new Date(Date.now() - 60_000).toISOString() }] };

/** Nodes a workload pod (not a DaemonSet's, not a static one, not finished) is bound to, in the simulated cluster. */
function busyNodes(kube: ReturnType<typeof clusterWith>): Set<string> {
  const pods = kube.store.list('', 'pods') as unknown as { metadata: { ownerReferences?: { kind: string }[]; annotations?: Record<string, string> }; spec?: { nodeName?: string }; status?: { phase?: string } }[];
  return new Set(
    pods
      .filter((p) => !(p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet') && !p.metadata.annotations?.['kubernetes.io/config.mirror'])
      .filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed')
      .map((p) => p.spec?.nodeName)
      .filter((n): n is string => !!n),
  );
}

async function noOperationRuns(uuid: string): Promise<void> {
  await until('the operation to close', async () => (await db().query(`SELECT 1 FROM operation WHERE cluster_id = $1 AND state IN ('pending', 'queued', 'running')`, [uuid])).length === 0, 60_000);
}

test('unschedulable pods add nodes (enough for their requests, within the max); idle workers go one per pass down to the min; busy ones stay', async () => {
  const r = await api(h, 'POST', '/v1/clusters', {
    cluster_template_id: h.templates.v135, name: 'scaled', master_count: 1, node_count: 1,
    labels: { kube_tag: 'v1.35.1', auto_scaling_enabled: 'true', min_node_count: '1', max_node_count: '5', autoscaler_scale_down_unneeded_seconds: '0' },
  });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  const ng = (await api(h, 'GET', `/v1/clusters/${uuid}/nodegroups/default-worker`)).body;
  assert.deepEqual([ng.min_node_count, ng.max_node_count], [1, 5], 'the labels seed the default worker group');
  const kube = clusterWith(workers(uuid)[0]!);
  const key = (name: string) => ({ group: '', resource: 'pods', namespace: 'default', name });

  // Nothing waits and the one worker is at the min: nothing happens.
  await healthPass(db(), factory);
  assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}`)).body.status, 'CREATE_COMPLETE');

  // Three pods of 1.5 CPU wait; a node of m1.small has 1 CPU: 5 nodes' worth, so 4 more (the max).
  for (const n of ['a', 'b', 'c']) kube.store.create(key(`web-${n}`), pod(`web-${n}`, unschedulable) as never);
  // One that only just became unschedulable does not count yet.
  kube.store.create(key('fresh'), pod('fresh', { ...unschedulable, conditions: [{ ...unschedulable.conditions[0], lastTransitionTime: new Date().toISOString() }] }) as never);
  await healthPass(db(), factory);
  assert.match((await reason(uuid)).auto_scaling!, /scaling default-worker up to 5 for 3 unschedulable pod\(s\)/);
  await noOperationRuns(uuid);
  assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}`)).body.status, 'UPDATE_COMPLETE');
  assert.equal(workers(uuid).length, 5);
  assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}/nodegroups/default-worker`)).body.node_count, 5);
  assert.ok(JSON.stringify((await api(h, 'GET', `/v1/clusters/${uuid}/events`)).body).includes('AutoScaling'));

  // Still waiting at the max: reported, nothing queued.
  await healthPass(db(), factory);
  assert.match((await reason(uuid)).auto_scaling!, /every autoscaled group is at its max_node_count/);
  assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}`)).body.status, 'UPDATE_COMPLETE');

  // The waiting pods are gone; one worker runs a web pod. Passes remove idle workers, one each, never a busy one.
  for (const n of ['web-a', 'web-b', 'web-c', 'fresh']) kube.store.delete(key(n));
  const placed = workers(uuid).find((n) => !busyNodes(kube).has(n)) ?? workers(uuid)[0]!;
  kube.store.create(key('web-placed'), pod('web-placed', { phase: 'Running' }, { nodeName: placed }) as never);
  let removed = 0;
  for (let pass = 0; pass < 8; pass++) {
    const before = workers(uuid);
    const busy = busyNodes(kube);
    await healthPass(db(), factory);
    await noOperationRuns(uuid);
    const gone = before.filter((n) => !workers(uuid).includes(n));
    assert.ok(gone.length <= 1, `at most one worker per pass (${gone.join(', ')})`);
    for (const n of gone) assert.ok(!busy.has(n), `${n} ran a workload and was removed`);
    removed += gone.length;
    if (gone.length === 0 && before.every((n) => busy.has(n) || before.length === 1)) break;
  }
  assert.ok(removed >= 1, 'idle workers were removed');
  assert.ok(workers(uuid).includes(placed), 'the worker running the web pod stays');
  const busy = busyNodes(kube);
  assert.ok(workers(uuid).length === 1 || workers(uuid).every((n) => busy.has(n)), `only busy workers are left (or the min): ${workers(uuid).join(', ')}`);

  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});

test('without auto_scaling_enabled the health pass leaves the workers alone, whatever waits', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'fixed', master_count: 1, node_count: 1, labels: { kube_tag: 'v1.35.1' } });
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  const kube = clusterWith(workers(uuid)[0]!);
  kube.store.create({ group: '', resource: 'pods', namespace: 'default', name: 'waits' }, pod('waits', unschedulable) as never);
  await healthPass(db(), factory);
  const c = await db().getRepository(ClusterEntity).findOneByOrFail({ uuid });
  assert.equal(c.status, 'CREATE_COMPLETE');
  assert.equal((await reason(uuid)).auto_scaling, undefined);
  const ng = (await api(h, 'GET', `/v1/clusters/${uuid}/nodegroups/default-worker`)).body;
  assert.equal(ng.max_node_count, null);
  await deleteCluster(h, uuid);
});
