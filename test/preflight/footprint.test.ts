// The bill of an operation summed from the steps' own bills (src/preflight/footprint.ts): a create's
// footprint and its Magnum cluster; a change's growth (never below zero; per-object quotas their new
// size); a roll's peak over its phases, control planes first, each worker group by its batch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changeBill, createBill, footprint, rollBill, rollPhases } from '../../src/preflight/footprint.js';
import { roleNodes, type Billed, type GroupShape } from '../../src/preflight/quotas.js';
import { specOf } from '../support/rows.js';

const spec = specOf();
/** Steps like the create graph's: the network once, a server group and members per group, the nodes. */
const steps: Billed[] = [
  { name: 'network', bill: () => ({ network: 1, subnet: 1, router: 1 }) },
  { name: 'server_groups', bill: ({ groups }) => ({ server_groups: groups.length, server_group_members: Math.max(0, ...groups.map((g) => g.count)) }) },
  { name: 'masters', bill: (input) => roleNodes(input, 'master') },
  { name: 'workers', bill: (input) => roleNodes(input, 'worker') },
  { name: 'dns', bill: ({ groups }) => ({ zone_recordsets: groups.length }) },
  { name: 'no bill' },
];
const g = (name: string, role: 'master' | 'worker', count: number, vcpus = 2): GroupShape => ({ name, role, count, flavor: { vcpus, ram: 1024 * vcpus }, runtimeVolumeGb: null });
const groups = [g('default-master', 'master', 1, 4), g('default-worker', 'worker', 2)];

test('footprint: every step’s bill summed; a create adds the Magnum cluster', () => {
  const f = footprint(steps, spec, groups);
  assert.deepEqual([f.network, f.instances, f.cores, f.server_groups, f.server_group_members, f.clusters], [1, 3, 8, 2, 2, 0]);
  assert.deepEqual({ ...f, clusters: 1 }, createBill(steps, spec, groups));
});

test('a change bills what it adds: nothing for a shrink; per-object quotas the size they grow to', () => {
  const grown = [groups[0]!, g('default-worker', 'worker', 5)];
  const c = changeBill(steps, spec, groups, grown);
  assert.deepEqual([c.instances, c.cores, c.network, c.server_groups, c.server_group_members, c.zone_recordsets], [3, 6, 0, 0, 5, 0]);
  const shrunk = changeBill(steps, spec, groups, [groups[0]!, g('default-worker', 'worker', 1)]);
  assert.ok(Object.values(shrunk).every((v) => v === 0), JSON.stringify(shrunk));
  const added = changeBill(steps, spec, groups, [...groups, g('pool', 'worker', 1)]);
  assert.deepEqual([added.instances, added.server_groups, added.server_group_members, added.zone_recordsets], [1, 1, 1, 3], 'a new group: its server group, its one member; the zone’s records');
});

test('rollPhases: control planes first, one at a time; each rolled group by its batch, at most its size; empty groups skipped', () => {
  const all = [g('pool', 'worker', 2), g('default-master', 'master', 3), g('default-worker', 'worker', 5), g('empty', 'worker', 0)];
  assert.deepEqual(rollPhases(all, ['pool', 'default-master', 'default-worker', 'empty'], 3), [
    { group: 'default-master', surge: 1 },
    { group: 'pool', surge: 2 },
    { group: 'default-worker', surge: 3 },
  ]);
  assert.deepEqual(rollPhases(all, ['default-worker'], 0), [{ group: 'default-worker', surge: 1 }], 'a batch of at least one');
});

test('rollBill: the peak of the phases, not their sum', () => {
  const all = [g('default-master', 'master', 1, 8), g('default-worker', 'worker', 4, 2)];
  const peak = rollBill(steps, spec, all, rollPhases(all, ['default-master', 'default-worker'], 2));
  // The control plane's surge costs 8 cores, the workers' batch of 2 costs 4: the peak is 8, not 12.
  assert.deepEqual([peak.instances, peak.cores, peak.server_group_members], [2, 8, 6]);
});
