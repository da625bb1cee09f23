// The create and delete operations end to end: the API writes the intent, the relay queues it, a
// real worker runs it against the simulated cloud (Keystone, Neutron, ...), real PostgreSQL and Redis.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { ClusterEventEntity } from '../../src/db/entities/cluster-event.js';
import { ClusterResourceEntity } from '../../src/db/entities/cluster-resource.js';
import { OperationEntity, type OperationRow } from '../../src/db/entities/operation.js';
import { OPERATIONS_QUEUE } from '../../src/operations/queue.js';
import { startWorker, type WorkerOptions } from '../../workers/main.js';
import { clusterTag, resourceName } from '../../src/steps/naming.js';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let template: string;
let queue: Queue;
let events: QueueEvents;
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
const connections: Redis[] = [];
const connect = () => {
  const c = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  connections.push(c);
  return c;
};

const workerOptions = (extra: Partial<WorkerOptions> = {}): WorkerOptions => ({
  redisUrl: process.env.REDIS_URL!,
  concurrency: 2,
  heartbeatMs: 1000,
  prefix: t.config.queuePrefix,
  db: t.app.services.db,
  config: t.config,
  lockDurationMs: 1000,
  stalledIntervalMs: 300,
  healthIntervalMs: 0,
  runner: { lockRetryMs: 100, pollMs: 20, backoff: { baseMs: 50, maxMs: 500, maxRetries: 8 } },
  ...extra,
});

before(async () => {
  t = await testApp({ cloud: true });
  const res = await t.as('demo', {
    method: 'POST',
    url: '/v1/clustertemplates',
    payload: { name: 'k8s', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', labels: { kube_tag: 'v1.35.1' } },
  });
  assert.equal(res.statusCode, 201, res.body);
  template = res.json().uuid;
  queue = new Queue(OPERATIONS_QUEUE, { connection: connect(), prefix: t.config.queuePrefix });
  events = new QueueEvents(OPERATIONS_QUEUE, { connection: connect(), prefix: t.config.queuePrefix });
  await events.waitUntilReady();
  worker = await startWorker(workerOptions());
});
after(async () => {
  await worker?.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  for (const c of connections) c.disconnect();
  await t.close();
});

const db = () => t.app.services.db;
const neutron = () => t.cloud!.neutron;

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function createCluster(name: string): Promise<string> {
  const res = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: template, name, node_count: 1 } });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().uuid as string;
}

const operation = (uuid: string, kind: string) => db().getRepository(OperationEntity).findOneBy({ cluster_id: uuid, kind: kind as OperationRow['kind'] });
const ended = (uuid: string, kind: string) =>
  until(`${kind} of ${uuid} to end`, async () => {
    const op = await operation(uuid, kind);
    return op && ['succeeded', 'failed', 'cancelled'].includes(op.state) ? op : undefined;
  });

/** Every Neutron resource carrying the cluster's tag or its uuid in the description. */
function leftovers(uuid: string): string[] {
  const n = neutron();
  const out: string[] = [];
  for (const [kind, map] of Object.entries({ networks: n.networks, subnets: n.subnets, routers: n.routers, ports: n.ports, securityGroups: n.securityGroups })) {
    for (const r of (map as Map<string, { id: string; name: string; tags: string[]; description: string }>).values()) {
      if (r.tags.includes(clusterTag(uuid)) || r.description.includes(uuid)) out.push(`${kind}:${r.name || r.id}`);
    }
  }
  return out;
}

async function deleteAndWaitGone(uuid: string): Promise<void> {
  const del = await t.as('demo', { method: 'DELETE', url: `/v1/clusters/${uuid}` });
  assert.equal(del.statusCode, 204, del.body);
  await until('the cluster row to disappear', async () => (await t.as('demo', { method: 'GET', url: `/v1/clusters/${uuid}` })).statusCode === 404);
}

describe('create, then delete', () => {
  let uuid: string;
  let appCred: string;

  test('the create makes the network, subnet, router and security groups, tagged and recorded, and completes', async () => {
    uuid = await createCluster('alpha');
    appCred = (await db().getRepository(ClusterEntity).findOneByOrFail({ uuid })).app_cred_id!;
    const op = await ended(uuid, 'create');
    assert.equal(op.state, 'succeeded', op.error ?? '');
    const c = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${uuid}` })).json();
    assert.equal(c.status, 'CREATE_COMPLETE');
    const row = await db().getRepository(ClusterEntity).findOneByOrFail({ uuid });
    for (const k of ['network', 'security_groups', 'api_lb', 'control_plane', 'workers', 'addons'] as const) {
      assert.equal(row.conditions[k]?.status, 'True', `${k}: ${row.conditions[k]?.message}`);
    }

    const tag = clusterTag(uuid);
    const n = neutron();
    const nets = [...n.networks.values()].filter((x) => x.tags.includes(tag));
    assert.deepEqual(nets.map((x) => x.name), [resourceName(row, 'network')]);
    const subnets = [...n.subnets.values()].filter((x) => x.tags.includes(tag));
    assert.equal(subnets.length, 1);
    assert.equal(subnets[0]!.networkId, nets[0]!.id);
    const routers = [...n.routers.values()].filter((x) => x.tags.includes(tag));
    assert.equal(routers.length, 1);
    assert.ok(routers[0]!.gateway, 'the router has its external gateway');
    const iface = [...n.ports.values()].find((p) => p.deviceId === routers[0]!.id && p.deviceOwner === 'network:router_interface');
    assert.ok(iface, 'the subnet is on the router');
    const sgs = [...n.securityGroups.values()].filter((x) => x.tags.includes(tag));
    assert.deepEqual(sgs.map((x) => x.name).sort(), [resourceName(row, 'secgroup-controlplane'), resourceName(row, 'secgroup-worker')]);
    const rules = [...n.securityGroupRules.values()].filter((r) => r.securityGroupId === sgs.find((s) => s.name.endsWith('controlplane'))!.id);
    assert.ok(rules.some((r) => r.direction === 'ingress' && r.protocol === 'tcp' && r.portRangeMin === 6443), 'kube-apiserver rule');

    const ledger = await db().getRepository(ClusterResourceEntity).findBy({ cluster_id: uuid });
    const types = ledger.map((r) => r.type);
    for (const type of ['network', 'subnet', 'router', 'router_interface', 'security_group', 'server_group', 'port', 'server']) assert.ok(types.includes(type), `ledger holds a ${type}`);
    assert.equal(types.filter((x) => x === 'server').length, 2);
    const ev = await db().getRepository(ClusterEventEntity).findBy({ cluster_id: uuid });
    for (const [type, reason] of [['network', 'Ready'], ['security_groups', 'Ready'], ['control_plane', 'Ready'], ['addons', 'Applied'], ['operation', 'CreateSucceeded']]) {
      assert.ok(ev.some((e) => e.type === type && e.reason === reason), `event ${type} ${reason}`);
    }
  });

  test('a duplicate job of the ended create does nothing', async () => {
    const op = (await operation(uuid, 'create'))!;
    const eventsBefore = await db().getRepository(ClusterEventEntity).countBy({ cluster_id: uuid });
    const job = await queue.add('create', { operationId: op.id, clusterId: uuid }, { jobId: `dup-${op.id}` });
    assert.deepEqual(await job.waitUntilFinished(events, 10_000), { skipped: 'succeeded' });
    const again = (await operation(uuid, 'create'))!;
    assert.equal(again.attempts, op.attempts);
    assert.equal(await db().getRepository(ClusterEventEntity).countBy({ cluster_id: uuid }), eventsBefore);
  });

  test('the delete removes every resource, the application credential, then the row', async () => {
    assert.ok(t.keystone.state.appCreds.get(appCred));
    await deleteAndWaitGone(uuid);
    assert.deepEqual(leftovers(uuid), []);
    assert.equal(t.keystone.state.appCreds.get(appCred), undefined, 'the application credential is gone');
    assert.equal(await db().getRepository(ClusterResourceEntity).countBy({ cluster_id: uuid }), 0);
  });
});

test('a network created but never recorded (a crash in between) is found by its tag and deleted', async () => {
  const uuid = await createCluster('beta');
  await ended(uuid, 'create');
  const project = t.keystone.state.findProjectByName('demo', 'default')!.id;
  const orphan = neutron().addNetwork({ name: 'leftover', projectId: project, description: '', tags: [clusterTag(uuid)] });
  // The recorded network is forgotten as well: only its name and tag lead to it now.
  await db().getRepository(ClusterResourceEntity).delete({ cluster_id: uuid, type: 'network' });
  await deleteAndWaitGone(uuid);
  assert.equal(neutron().networks.has(orphan.id), false);
  assert.deepEqual(leftovers(uuid), []);
});

test('a worker killed mid-step: its job is resumed by another worker, without a duplicate network', async () => {
  await worker!.close();
  worker = undefined;
  let reached!: () => void;
  const atCreate = new Promise<void>((r) => (reached = r));
  // The first worker hangs forever between creating the network and recording it.
  const dying = await startWorker(
    workerOptions({
      runner: {
        lockRetryMs: 100,
        pollMs: 20,
        hooks: {
          afterCreate: async (type) => {
            if (type !== 'network') return;
            reached();
            await new Promise(() => undefined);
          },
        },
      },
    }),
  );
  const uuid = await createCluster('gamma');
  await atCreate;
  await dying.close(true);
  worker = await startWorker(workerOptions());
  const op = await ended(uuid, 'create');
  assert.equal(op.state, 'succeeded', op.error ?? '');
  assert.ok(op.attempts >= 2, 'run twice');
  const row = await db().getRepository(ClusterEntity).findOneByOrFail({ uuid });
  const named = [...neutron().networks.values()].filter((n) => n.name === resourceName(row, 'network'));
  assert.equal(named.length, 1, 'one network, adopted by name');
  assert.ok(named[0]!.tags.includes(clusterTag(uuid)));
  assert.equal((await db().getRepository(ClusterResourceEntity).findBy({ cluster_id: uuid, type: 'network' })).length, 1);
  await deleteAndWaitGone(uuid);
  assert.deepEqual(leftovers(uuid), []);
});

test('a delete right after the create overtakes it (the create is cancelled) and leaves nothing behind', async () => {
  const uuid = await createCluster('delta');
  const del = await t.as('demo', { method: 'DELETE', url: `/v1/clusters/${uuid}` });
  assert.equal(del.statusCode, 204, del.body);
  // Before the row goes (operations go with it), the create is seen ended: cancelled, unless it had already failed.
  const create = await until('the create to end', async () => {
    const op = await operation(uuid, 'create');
    if (!op) return 'gone';
    return ['cancelled', 'failed', 'succeeded'].includes(op.state) ? op.state : undefined;
  });
  assert.ok(['cancelled', 'failed', 'succeeded', 'gone'].includes(create));
  await until('the cluster row to disappear', async () => (await t.as('demo', { method: 'GET', url: `/v1/clusters/${uuid}` })).statusCode === 404);
  assert.deepEqual(leftovers(uuid), []);
});
