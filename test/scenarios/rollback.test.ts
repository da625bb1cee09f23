// Issue 18: `?rollback=true` on a cluster PATCH: a resize that fails returns the group to its
// previous size (the servers it booted go, node_count is restored), the cluster shows
// ROLLBACK_COMPLETE with the failure as its reason (Magnum's status after Heat's rollback), the
// events say so. Without the flag the same failure leaves UPDATE_FAILED and the new count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterEventEntity } from '../../src/db/entities/cluster-event.js';
import { api, createCluster, deleteCluster, leftovers, servers, settled, strayPorts, withHarness, type Harness } from './lifecycle-support.js';

let h: Harness;
withHarness((x) => (h = x));

const workerIds = (uuid: string) => [...servers(h, uuid).values()].filter((s) => s.metadata.magnum_role === 'worker').map((s) => s.id).sort();
const patchCount = (uuid: string, count: number, query = '') => api(h, 'PATCH', `/v1/clusters/${uuid}${query}`, [{ op: 'replace', path: '/node_count', value: count }]);

test('a failed resize with ?rollback=true returns the group to its size: ROLLBACK_COMPLETE with the reason; without it, UPDATE_FAILED', async () => {
  const uuid = await createCluster(h, 'rolls', 1, 1);
  await settled(h, uuid, 'CREATE_COMPLETE');
  const before = workerIds(uuid);
  assert.equal(before.length, 1);

  // The new workers find no host, however often the resize boots them again (twice each, then it fails).
  const clear = h.t.cloud!.nova.failBuilds({ name: '-worker-' });
  let r = await patchCount(uuid, 3, '?rollback=true');
  assert.equal(r.status, 202, JSON.stringify(r.body));
  let c = await settled(h, uuid, 'ROLLBACK_COMPLETE');
  clear();
  assert.match(c.status_reason, /^NoValidHost: Server \S+ \(\S+\) is in ERROR: No valid host was found/);
  assert.equal(c.node_count, 1, 'node_count restored');
  assert.deepEqual(workerIds(uuid), before, 'the servers the resize booted are gone, the old one stays');
  assert.deepEqual(strayPorts(h, uuid), [], 'with their ports');
  const ng = (await api(h, 'GET', `/v1/clusters/${uuid}/nodegroups/default-worker`)).body;
  assert.deepEqual([ng.node_count, ng.status, ng.node_addresses.length], [1, 'ROLLBACK_COMPLETE', 1]);
  const ev = await h.t.app.services.db.getRepository(ClusterEventEntity).find({ where: { cluster_id: uuid }, order: { id: 'ASC' } });
  const rolling = ev.find((e) => e.reason === 'RollingBack' && e.type === 'operation');
  assert.ok(rolling, 'an event says the resize is rolled back');
  // The booted servers still there are named (a broken one being booted again may be gone already).
  assert.match(rolling.message, /^The update failed \(NoValidHost: .*\); rolling back: node group default-worker returns to 1 node\(s\)(, \S+)+ removed\.$/);
  assert.ok(ev.some((e) => e.reason === 'RolledBack'), 'and that it is done');
  assert.ok(ev.some((e) => e.reason === 'UpdateFailed' && /^NoValidHost/.test(e.message)), 'the update failed');

  // The cluster takes further changes; the same failure without the flag keeps the count and fails.
  const again = h.t.cloud!.nova.failBuilds({ name: '-worker-' });
  r = await patchCount(uuid, 2);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  c = await settled(h, uuid, 'UPDATE_FAILED');
  again();
  assert.equal(c.node_count, 2);
  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});
