// Auto-healing's judgement (src/features/auto-healing/heal.ts), given what a health pass read of a settled
// cluster (its spec, Nodes and servers) and its node groups in PostgreSQL: a worker in ERROR or SHUTOFF, or ACTIVE
// without a Ready Node, is unhealthy since it was first seen so; one a group lacks is missing; past the grace period
// a repair operation is written naming them; nothing while more than maxUnhealthyPercent are unhealthy, nor when
// the cluster did not ask; control planes and booting servers are not judged. (Through the API with a worker and
// the simulator: test/scenarios/auto-heal.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ClusterSpec } from '../../../src/cluster-spec/types.js';
import { NodeGroupEntity } from '../../../src/db/entities/nodegroup.js';
import { OperationEntity } from '../../../src/db/entities/operation.js';
import type { ClusterRow } from '../../../src/db/entities/cluster.js';
import { autoHeal } from '../../../src/features/auto-healing/heal.js';
import type { KubeNode } from '../../../src/kube/api-client.js';
import type { Server } from '../../../src/openstack/nova-servers.js';
import type { ClusterView } from '../../../src/steps/cluster-view.js';
import { META } from '../../../src/steps/naming.js';
import { testApp, type TestApp } from '../../support/app.js';
import { insertCluster } from '../../support/cluster-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => {
  await t?.close();
});

const GRACE = 300;
const spec = (enabled: boolean) => ({ autoHealing: { enabled, unhealthySeconds: GRACE, maxUnhealthyPercent: 40 } }) as unknown as ClusterSpec;

/** A settled cluster with `workers` workers in its default group; its servers and Nodes as a pass sees them. */
async function cluster(workers: number): Promise<{ c: ClusterRow; group: string; master: string }> {
  const ks = t.keystone.state;
  const { cluster: c } = await insertCluster(t.app, { user: ks.userId('demo'), project: ks.projectId('demo'), nodegroups: true, pki: false });
  const groups = await t.app.services.db.getRepository(NodeGroupEntity).findBy({ cluster_id: c.uuid });
  const group = groups.find((g) => g.role === 'worker')!.uuid;
  await t.app.services.db.getRepository(NodeGroupEntity).update({ uuid: group }, { node_count: workers });
  return { c, group, master: groups.find((g) => g.role === 'master')!.uuid };
}

const server = (name: string, status: string, group: string, role = 'worker') =>
  ({ id: `id-${name}`, name, status, metadata: { [META.role]: role, [META.nodegroup]: group } }) as unknown as Server;
const node = (name: string, ready = true) => ({ metadata: { name }, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }) as unknown as KubeNode;

function view(s: ClusterSpec, servers: Server[], nodes: KubeNode[]): ClusterView {
  return { spec: s, kube: {} as never, cloud: {} as never, nodes: async () => nodes, servers: async () => servers };
}

const repairs = async (uuid: string) => (await t.app.services.db.getRepository(OperationEntity).findBy({ cluster_id: uuid, kind: 'repair' })).map((o) => o.params);

test('a cluster that did not ask: nothing judged, nothing remembered', async () => {
  const { c, group } = await cluster(1);
  const out = await autoHeal(t.app.services.db, c, view(spec(false), [server('w1', 'ERROR', group)], []), new Date());
  assert.deepEqual(out, { unhealthy: {} });
});

test('unhealthy workers are remembered from when first seen; within the grace period nothing is replaced; Ready, booting and control planes are not judged', async () => {
  const { c, group, master } = await cluster(4);
  const now = new Date();
  const servers = [server('ok', 'ACTIVE', group), server('err', 'ERROR', group), server('off', 'SHUTOFF', group), server('notready', 'ACTIVE', group), server('cp', 'ERROR', master, 'control-plane')];
  const seen = { ...c, unhealthy_since: { err: new Date(now.getTime() - 10_000).toISOString() } };
  const out = await autoHeal(t.app.services.db, seen, view(spec(true), [...servers, server('booting', 'BUILD', group)], [node('ok'), node('notready', false)]), now);
  assert.deepEqual(Object.keys(out.unhealthy).sort(), ['err', 'notready', 'off']);
  assert.equal(out.unhealthy.err, seen.unhealthy_since.err, 'since when it was first seen');
  assert.equal(out.unhealthy.off, now.toISOString());
  assert.equal(out.note, `3 unhealthy or missing worker(s) within the ${GRACE} s grace period`);
  assert.deepEqual(await repairs(c.uuid), []);
});

test('past the grace period a repair is written naming them, and the missing ones', async () => {
  const { c, group } = await cluster(6);
  const now = new Date();
  const long = new Date(now.getTime() - (GRACE + 1) * 1000).toISOString();
  const healthy = ['a', 'b', 'c', 'd'];
  const servers = [...healthy.map((n) => server(n, 'ACTIVE', group)), server('sick', 'ERROR', group)];
  const stale = node('gone-server');
  const out = await autoHeal(t.app.services.db, { ...c, unhealthy_since: { sick: long, 'missing:default-worker:0': long } }, view(spec(true), servers, [...healthy.map((n) => node(n)), stale]), now);
  assert.equal(out.note, 'replacing sick, 1 missing');
  assert.deepEqual(await repairs(c.uuid), [{ servers: ['id-sick'], names: ['sick', '1 missing'], stale_nodes: ['gone-server'] }]);
});

test('more than 40% of the workers unhealthy: the cause is not the nodes, nothing is replaced', async () => {
  const { c, group } = await cluster(2);
  const now = new Date();
  const long = new Date(now.getTime() - (GRACE + 1) * 1000).toISOString();
  const out = await autoHeal(t.app.services.db, { ...c, unhealthy_since: { a: long } }, view(spec(true), [server('a', 'ERROR', group), server('b', 'SHUTOFF', group)], []), now);
  assert.equal(out.note, 'paused: 2 of 2 workers unhealthy or missing (more than 40%)');
  assert.deepEqual(await repairs(c.uuid), []);
});
