// Hibernation through the API (src/clusters/hibernate.ts, src/api/routes/v1/clusters/hibernation.ts), no worker:
// begun as operations (the intent and its outbox row, the row marked hibernated at once), refused in Magnum's
// envelope when the cluster is not settled, already hibernated or not hibernated, or for a reader; every other
// change of a hibernated cluster refused with a reason naming the wake; a delete still accepted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { STANDING_STATUSES } from '../../src/domain/cluster-status.js';
import { testApp, type TestApp } from '../support/app.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp({ cloud: true });
});
after(() => t.close());

const call = async (who: 'demo' | 'demo-reader', method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
  const r = await t.as(who, { method, url, ...(payload === undefined ? {} : { payload: payload as object }), headers: { 'OpenStack-API-Version': 'container-infra latest' } });
  return { status: r.statusCode, body: r.body ? JSON.parse(r.body) : undefined };
};
const detail = (r: { body: { errors?: { detail: string }[] } }) => r.body.errors?.[0]?.detail;
const ops = (uuid: string) => t.app.services.db.query(`SELECT kind, state FROM operation WHERE cluster_id = $1 ORDER BY created_at`, [uuid]);

test('hibernate: the intent written, the row marked, the state HIBERNATING; refusals while it runs and once hibernated', async () => {
  const fx = await nodegroupCluster(t);
  const uuid = fx.cluster.uuid;
  assert.equal((await call('demo-reader', 'POST', `/v1/clusters/${uuid}/actions/hibernate`)).status, 403);
  assert.equal(detail(await call('demo', 'POST', `/v1/clusters/${uuid}/actions/hibernate`, { force: true })), 'Unknown attribute for argument hibernate: force');
  assert.deepEqual(await ops(uuid), [], 'nothing written for a refusal');

  const r = await call('demo', 'POST', `/v1/clusters/${uuid}/actions/hibernate`);
  assert.deepEqual([r.status, r.body], [202, { uuid }]);
  const [op] = await ops(uuid);
  assert.equal(op.kind, 'hibernate');
  assert.ok(['pending', 'queued'].includes(op.state), op.state);
  const [row] = await t.app.services.db.query(`SELECT status, hibernation, hibernated_at FROM cluster WHERE uuid = $1`, [uuid]);
  assert.deepEqual([row.status, row.hibernation], ['UPDATE_IN_PROGRESS', 'hibernated']);
  assert.ok(row.hibernated_at instanceof Date);
  const view = await call('demo-reader', 'GET', `/v1/clusters/${uuid}/hibernation`);
  assert.equal(view.status, 200);
  assert.equal(view.body.state, 'HIBERNATING');
  const busy = await call('demo', 'POST', `/v1/clusters/${uuid}/actions/hibernate`);
  assert.deepEqual([busy.status, detail(busy)], [409, 'Cluster ' + fx.cluster.name + ' is UPDATE_IN_PROGRESS: a hibernation is not possible in that state.']);

  // once it is done (the worker's end, written here): HIBERNATED, Magnum's status settled
  await t.app.services.db.query(`UPDATE operation SET state = 'succeeded' WHERE cluster_id = $1`, [uuid]);
  await t.app.services.db.query(`UPDATE cluster SET status = 'UPDATE_COMPLETE' WHERE uuid = $1`, [uuid]);
  assert.equal((await call('demo', 'GET', `/v1/clusters/${uuid}/hibernation`)).body.state, 'HIBERNATED');
  const checked = async () => {
    const ids: string[] = [];
    for (let page = await t.app.services.clusters.withApiIn(STANDING_STATUSES); page.length > 0; page = await t.app.services.clusters.withApiIn(STANDING_STATUSES, page.at(-1)!.id)) ids.push(...page.map((c) => c.uuid));
    return ids;
  };
  assert.ok(!(await checked()).includes(uuid), 'the health pass (and so auto-healing) leaves a hibernated cluster alone');
  const magnum = await call('demo', 'GET', `/v1/clusters/${uuid}`);
  assert.equal(magnum.body.status, 'UPDATE_COMPLETE');
  assert.ok(!('hibernation' in magnum.body), "Magnum's view unchanged");
  const wake = `Wake it first (POST /v1/clusters/${uuid}/actions/wake).`;
  const refused = [
    await call('demo', 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 2 }),
    await call('demo', 'PATCH', `/v1/clusters/${uuid}`, [{ op: 'replace', path: '/node_count', value: 2 }]),
    await call('demo', 'POST', `/v1/clusters/${uuid}/nodegroups`, { name: 'more' }),
  ];
  for (const x of refused) {
    assert.equal(x.status, 409, JSON.stringify(x.body));
    assert.ok(detail(x)?.startsWith(`Cluster ${fx.cluster.name} is hibernated: `) && detail(x)?.endsWith(wake), detail(x));
  }
  assert.equal(detail(await call('demo', 'POST', `/v1/clusters/${uuid}/actions/hibernate`)), `Cluster ${fx.cluster.name} is already hibernated.`);
  assert.equal((await ops(uuid)).length, 1, 'no refusal wrote an operation');
  assert.equal((await call('demo', 'POST', `/v1/clusters/${uuid}/actions/wake`)).status, 202);
  assert.deepEqual((await ops(uuid)).map((o: { kind: string }) => o.kind), ['hibernate', 'wake']);
  assert.equal((await call('demo', 'GET', `/v1/clusters/${uuid}/hibernation`)).body.state, 'WAKING');
  assert.equal((await call('demo', 'DELETE', `/v1/clusters/${uuid}`)).status, 204, 'a delete overtakes');
});

test('a wake of a cluster that is not hibernated, a hibernate of one not settled: 409', async () => {
  const awake = await nodegroupCluster(t);
  const r = await call('demo', 'POST', `/v1/clusters/${awake.cluster.uuid}/actions/wake`);
  assert.deepEqual([r.status, detail(r)], [409, `Cluster ${awake.cluster.name} is not hibernated: there is nothing to wake.`]);
  const creating = await nodegroupCluster(t, { status: 'CREATE_IN_PROGRESS' });
  const h = await call('demo', 'POST', `/v1/clusters/${creating.cluster.uuid}/actions/hibernate`);
  assert.deepEqual([h.status, detail(h)], [409, `Cluster ${creating.cluster.name} is CREATE_IN_PROGRESS: a hibernation is not possible in that state.`]);
  assert.equal((await call('demo', 'GET', `/v1/clusters/00000000-0000-4000-8000-000000000000/hibernation`)).status, 404);
});
