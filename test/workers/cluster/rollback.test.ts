// `?rollback=true` on a resize (workers/cluster/rollback.ts): the rollback hook turns a failed resize back only
// when asked, once, and knowing the previous count; then the group returns to it in the database, the servers the
// operation booted (named from it) are what it retires, the operation's params say so, and an event and the
// workers' condition tell it. (The way back run to its end through the API: test/scenarios/rollback.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Server } from '../../../src/openstack/nova-servers.js';
import { clusterSpec } from '../../../src/steps/context.js';
import { StepFailure } from '../../../src/steps/errors.js';
import { serverName } from '../../../src/steps/naming.js';
import { groupLabel, type ObservedServer } from '../../../workers/cluster/ports.js';
import { rollBackResize, rollingBack } from '../../../workers/cluster/rollback.js';
import { startStepCloud, stepRun, type StepCloud } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const failure = new StepFailure('QuotaExceeded', 'compute: Quota exceeded for instances');

test('turned back only when asked, not twice, and knowing the previous count', async () => {
  const r = await stepRun(cloud, { workers: 3 });
  const g = r.db.nodegroups.find((x) => x.role === 'worker')!;
  for (const params of [
    { nodegroup: g.uuid, previous_node_count: 1 },
    { nodegroup: g.uuid, previous_node_count: 1, rollback: false },
    { nodegroup: g.uuid, rollback: true },
    { nodegroup: g.uuid, previous_node_count: 1, rollback: true, rolling_back: { reason: 'X', message: 'y', booted: [] } },
    { nodegroup: 'no-such-group', previous_node_count: 1, rollback: true },
  ]) {
    r.begin('resize', params);
    assert.equal(await rollBackResize(r.ctx, failure), false, JSON.stringify(params));
  }
  assert.equal(g.node_count, 3, 'nothing changed');
  assert.equal(r.recorded.events.length, 0);
});

test('asked for: the group back to its count, the servers the operation booted retired, the params, an event and the condition say so', async () => {
  const r = await stepRun(cloud, { workers: 3 });
  const g = r.db.nodegroups.find((x) => x.role === 'worker')!;
  const ctx = r.begin('resize', { nodegroup: g.uuid, previous_node_count: 1, rollback: true });
  const short = (await clusterSpec(ctx)).cluster.shortName;
  const mine = (i: number) => serverName(short, groupLabel(g), ctx.op.id, g.uuid, i);
  const server = (name: string): ObservedServer => ({ server: { id: `id-${name}`, name, status: 'ACTIVE' } as unknown as Server, name, nodegroup: g.uuid, role: 'worker', version: 'v1.35.1', caGeneration: 1, index: 0 });
  // An older node, and two this operation booted; rollBackResize reads the servers afresh.
  const servers = [server('older-node'), server(mine(0)), server(mine(1))];
  const real = ctx.cloud();
  ctx.cloud = () => ({ ...real, servers: async () => ({ list: async () => servers.map((s) => ({ ...s.server, metadata: { magnum_nodegroup: g.uuid, magnum_role: 'worker' } })) }) as never });
  assert.equal(await rollBackResize(ctx, failure), true);
  assert.equal(g.node_count, 1, 'the group\'s count is the previous one');
  const back = rollingBack(ctx);
  assert.deepEqual(back, { reason: 'QuotaExceeded', message: 'compute: Quota exceeded for instances', booted: [mine(0), mine(1)] });
  assert.deepEqual(r.db.operations.get(ctx.op.id)!.params.rolling_back, back, 'written on the operation');
  const event = r.recorded.events.find((e) => e.reason === 'RollingBack');
  assert.equal(event?.severity, 'warning');
  assert.match(event?.message ?? '', new RegExp(`node group ${g.name} returns to 1 node\\(s\\), ${mine(0)}, ${mine(1)} removed`));
  assert.equal(r.db.clusters.get(r.uuid)!.conditions.workers?.reason, 'RollingBack');
  assert.equal(await rollBackResize(ctx, failure), false, 'not twice');
});
