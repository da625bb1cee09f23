// Issue 18: draining a node waits until its evicted pods are gone (Eviction API, graceful
// termination), retries evictions a PodDisruptionBudget refuses (429), and after the cluster's
// drain_timeout removes the node anyway, saying so in the events (as Cluster API's nodeDrainTimeout).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEventEntity } from '../../src/db/entities/cluster-event.js';
import { clusterKube, closeClusterKubes, deployment } from './cluster-kube.js';
import { api, deleteCluster, leftovers, servers, settled, until, withHarness, type Harness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => (h = x));
after(closeClusterKubes);

const workers = (uuid: string) => [...servers(h, uuid).entries()].filter(([, s]) => s.metadata.magnum_role === 'worker').sort(([a], [b]) => a.localeCompare(b));
const events = (uuid: string, reason: string) => h.t.app.services.db.getRepository(ClusterEventEntity).find({ where: { cluster_id: uuid, reason }, order: { id: 'ASC' } });

test('a drain waits for its evicted pods; a budget that never allows one holds it until drain_timeout, then the node goes with an event', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'drains', master_count: 1, node_count: 3, labels: { kube_tag: 'v1.35.1', drain_timeout: '5' } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const uuid = r.body.uuid as string;
  await settled(h, uuid, 'CREATE_COMPLETE');
  const kube = await clusterKube(h, uuid);
  const [[a, serverA], [b, serverB]] = workers(uuid) as unknown as [[string, { id: string }], [string, { id: string }]];

  // A pod that takes a second (1000 simulated seconds) to end after its eviction.
  await kube.apply(deployment('slow', 1, { node: a, graceSeconds: 1000 }));
  await until('the slow pod runs on its node', async () => (await kube.podsOn(a)).some((p) => p.metadata.labels?.app === 'slow' && p.status?.phase === 'Running'));
  let terminatingAt = 0;
  let nodeGoneAt = 0;
  let podLeftBeforeNode = false;
  const watching = (async () => {
    while (!nodeGoneAt) {
      // Both read at once, one snapshot: the window between the pod's end and the Node's delete is the
      // worker's next poll, which two reads one after the other on a busy machine can straddle.
      const [list, node] = await Promise.all([kube.list('v1', 'Pod', 'default', 'app=slow'), kube.getNode(a)]);
      const pods = list as { metadata: { deletionTimestamp?: string }; spec?: { nodeName?: string } }[];
      const onA = pods.filter((p) => p.spec?.nodeName === a);
      if (!terminatingAt && onA.some((p) => p.metadata.deletionTimestamp)) terminatingAt = Date.now();
      if (terminatingAt && onA.length === 0 && node) podLeftBeforeNode = true;
      if (terminatingAt && !node) nodeGoneAt = Date.now();
      await new Promise((res) => setTimeout(res, 5));
    }
  })();
  let res = await api(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 2, nodes_to_remove: [serverA.id] });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await settled(h, uuid, 'UPDATE_COMPLETE');
  await watching;
  assert.ok(podLeftBeforeNode, 'the evicted pod was gone before its Node was deleted');
  assert.ok(nodeGoneAt - terminatingAt >= 800, `the Node stayed while its pod ended (${nodeGoneAt - terminatingAt} ms)`);
  assert.ok(!servers(h, uuid).has(a));
  assert.deepEqual(await events(uuid, 'DrainTimeout'), [], 'within the deadline');

  // A budget that allows no disruption: every eviction is refused until the deadline.
  await kube.apply(deployment('guarded', 1, { node: b }));
  await kube.apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guarded', namespace: 'default' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } });
  await until('the guarded pod is healthy under its budget', async () => ((await kube.get('policy/v1', 'PodDisruptionBudget', 'default', 'guarded'))?.status as { currentHealthy?: number } | undefined)?.currentHealthy === 1);
  const resizedAt = Date.now();
  res = await api(h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 1, nodes_to_remove: [serverB.id] });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const c = await settled(h, uuid, 'UPDATE_COMPLETE');
  assert.equal(c.node_count, 1);
  assert.ok(!servers(h, uuid).has(b), 'the node went after the deadline');
  const [blocked] = await events(uuid, 'DrainBlocked');
  assert.ok(blocked, 'an event says the drain is blocked');
  assert.match(blocked.message, new RegExp(`Draining ${b}: default/guarded-\\S+ \\(The disruption budget guarded needs 1 healthy pods and has 1 currently\\); retrying for at most 5 s`));
  const [timeout] = await events(uuid, 'DrainTimeout');
  assert.ok(timeout, 'an event says the node was not drained');
  assert.match(timeout.message, new RegExp(`Node ${b} was not drained within 5 s \\(label drain_timeout\\): default/guarded-\\S+ \\(The disruption budget guarded .*\\) still there; the node is removed anyway\\.`));
  assert.equal(timeout.severity, 'warning');
  // The drain starts after the resize was asked for: its 5 s deadline ends at least 5 s after that (measured
  // from the request, not from the blocked event, which a busy machine writes late).
  assert.ok(timeout.at.getTime() - resizedAt >= 4900, 'the deadline was waited for');
  assert.ok(blocked.at.getTime() <= timeout.at.getTime(), 'blocked before it timed out');

  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});

test('a bad drain_timeout is a 400 naming the label', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'bad', labels: { kube_tag: 'v1.35.1', drain_timeout: '-1' } });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.match(r.body.errors[0].detail, /drain_timeout/);
});
