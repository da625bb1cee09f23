// Issue 18: an upgrade's max_batch_size is the surge of each worker group (that many new nodes join
// before as many old ones go), bounded by the group's size; control planes stay one at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, createCluster, deleteCluster, leftovers, servers, settled, withHarness, type Harness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => (h = x), { roomy: true });

/** The most servers of each role the cluster had at once while `run` lasted (looked at every few ms). */
async function peaks(uuid: string, run: () => Promise<unknown>): Promise<{ workers: number; controlPlanes: number }> {
  const peak = { workers: 0, controlPlanes: 0 };
  let done = false;
  const watch = (async () => {
    while (!done) {
      const live = [...servers(h, uuid).values()];
      peak.workers = Math.max(peak.workers, live.filter((s) => s.metadata.magnum_role === 'worker').length);
      peak.controlPlanes = Math.max(peak.controlPlanes, live.filter((s) => s.metadata.magnum_role !== 'worker').length);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  try {
    await run();
  } finally {
    done = true;
    await watch;
  }
  return peak;
}

async function upgrade(uuid: string, maxBatchSize: number): Promise<{ workers: number; controlPlanes: number }> {
  return peaks(uuid, async () => {
    const r = await api(h, 'POST', `/v1/clusters/${uuid}/actions/upgrade`, { cluster_template: h.templates.v136, max_batch_size: maxBatchSize });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const c = await settled(h, uuid, 'UPDATE_COMPLETE', 120_000);
    assert.equal(c.coe_version, 'v1.36.0');
    for (const [name, s] of servers(h, uuid)) assert.equal(s.metadata.magnum_kube_version, 'v1.36.0', name);
  });
}

test('max_batch_size 2 on three workers: two join at once before two go; 5 on two workers: bounded by the group; control planes one at a time', async () => {
  const [three, two] = await Promise.all([createCluster(h, 'batch-three', 1, 3), createCluster(h, 'batch-two', 1, 2)]);
  await Promise.all([settled(h, three, 'CREATE_COMPLETE'), settled(h, two, 'CREATE_COMPLETE')]);
  const [a, b] = await Promise.all([upgrade(three, 2), upgrade(two, 5)]);
  assert.deepEqual(a, { workers: 3 + 2, controlPlanes: 1 + 1 });
  assert.deepEqual(b, { workers: 2 + 2, controlPlanes: 1 + 1 });
  for (const uuid of [three, two]) assert.equal(servers(h, uuid).size, uuid === three ? 4 : 3);
  await Promise.all([deleteCluster(h, three), deleteCluster(h, two)]);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});
