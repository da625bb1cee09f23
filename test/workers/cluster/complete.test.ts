// The end of an operation that changed nodes (workers/cluster/complete.ts), on a cluster made in memory against
// the simulated cloud and Kubernetes: in the transaction that ends the operation, each group gets its nodes'
// addresses (floating ones when they have some), its status (only the group named, when one is) and its
// Kubernetes version, and the cluster the version its API reports.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { EndChange } from '../../../src/operations/store.js';
import type { RunContext } from '../../../src/steps/step.js';
import { completeNodeGroups } from '../../../workers/cluster/complete.js';
import { addressesOf } from '../../../workers/cluster/servers.js';
import { observedServers } from '../../../workers/cluster/ports.js';
import { create, startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

/** The operation's end, as the store would run it: the change in its transaction. */
function ending(): { end: (ctx: RunContext, change?: EndChange) => Promise<unknown>; ended: number } {
  const out = {
    ended: 0,
    end: async (ctx: RunContext, change?: EndChange) => {
      out.ended++;
      await change?.(undefined as never, ctx.cluster);
      return { state: 'succeeded' };
    },
  };
  return out;
}

test('every group\'s addresses, status and version, and the cluster\'s coe_version, written as the operation ends', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 2, template: { floating_ip_enabled: true } });
  await create(r);
  r.fresh();
  const e = ending();
  assert.deepEqual(await completeNodeGroups(r.ctx, 'CREATE_COMPLETE', undefined, e.end), { state: 'succeeded' });
  assert.equal(e.ended, 1);
  const servers = await observedServers(r.ctx);
  for (const g of r.db.nodegroups) {
    const mine = servers.filter((s) => s.nodegroup === g.uuid).sort((a, b) => a.name.localeCompare(b.name));
    assert.deepEqual(g.node_addresses, mine.flatMap((s) => addressesOf(s.server)), g.name);
    assert.equal(g.node_addresses.length, g.node_count);
    assert.deepEqual([g.status, g.status_reason, g.version], ['CREATE_COMPLETE', null, 'v1.35.1']);
  }
  const fips = new Set((await (await r.clients().neutron()).floatingIps.list()).map((f) => f.floating_ip_address));
  assert.ok(r.db.nodegroups.every((g) => g.node_addresses.every((a) => fips.has(a))), 'floating addresses shown when nodes have them');
  assert.match(r.db.clusters.get(r.uuid)!.coe_version ?? '', /^v1\.35\.1/);
  r.end();
});

test('with a group named, only that group\'s status changes; the others\' addresses are written all the same', async () => {
  const r = await stepRun(cloud, { masters: 1, workers: 1 });
  await create(r);
  r.fresh();
  const worker = r.db.nodegroups.find((g) => g.role === 'worker')!;
  const master = r.db.nodegroups.find((g) => g.role === 'master')!;
  await completeNodeGroups(r.ctx, 'UPDATE_COMPLETE', worker.uuid, ending().end);
  assert.equal(worker.status, 'UPDATE_COMPLETE');
  assert.equal(master.status, 'CREATE_IN_PROGRESS', 'left as it was');
  assert.equal(master.node_addresses.length, 1);
  r.end();
});
