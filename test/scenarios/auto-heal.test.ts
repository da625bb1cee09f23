// Auto-healing (labels auto_healing_*): the health check remembers since when each worker has been
// unhealthy and, past the grace period, queues a repair that replaces it; a worker deleted behind
// the service's back is replaced and its Node removed; nothing is replaced when too many are
// unhealthy at once, or when the cluster did not ask for it. Time is moved by back-dating the
// remembered times, as a later health pass would see them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDelete } from '../../cloudsim/nova/lifecycle.js';
import { ClusterEntity } from '../../src/db/entities/cluster.js';
import { CloudFactory } from '../../src/steps/cloud.js';
import { healthPass } from '../../workers/health.js';
import { kubeClient } from '../../src/steps/kube.js';
import { api, deleteCluster, leftovers, servers, settled, until, withHarness, type Harness } from './lifecycle-support.js';

let h: Harness;
let factory: CloudFactory;
withHarness((x) => {
  h = x;
  factory = new CloudFactory(h.t.config);
});

const db = () => h.t.app.services.db;
const row = (uuid: string) => db().getRepository(ClusterEntity).findOneByOrFail({ uuid });

async function cluster(name: string, labels: Record<string, string>, workers = 3): Promise<string> {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name, master_count: 1, node_count: workers, labels: { kube_tag: 'v1.35.1', ...labels } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await settled(h, r.body.uuid, 'CREATE_COMPLETE');
  return r.body.uuid as string;
}

/** Every remembered unhealthy time moved an hour back. */
async function anHourLater(uuid: string): Promise<void> {
  const c = await row(uuid);
  const past = new Date(Date.now() - 3_600_000).toISOString();
  await db().getRepository(ClusterEntity).update({ uuid }, { unhealthy_since: Object.fromEntries(Object.keys(c.unhealthy_since).map((k) => [k, past])) });
}

const workersOf = (uuid: string) => [...servers(h, uuid).entries()].filter(([, s]) => s.metadata.magnum_role === 'worker');

function stop(id: string): void {
  const nova = h.t.cloud!.nova;
  const s = nova.servers.get(id)!;
  Object.assign(s, { vmState: 'stopped', powerState: 4 });
  nova.notify(s);
}

async function nodeNames(uuid: string): Promise<string[]> {
  const kube = await kubeClient(db(), factory, await row(uuid));
  return (await kube!.listNodes()).map((n) => n.metadata.name).sort();
}

describe('a cluster with auto_healing_enabled=true', () => {
  let uuid: string;

  test('a stopped worker is remembered, then replaced once the grace period is over', async () => {
    uuid = await cluster('healing', { auto_healing_enabled: 'true' });
    const [name, s] = workersOf(uuid)[0]!;
    stop(s.id);
    await healthPass(db(), factory);
    let c = (await api(h, 'GET', `/v1/clusters/${uuid}`)).body;
    assert.equal(c.status, 'CREATE_COMPLETE', 'nothing is replaced within the grace period');
    assert.deepEqual(Object.keys((await row(uuid)).unhealthy_since), [name]);
    assert.match(c.health_status_reason.auto_healing, /1 unhealthy or missing worker\(s\) within the 300 s grace period/);

    await anHourLater(uuid);
    await healthPass(db(), factory);
    c = (await api(h, 'GET', `/v1/clusters/${uuid}`)).body;
    assert.equal(c.status, 'UPDATE_IN_PROGRESS');
    assert.match(c.health_status_reason.auto_healing, new RegExp(`replacing ${name}`));
    const events = (await api(h, 'GET', `/v1/clusters/${uuid}/events`)).body;
    assert.ok(JSON.stringify(events).includes('AutoHealing'), 'the repair is an event of the cluster');

    await settled(h, uuid, 'UPDATE_COMPLETE');
    const now = workersOf(uuid);
    assert.equal(now.length, 3);
    assert.ok(!now.some(([n]) => n === name), `${name} was replaced`);
    assert.deepEqual(await nodeNames(uuid), [...servers(h, uuid).keys()].sort(), 'a Node per server, the old one gone');
    await healthPass(db(), factory);
    assert.equal((await api(h, 'GET', `/v1/clusters/${uuid}`)).body.health_status, 'HEALTHY');
    assert.deepEqual((await row(uuid)).unhealthy_since, {});
  });

  test('a worker deleted behind the service\'s back is replaced and its Node removed', async () => {
    const [name, s] = workersOf(uuid)[1]!;
    startDelete(h.t.cloud!.nova, h.t.cloud!.nova.servers.get(s.id)!);
    await until('the server to be gone', async () => !servers(h, uuid).has(name));
    await healthPass(db(), factory);
    assert.deepEqual(Object.keys((await row(uuid)).unhealthy_since), ['missing:default-worker:0']);
    await anHourLater(uuid);
    await healthPass(db(), factory);
    await settled(h, uuid, 'UPDATE_COMPLETE');
    assert.equal(workersOf(uuid).length, 3);
    const nodes = await nodeNames(uuid);
    assert.ok(!nodes.includes(name), `the Node of ${name} is gone`);
    assert.deepEqual(nodes, [...servers(h, uuid).keys()].sort());
  });

  test('two of three workers down is more than 40%: nothing is replaced', async () => {
    for (const [, s] of workersOf(uuid).slice(0, 2)) stop(s.id);
    await healthPass(db(), factory);
    await anHourLater(uuid);
    await healthPass(db(), factory);
    const c = (await api(h, 'GET', `/v1/clusters/${uuid}`)).body;
    assert.equal(c.status, 'UPDATE_COMPLETE');
    assert.match(c.health_status_reason.auto_healing, /paused: 2 of 3 workers unhealthy or missing \(more than 40%\)/);
    await deleteCluster(h, uuid);
  });
});

test('without the label nothing is remembered or replaced', async () => {
  const uuid = await cluster('plain', {}, 1);
  stop(workersOf(uuid)[0]![1].id);
  await healthPass(db(), factory);
  const c = (await api(h, 'GET', `/v1/clusters/${uuid}`)).body;
  assert.equal(c.health_status, 'UNHEALTHY');
  assert.equal(c.health_status_reason.auto_healing, undefined);
  assert.deepEqual((await row(uuid)).unhealthy_since, {});
  await deleteCluster(h, uuid);
  assert.deepEqual(leftovers(h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
});

test('a bad auto_healing_unhealthy_seconds is a 400 naming it', async () => {
  const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: h.templates.v135, name: 'bad', labels: { auto_healing_enabled: 'true', auto_healing_unhealthy_seconds: '5' } });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.match(r.body.errors[0].detail, /auto_healing_unhealthy_seconds/);
});
