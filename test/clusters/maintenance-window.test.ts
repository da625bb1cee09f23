// The maintenance window's calls (src/clusters/maintenance-window.ts, PUT/GET/DELETE /v1/clusters/{ident}/maintenance)
// by injection: every wrong field, an unknown or another project's template and one the upgrade path refuses are
// a 400 in Magnum's envelope that stores nothing; a reader may not (403), another project's member finds nothing
// (404); GET answers the next window and the upgrade it would run (the latest patch of the running minor, or the
// chosen template, by name or UUID), or why none; the upgrade planner shows the next window too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { wallClock } from '../../src/domain/zoned-time.js';
import { testApp, type TestApp } from '../support/app.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
const templates: Record<string, string> = {};
before(async () => {
  t = await testApp({ cloud: true });
  const make = async (who: 'demo' | 'other', name: string, kube_tag: string) => {
    const r = await t.as(who, { method: 'POST', url: '/v1/clustertemplates', payload: { name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', labels: { kube_tag } } });
    assert.equal(r.statusCode, 201, r.body);
    templates[name] = r.json().uuid;
  };
  for (const [name, tag] of [['mw-1355', 'v1.35.5'], ['mw-1359', 'v1.35.9'], ['mw-136', 'v1.36.0'], ['mw-134', 'v1.34.1']] as const) await make('demo', name, tag);
  await make('other', 'mw-theirs', 'v1.35.11');
});
after(() => t.close());

const good = { window: { day: 'tuesday', start: '02:00', duration_minutes: 120, timezone: 'Europe/Berlin' }, upgrade: { auto_upgrade: 'latest_patch', cluster_template_id: null } };
const withWindow = (over: object) => ({ ...good, window: { ...good.window, ...over } });
const withUpgrade = (auto_upgrade: string, cluster_template_id: string | null) => ({ ...good, upgrade: { auto_upgrade, cluster_template_id } });

test('PUT refuses each wrong field and template with a 400 that stores nothing; a reader 403, another project 404', async () => {
  const fx = await nodegroupCluster(t);
  const url = `/v1/clusters/${fx.cluster.uuid}/maintenance`;
  const refused: [object, string | RegExp][] = [
    [withWindow({ day: 'funday' }), "Invalid input for field/attribute window.day. Value: 'funday'. Value should be one of: sunday, monday, tuesday, wednesday, thursday, friday, saturday"],
    [withWindow({ start: '25:00' }), "Invalid input for field/attribute window.start. Value: '25:00'. Not a time of day HH:MM (00:00 to 23:59)."],
    [withWindow({ duration_minutes: 20 }), "Invalid input for field/attribute window.duration_minutes. Value: '20'. Value should be greater or equal to 30"],
    [withWindow({ duration_minutes: 1441 }), /window\.duration_minutes\. Value: '1441'\. Value should be lower or equal to 1440/],
    [withWindow({ timezone: 'Mars/Olympus' }), "Invalid input for field/attribute window.timezone. Value: 'Mars/Olympus'. Not an IANA time zone (e.g. Europe/Berlin)."],
    [withUpgrade('sometimes', null), /upgrade\.auto_upgrade\. Value: 'sometimes'\. Value should be one of: none, latest_patch, template/],
    [withUpgrade('template', 'ghost'), 'ClusterTemplate ghost could not be found.'],
    [withUpgrade('template', 'mw-theirs'), 'ClusterTemplate mw-theirs could not be found.'],
    [withUpgrade('template', 'mw-134'), "Invalid input for field/attribute upgrade.cluster_template_id. Value: 'mw-134'. Not a valid upgrade target: Kubernetes never goes down: v1.34.1 is older than v1.35.2."],
    [withUpgrade('template', null), "Invalid input for field/attribute upgrade.cluster_template_id. Value: 'None'. auto_upgrade \"template\" names the template to upgrade to."],
    [withUpgrade('latest_patch', 'mw-1359'), /upgrade\.cluster_template_id\. Value: 'mw-1359'\. A template is named only with auto_upgrade "template"\./],
    [{ ...good, at: 'now' }, 'Unknown attribute for argument maintenance: at'],
  ];
  for (const [payload, detail] of refused) {
    const r = await t.as('demo', { method: 'PUT', url, payload });
    assert.equal(r.statusCode, 400, `${JSON.stringify(payload)}: ${r.body}`);
    const got = r.json().errors[0].detail as string;
    if (typeof detail === 'string') assert.equal(got, detail);
    else assert.match(got, detail);
  }
  assert.equal((await t.as('demo-reader', { method: 'PUT', url, payload: good })).statusCode, 403);
  assert.equal((await t.as('other', { method: 'PUT', url, payload: good })).statusCode, 404);
  assert.equal((await t.as('other', { method: 'GET', url })).statusCode, 404);
  const view = await t.as('demo-reader', { method: 'GET', url });
  assert.equal(view.statusCode, 200, 'a reader reads it');
  assert.deepEqual([view.json().settings, view.json().next_window, view.json().planned_upgrade, view.json().nothing_planned], [null, null, null, 'No maintenance window is set.'], 'nothing stored');
  const [row] = await t.app.services.db.query('SELECT maintenance, maintenance_claimed FROM cluster WHERE uuid = $1', [fx.cluster.uuid]);
  assert.deepEqual(row, { maintenance: null, maintenance_claimed: null });
});

test('GET answers the next window and the planned upgrade: the latest patch of the minor, or the chosen template', async () => {
  const fx = await nodegroupCluster(t);
  const url = `/v1/clusters/${fx.cluster.uuid}/maintenance`;
  const ok = await t.as('demo', { method: 'PUT', url, payload: good });
  assert.equal(ok.statusCode, 200, ok.body);
  const m = ok.json();
  assert.deepEqual(m.settings, good);
  const next = new Date(m.next_window.start);
  assert.ok(next.getTime() > Date.now() - 1000 && next.getTime() <= Date.now() + 7 * 86_400_000, m.next_window.start);
  assert.deepEqual([wallClock(next, 'Europe/Berlin').dow, wallClock(next, 'Europe/Berlin').hour, wallClock(next, 'Europe/Berlin').minute], [2, 2, 0], 'Tuesday 02:00 in Berlin');
  assert.equal(Date.parse(m.next_window.end) - next.getTime(), 120 * 60_000);
  assert.equal(typeof m.open_now, 'boolean');
  assert.deepEqual(m.planned_upgrade, { cluster_template_id: templates['mw-1359'], name: 'mw-1359', from: 'v1.35.2', to: 'v1.35.9', kind: 'patch' }, 'the newest 1.35, not 1.36, not another project’s');
  assert.equal(m.nothing_planned, null);
  assert.equal(m.last_run, null);
  const planner = (await t.as('demo-reader', { method: 'GET', url: `/v1/clusters/${fx.cluster.uuid}/upgrades` })).json();
  assert.deepEqual(planner.next_maintenance, { ...m.next_window, timezone: 'Europe/Berlin', planned_upgrade: m.planned_upgrade, nothing_planned: null }, 'the planner shows the next window');

  const chosen = await t.as('demo', { method: 'PUT', url, payload: withUpgrade('template', 'mw-136') });
  assert.equal(chosen.statusCode, 200, chosen.body);
  assert.deepEqual(chosen.json().settings.upgrade, { auto_upgrade: 'template', cluster_template_id: templates['mw-136'] }, 'stored by UUID');
  assert.deepEqual(chosen.json().planned_upgrade, { cluster_template_id: templates['mw-136'], name: 'mw-136', from: 'v1.35.2', to: 'v1.36.0', kind: 'minor' });

  await t.app.services.clusters.update(fx.cluster.uuid, { coe_version: 'v1.35.9' });
  const latest = await t.as('demo', { method: 'PUT', url, payload: good });
  assert.equal(latest.json().planned_upgrade, null);
  assert.equal(latest.json().nothing_planned, 'Already at the latest patch of 1.35 (v1.35.9).');
  const none = await t.as('demo', { method: 'PUT', url, payload: withUpgrade('none', null) });
  assert.equal(none.json().nothing_planned, 'No automatic upgrade is chosen.');

  assert.equal((await t.as('demo', { method: 'DELETE', url })).statusCode, 204);
  assert.equal((await t.as('demo', { method: 'GET', url })).json().settings, null);
  assert.equal((await t.as('demo', { method: 'GET', url: `/v1/clusters/${fx.cluster.uuid}/upgrades` })).json().next_maintenance, null);
});
