// The maintenance windows' pass (src/clusters/maintenance-pass.ts) with an injected clock: a window runs its
// upgrade once (the latest patch of the running minor, chosen right), however many passes, restarts or workers at
// once; a busy cluster is tried again within the window and, busy to its end, recorded once as skipped; a window
// with nothing to run and one whose upgrade is refused say so in the timeline. Each through planUpgrade and
// startUpgrade as the service's own operation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runMaintenance, type MaintenancePassDeps, type WindowRun } from '../../src/clusters/maintenance-pass.js';
import { setMaintenance } from '../../src/clusters/maintenance-window.js';
import type { ClusterRow, MaintenanceSettings } from '../../src/db/entities/cluster.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
const templates: Record<string, string> = {};
before(async () => {
  t = await testApp({ cloud: true });
  for (const [name, tag] of [['mp-1354', 'v1.35.4'], ['mp-1358-old', 'v1.35.8'], ['mp-1358', 'v1.35.8'], ['mp-136', 'v1.36.0']] as const) {
    const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', labels: { kube_tag: tag } } });
    assert.equal(r.statusCode, 201, r.body);
    templates[name] = r.json().uuid;
  }
  // Of two 1.35.8 templates the newer one wins.
  await t.app.services.db.query(`UPDATE cluster_template SET created_at = created_at - interval '1 day' WHERE uuid = $1`, [templates['mp-1358-old']]);
});
after(() => t.close());

/** The pass as a worker composes it, acting as the project's member (the worker uses the cluster's application credential). */
const deps = (callerFor: MaintenancePassDeps['callerFor'] = async () => callerOf(t, 'demo')): MaintenancePassDeps => ({
  db: t.app.services.db,
  templates: t.app.services.templates.repo,
  plan: t.app.services,
  upgrade: t.app.services,
  callerFor,
});
const settings = (day: MaintenanceSettings['window']['day'], start: string, upgrade: MaintenanceSettings['upgrade'] = { auto_upgrade: 'latest_patch', cluster_template_id: null }): MaintenanceSettings => ({
  window: { day, start, duration_minutes: 60, timezone: 'Europe/Berlin' },
  upgrade,
});
const set = async (c: ClusterRow, s: MaintenanceSettings, now = '2026-11-27T12:00:00Z') =>
  setMaintenance({ clusters: t.app.services.clusters, templates: t.app.services.templates.repo }, await callerOf(t, 'demo'), c, s, new Date(now));
const pass = async (c: ClusterRow, at: string, d = deps()): Promise<Omit<WindowRun, 'cluster'>[]> =>
  (await runMaintenance(d, new Date(at))).filter((r) => r.cluster === c.uuid).map(({ cluster: _c, ...r }) => r);
const ops = async (c: ClusterRow) => (await t.app.services.db.query(`SELECT kind, params FROM operation WHERE cluster_id = $1 ORDER BY created_at`, [c.uuid])) as { kind: string; params: Record<string, unknown> }[];
const events = async (c: ClusterRow, reason: string) => (await t.app.services.db.query(`SELECT message, severity FROM cluster_event WHERE cluster_id = $1 AND reason = $2 ORDER BY id`, [c.uuid, reason])) as { message: string; severity: string }[];
const view = async (c: ClusterRow) => (await t.as('demo', { method: 'GET', url: `/v1/clusters/${c.uuid}/maintenance` })).json();

test('a window begins the latest patch of its minor once: more passes, a restart, two workers at once run nothing more', async () => {
  const { cluster: c, worker } = await nodegroupCluster(t);
  await set(c, settings('monday', '09:00'));
  assert.deepEqual(await pass(c, '2026-11-30T07:59:50Z'), [], 'Monday 09:00 in Berlin is 08:00 UTC');
  assert.deepEqual(await pass(c, '2026-11-30T08:00:20Z'), [{ window_start: '2026-11-30T08:00:00.000Z', outcome: 'started' }]);
  const [op, ...more] = await ops(c);
  assert.deepEqual(more, []);
  assert.deepEqual([op!.kind, op!.params], ['upgrade', { cluster_template: templates['mp-1358'], nodegroup: worker.uuid, max_batch_size: 1, from: 'v1.35.2', to: 'v1.35.8' }], 'the newest 1.35.8 template, not 1.36');
  const again = await Promise.all([pass(c, '2026-11-30T08:00:40Z'), pass(c, '2026-11-30T08:30:00Z', deps()), pass(c, '2026-11-30T08:59:00Z')]);
  assert.deepEqual(again.flat(), []);
  assert.equal((await ops(c)).length, 1);
  const [accepted] = await events(c, 'UpgradeAccepted');
  assert.match(accepted!.message, /^Upgrade of .+ from v1\.35\.2 to v1\.35\.8 accepted \(by its maintenance window of 2026-11-30T08:00:00\.000Z, the latest patch of its minor: template mp-1358\)\.$/);
  const m = await view(c);
  assert.deepEqual([m.last_run.outcome, m.last_run.upgrade], ['started', { cluster_template_id: templates['mp-1358'], name: 'mp-1358', from: 'v1.35.2', to: 'v1.35.8' }]);
});

test('a pass whose start fails in the database (a worker dying there) leaves the window unclaimed: the next pass begins it, once', async () => {
  const { cluster: c } = await nodegroupCluster(t);
  await set(c, settings('tuesday', '09:00'));
  const db = t.app.services.db;
  // The start's transaction fails as a dying worker's would: before anything of it is committed.
  const failing = new Proxy(db, { get: (target, key) => (key === 'transaction' ? () => Promise.reject(new Error('Connection terminated unexpectedly')) : Reflect.get(target, key)) });
  const dying = { ...deps(), upgrade: { ...t.app.services, outbox: { db: failing } } };
  await assert.rejects(pass(c, '2026-12-01T08:00:20Z', dying), /Connection terminated/);
  assert.equal((await ops(c)).length, 0);
  assert.equal((await view(c)).last_run, null, 'nothing claimed, nothing said');
  assert.deepEqual(await pass(c, '2026-12-01T08:00:50Z'), [{ window_start: '2026-12-01T08:00:00.000Z', outcome: 'started' }]);
  assert.deepEqual(await pass(c, '2026-12-01T08:01:20Z'), []);
  assert.equal((await ops(c)).length, 1);
  assert.equal((await view(c)).last_run.outcome, 'started');
});

test('busy: tried again while the window is open, begun once settled; busy to its end: skipped, said once', async () => {
  const { cluster: c } = await nodegroupCluster(t);
  await set(c, settings('wednesday', '10:00'));
  await t.app.services.clusters.update(c.uuid, { status: 'UPDATE_IN_PROGRESS' });
  assert.deepEqual(await pass(c, '2026-12-02T09:00:30Z'), [{ window_start: '2026-12-02T09:00:00.000Z', outcome: 'waiting', reason: 'the cluster is UPDATE_IN_PROGRESS' }]);
  assert.deepEqual(await pass(c, '2026-12-02T09:20:00Z'), [{ window_start: '2026-12-02T09:00:00.000Z', outcome: 'waiting', reason: 'the cluster is UPDATE_IN_PROGRESS' }]);
  assert.equal((await view(c)).last_run.outcome, 'waiting');
  await t.app.services.clusters.update(c.uuid, { status: 'UPDATE_COMPLETE' });
  assert.deepEqual(await pass(c, '2026-12-02T09:40:00Z'), [{ window_start: '2026-12-02T09:00:00.000Z', outcome: 'started' }]);
  assert.deepEqual((await ops(c)).map((o) => o.kind), ['upgrade']);

  // The next week: hibernated the whole window.
  const { cluster: d } = await nodegroupCluster(t);
  await set(d, settings('wednesday', '10:00'));
  await t.app.services.clusters.update(d.uuid, { hibernation: 'hibernated' });
  assert.deepEqual(await pass(d, '2026-12-02T09:10:00Z'), [{ window_start: '2026-12-02T09:00:00.000Z', outcome: 'waiting', reason: 'the cluster is hibernated' }]);
  assert.deepEqual(await pass(d, '2026-12-02T10:00:10Z'), [{ window_start: '2026-12-02T09:00:00.000Z', outcome: 'skipped', reason: 'busy the whole window (the cluster is hibernated)' }]);
  assert.deepEqual(await Promise.all([pass(d, '2026-12-02T10:00:40Z'), pass(d, '2026-12-02T11:00:00Z')]), [[], []], 'said once');
  assert.deepEqual(await ops(d), []);
  const skipped = await events(d, 'MaintenanceSkipped');
  assert.deepEqual(skipped, [{ message: 'The maintenance window of 2026-12-02T09:00:00.000Z ran nothing: busy the whole window (the cluster is hibernated).', severity: 'warning' }]);
});

test('nothing to run, a chosen template, and an upgrade refused: each window says so', async () => {
  const { cluster: c } = await nodegroupCluster(t);
  await t.app.services.clusters.update(c.uuid, { coe_version: 'v1.35.8' });
  await set({ ...c, coe_version: 'v1.35.8' }, settings('friday', '22:00'));
  assert.deepEqual(await pass(c, '2026-12-04T21:05:00Z'), [{ window_start: '2026-12-04T21:00:00.000Z', outcome: 'nothing', reason: 'Already at the latest patch of 1.35 (v1.35.8).' }]);
  assert.deepEqual(await events(c, 'MaintenanceNothingToDo'), [{ message: 'The maintenance window of 2026-12-04T21:00:00.000Z ran nothing: Already at the latest patch of 1.35 (v1.35.8).', severity: 'info' }]);

  // The chosen template, the next minor: begun the next week.
  await set({ ...c, coe_version: 'v1.35.8' }, settings('friday', '22:00', { auto_upgrade: 'template', cluster_template_id: 'mp-136' }), '2026-12-04T21:08:00Z');
  assert.deepEqual(await pass(c, '2026-12-04T21:10:00Z'), [], 'set during the window: it runs from the next one');
  assert.deepEqual(await pass(c, '2026-12-11T21:00:05Z'), [{ window_start: '2026-12-11T21:00:00.000Z', outcome: 'started' }]);
  assert.deepEqual((await ops(c)).map((o) => [o.params.cluster_template, o.params.to]), [[templates['mp-136'], 'v1.36.0']]);

  // No credential to act with: refused, in the timeline.
  const { cluster: e } = await nodegroupCluster(t);
  await set(e, settings('friday', '22:00'));
  assert.deepEqual(await pass(e, '2026-12-04T21:01:00Z', deps(async () => undefined)), [{ window_start: '2026-12-04T21:00:00.000Z', outcome: 'refused', reason: 'The cluster has no application credential to act with.' }]);
  const [refused] = await events(e, 'MaintenanceUpgradeRefused');
  assert.equal(refused!.message, 'The maintenance window of 2026-12-04T21:00:00.000Z did not upgrade to mp-1358 (v1.35.2 → v1.35.8): The cluster has no application credential to act with.');
  assert.equal(refused!.severity, 'warning');
  assert.deepEqual(await ops(e), []);
});
