// The autoscaler (src/features/auto-scaling/scale.ts): its arithmetic (Kubernetes quantities, how many nodes pending
// pods need, which pods count as unschedulable: bound, young, or scheduled ones do not), and when it does not act at
// all. (Scaling a cluster up and down through its health pass: test/scenarios/autoscale.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import type { ClusterSpec } from '../../../src/cluster-spec/types.js';
import type { ClusterRow } from '../../../src/db/entities/cluster.js';
import { autoScale, nodesNeeded, quantity, SCALE_UP_DELAY_MS, unschedulable } from '../../../src/features/auto-scaling/scale.js';
import type { KubeNode, KubePod } from '../../../src/kube/api-client.js';

test('quantities: millicores and cores; binary and decimal memory; junk is 0', () => {
  assert.equal(quantity('250m', 'cpu'), 250);
  assert.equal(quantity('2', 'cpu'), 2000);
  assert.equal(quantity('1.5', 'cpu'), 1500);
  assert.equal(quantity('1Gi', 'memory'), 2 ** 30);
  assert.equal(quantity('500M', 'memory'), 5e8);
  assert.equal(quantity('4194304Ki', 'memory'), 4 * 2 ** 30);
  assert.equal(quantity('lots', 'cpu'), 0);
  assert.equal(quantity(undefined, 'memory'), 0);
});

const pod = (cpu: string, memory: string): KubePod => ({ metadata: { name: 'p' }, spec: { containers: [{ resources: { requests: { cpu, memory } } }] } });
const node: KubeNode = { metadata: { name: 'n' }, status: { allocatable: { cpu: '2', memory: '4Gi' } } };

test('nodes needed: the larger of CPU and memory, at least one; one when the node size is unknown', () => {
  assert.equal(nodesNeeded([pod('1500m', '1Gi'), pod('1500m', '1Gi')], node), 2);
  assert.equal(nodesNeeded([pod('100m', '6Gi')], node), 2);
  assert.equal(nodesNeeded([pod('0', '0')], node), 1);
  assert.equal(nodesNeeded([pod('8', '1Gi')], undefined), 1);
});

test('unschedulable: pending, unbound, reported Unschedulable long enough', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  const at = (ms: number) => new Date(now - ms).toISOString();
  const p = (status: KubePod['status'], nodeName?: string): KubePod => ({ metadata: { name: 'x' }, spec: nodeName ? { nodeName } : {}, status });
  const cond = (ms: number, reason = 'Unschedulable') => [{ type: 'PodScheduled', status: 'False', reason, lastTransitionTime: at(ms) }];
  assert.equal(unschedulable(p({ phase: 'Pending', conditions: cond(SCALE_UP_DELAY_MS) }), now), true);
  assert.equal(unschedulable(p({ phase: 'Pending', conditions: cond(SCALE_UP_DELAY_MS - 1) }), now), false, 'too young');
  assert.equal(unschedulable(p({ phase: 'Pending', conditions: cond(60_000, 'SchedulerError') }), now), false);
  assert.equal(unschedulable(p({ phase: 'Pending', conditions: cond(60_000) }, 'n1'), now), false, 'bound');
  assert.equal(unschedulable(p({ phase: 'Running', conditions: cond(60_000) }), now), false);
  assert.equal(unschedulable(p({ phase: 'Pending' }), now), false, 'not yet looked at by the scheduler');
});

test('the autoscaler does nothing for a cluster that did not ask, and says so when it cannot reach the cluster\'s API', async () => {
  const c = { uuid: 'c-1' } as ClusterRow;
  const view = (enabled: boolean, kube: boolean) => ({ spec: { autoScaling: { enabled, scaleDownUnneededSeconds: 600 } } as unknown as ClusterSpec, kube: kube ? ({} as never) : undefined, cloud: {} as never, nodes: async () => [], servers: async () => [] });
  // Neither case reaches the database.
  const ds = {} as DataSource;
  assert.deepEqual(await autoScale(ds, c, view(false, true), new Date()), {});
  assert.deepEqual(await autoScale(ds, c, view(true, false), new Date()), { note: 'not run: no cluster API' });
});
