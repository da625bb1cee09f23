// The delete-side twin of ensure(), against the simulated Neutron and Nova and a real ledger (PostgreSQL):
// what a purge deletes (recorded, found by tag, found by name with the cluster's mark), what it leaves
// (another's resource of the same name), a 404 counting as done, the ledger marked, a resource still going
// making the step wait, and no cloud call at all when there is nothing to do. And ensure() itself, with an
// in-memory run context: made once and recorded at once, the recorded one found again, one gone made again, an
// unrecorded one adopted only with the cluster's mark, nothing made by a run that lost its lock.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { ClusterRow } from '../../src/db/entities/cluster.js';
import { createDataSource } from '../../src/db/data-source.js';
import { isNotFound } from '../../src/openstack/errors.js';
import type { CallRecord } from '../../src/openstack/http.js';
import { NeutronClient } from '../../src/openstack/neutron.js';
import { NovaResourcesClient } from '../../src/openstack/nova-resources.js';
import type { Cloud } from '../../src/steps/cloud.js';
import { ensure, ours, purge } from '../../src/steps/ensure.js';
import { purgeNetworks } from '../../workers/cluster/network.js';
import { purgeServerGroups } from '../../workers/cluster/servers.js';
import { Stop, Wait } from '../../src/steps/errors.js';
import { PgLedger } from '../../src/steps/ledger.js';
import { clusterDescription, clusterTag, resourceName } from '../../src/steps/naming.js';
import type { RunContext } from '../../src/steps/step.js';
import { startCloud, type Cloud as SimCloud } from '../openstack/cloud.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { startStepCloud, stepRun, type StepCloud, type StepRun } from '../support/run-context.js';

let sim: SimCloud;
let db: TestDatabase;
let ds: DataSource;
let project: string;
before(async () => {
  sim = await startCloud();
  project = sim.projectId('demo');
  db = await freshDatabase();
  ds = createDataSource(db.url, 2);
  await ds.initialize();
});
after(async () => {
  await ds.destroy();
  await db.drop();
  await sim.close();
});

interface Run {
  ctx: RunContext;
  calls: CallRecord[];
  cluster: ClusterRow;
}

/** What purge reads of a run: its cluster (with or without a credential), ledger and clients, the calls they make recorded. */
function run(credential = true): Run {
  const calls: CallRecord[] = [];
  const cluster = { uuid: randomUUID(), name: 'purge', app_cred_id: credential ? 'app-cred' : null } as ClusterRow;
  const cloud = {
    neutron: async () => new NeutronClient(await sim.session('demo', 'network', { calls })),
    novaResources: async () => new NovaResourcesClient(await sim.session('demo', 'compute', { calls })),
  } as Cloud;
  const ctx = { ds, cluster, ledger: new PgLedger(ds, cluster.uuid), pollMs: 5, cloud: () => cloud, log: () => undefined } as unknown as RunContext;
  return { ctx, calls, cluster };
}

const neutron = () => sim.sims.neutron.state;
const network = (name: string, description = '', tags: string[] = []) => neutron().addNetwork({ name, projectId: project, description, tags }).id;
const record = (r: Run, type: string, cloudId: string) => r.ctx.ledger.record({ service: 'network', type, cloudId, name: null, step: 'test' });
const live = async (r: Run) => (await r.ctx.ledger.live()).map((x) => x.cloud_id);
const ops = (r: Run, operation: string) => r.calls.filter((c) => c.operation === operation).map((c) => c.status);

test('purgeNetworks: each case deletes what is the cluster\'s, leaves the rest and marks the ledger', async (t) => {
  const cases: { name: string; setup(r: Run): Promise<{ gone: string[]; kept: string[] }>; deletes: number[] }[] = [
    {
      name: 'recorded and present: deleted, its row marked deleted',
      async setup(r) {
        const id = network('recorded', '', [clusterTag(r.cluster.uuid)]);
        await record(r, 'network', id);
        return { gone: [id], kept: [] };
      },
      deletes: [204],
    },
    {
      name: 'recorded but gone behind our back: the 404 counts as done, its row marked deleted',
      async setup(r) {
        await record(r, 'network', randomUUID());
        return { gone: [], kept: [] };
      },
      deletes: [404],
    },
    {
      name: 'never recorded (a crash before the record): found by the cluster tag and deleted',
      async setup(r) {
        return { gone: [network('leftover', '', [clusterTag(r.cluster.uuid)])], kept: [] };
      },
      deletes: [204],
    },
    {
      name: 'never recorded nor tagged: found by its name, the cluster\'s uuid in its description',
      async setup(r) {
        return { gone: [network(resourceName(r.cluster, 'network'), clusterDescription(r.cluster.uuid))], kept: [] };
      },
      deletes: [204],
    },
    {
      name: 'the same name without the cluster\'s mark is another\'s: left',
      async setup(r) {
        return { gone: [], kept: [network(resourceName(r.cluster, 'network'), 'someone else')] };
      },
      deletes: [],
    },
    {
      name: 'nothing recorded, nothing found: the lists (by tag, by name) and no delete',
      async setup() {
        return { gone: [], kept: [] };
      },
      deletes: [],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const r = run();
      const { gone, kept } = await c.setup(r);
      await purgeNetworks.run(r.ctx);
      for (const id of gone) assert.equal(neutron().networks.has(id), false, `${id} deleted`);
      for (const id of kept) assert.equal(neutron().networks.has(id), true, `${id} left`);
      assert.deepEqual(ops(r, 'networks.delete'), c.deletes);
      assert.deepEqual(ops(r, 'networks.list'), [200, 200]);
      assert.deepEqual(await live(r), [], 'nothing of the type left live in the ledger');
      r.calls.length = 0;
      await purgeNetworks.run(r.ctx);
      assert.deepEqual(ops(r, 'networks.delete'), [], 'a second purge finds nothing more to delete');
      for (const id of kept) neutron().networks.delete(id);
    });
  }
});

test('without a credential (a delete resumed past it), a purge calls nothing', async () => {
  const r = run(false);
  const id = network('orphan', '', [clusterTag(r.cluster.uuid)]);
  await record(r, 'network', id);
  await purgeNetworks.run(r.ctx);
  assert.deepEqual(r.calls, []);
  assert.equal(neutron().networks.has(id), true);
  assert.deepEqual(await live(r), [id], 'the row stays live');
  neutron().networks.delete(id);
});

test('a purge that finds only by the ledger (server groups) makes no client and no call when nothing is recorded', async () => {
  const r = run();
  let clients = 0;
  const cloud = r.ctx.cloud();
  r.ctx.cloud = () => ({ ...cloud, novaResources: () => (clients++, cloud.novaResources()) });
  await purgeServerGroups.run(r.ctx);
  assert.equal(clients, 0);
  assert.deepEqual(r.calls, []);

  const nova = await cloud.novaResources();
  const group = await nova.createServerGroup({ name: `magnum-${r.cluster.uuid}-default-worker`, policy: 'soft-anti-affinity' } as never);
  await r.ctx.ledger.record({ service: 'compute', type: 'server_group', cloudId: group.id, name: null, step: 'test' });
  r.calls.length = 0;
  await purgeServerGroups.run(r.ctx);
  assert.deepEqual(ops(r, 'server_groups.delete'), [204]);
  assert.deepEqual(await live(r), []);
});

test('a resource still going makes the step wait, marking nothing; once it is gone, it and its children are marked', async () => {
  const r = run();
  const id = network('going', '', [clusterTag(r.cluster.uuid)]);
  await record(r, 'network', id);
  await record(r, 'subnet', 'child-of-going');
  const spec = {
    service: 'network', type: 'network', noun: 'network', children: ['subnet'],
    client: (cloud: Cloud) => cloud.neutron(),
    // Like a server or a load balancer: deleted in the background, gone when a GET answers 404.
    delete: (n: NeutronClient, x: string) => n.networks.get(x).then(() => 'going' as const, (e: unknown) => {
      if (isNotFound(e)) return false;
      throw e;
    }),
  };
  await assert.rejects(purge(r.ctx, spec), (e) => e instanceof Wait && e.ms === 5 && /^1 network\(s\) being deleted$/.test(e.why));
  assert.deepEqual((await live(r)).sort(), [id, 'child-of-going'].sort(), 'nothing marked while it goes');
  neutron().networks.delete(id);
  await purge(r.ctx, spec);
  assert.deepEqual(await live(r), [], 'the network and the subnet that went with it are marked deleted');
});

// ---- ensure(), with an in-memory run context against the simulated Neutron ----

let steps: StepCloud;
before(async () => {
  steps = await startStepCloud();
});
after(async () => {
  await steps.close();
});

/** An ensure of a Neutron network named `name` in the run's project, its creates and tags counted. */
async function networkSpec(r: StepRun, name: string, description: string) {
  const n = await r.clients().neutron();
  const made: string[] = [];
  const tagged: string[] = [];
  return {
    made,
    tagged,
    spec: {
      step: 'test', service: 'network', type: 'network', name,
      get: (id: string) => n.networks.get(id),
      findByName: () => n.listNetworks({ name }),
      create: async () => {
        const net = await n.networks.create({ name, description } as never);
        made.push(net.id);
        return net;
      },
      tag: async (id: string) => {
        tagged.push(id);
        await n.addTag('networks', id, clusterTag(r.uuid));
      },
    },
  };
}

test('ours: the cluster\'s tag, or its uuid in the description', () => {
  const uuid = '3F0D9C1E-7A51-4A8E-9B55-2F6A9D1C0E42';
  assert.equal(ours({ id: 'a', tags: [clusterTag(uuid)] }, uuid), true);
  assert.equal(ours({ id: 'a', description: clusterDescription(uuid) }, uuid), true);
  assert.equal(ours({ id: 'a', tags: ['magnum-cluster=other'], description: 'Magnum cluster other' }, uuid), false);
  assert.equal(ours({ id: 'a', tags: null, description: null }, uuid), false);
});

test('ensure: made once, recorded at once, tagged; then the recorded one; one gone behind our back made again, its row marked', async () => {
  const r = await stepRun(steps);
  const { spec, made, tagged } = await networkSpec(r, 'ensured', clusterDescription(r.uuid));
  const first = await ensure(r.ctx, spec);
  assert.deepEqual(made, [first.id]);
  assert.deepEqual(tagged, [first.id]);
  assert.deepEqual((await r.ledger.live()).map((x) => [x.service, x.type, x.cloud_id, x.name, x.step]), [['network', 'network', first.id, 'ensured', 'test']]);
  assert.equal((await ensure(r.ctx, spec)).id, first.id);
  assert.deepEqual(made, [first.id], 'the recorded one, not another');
  assert.equal(tagged.length, 1, 'tagged already: not again');

  await (await r.clients().neutron()).networks.delete(first.id);
  const again = await ensure(r.ctx, spec);
  assert.notEqual(again.id, first.id);
  assert.ok(r.ledger.rows.some((x) => x.cloud_id === first.id && x.deleted_at !== null));
  assert.deepEqual((await r.ledger.live()).map((x) => x.cloud_id), [again.id]);
});

test('ensure: an unrecorded one of the name marked as the cluster\'s is adopted, recorded and tagged; one without the mark is another\'s', async () => {
  const r = await stepRun(steps);
  const n = await r.clients().neutron();
  const theirs = await n.networks.create({ name: 'shared-name', description: 'someone else' } as never);
  const ourOwn = await n.networks.create({ name: 'adoptable', description: clusterDescription(r.uuid) } as never);
  const a = await networkSpec(r, 'adoptable', clusterDescription(r.uuid));
  assert.equal((await ensure(r.ctx, a.spec)).id, ourOwn.id);
  assert.deepEqual(a.made, []);
  assert.deepEqual(a.tagged, [ourOwn.id]);
  assert.ok(r.recorded.logs.some((l) => l.msg === 'adopted an unrecorded resource' && l.extra.id === ourOwn.id));
  const b = await networkSpec(r, 'shared-name', clusterDescription(r.uuid));
  const made = await ensure(r.ctx, b.spec);
  assert.notEqual(made.id, theirs.id, 'not adopted: a new one made');
  assert.deepEqual((await r.ledger.live()).map((x) => x.cloud_id).sort(), [ourOwn.id, made.id].sort());
});

test('ensure: a run that lost its lock creates nothing; a crash between the create and the record leaves it to be adopted', async () => {
  const r = await stepRun(steps);
  const { spec, made } = await networkSpec(r, 'locked', clusterDescription(r.uuid));
  r.checkpoint = async () => {
    throw new Stop('lock_lost');
  };
  await assert.rejects(ensure(r.ctx, spec), Stop);
  assert.deepEqual(made, []);
  r.checkpoint = async () => undefined;
  r.hooks.afterCreate = async () => {
    throw new Error('killed');
  };
  await assert.rejects(ensure(r.ctx, spec), /killed/);
  assert.deepEqual(await r.ledger.live(), []);
  r.hooks.afterCreate = undefined;
  assert.equal((await ensure(r.ctx, spec)).id, made[0], 'found by its name and mark');
  assert.equal(made.length, 1);
});
