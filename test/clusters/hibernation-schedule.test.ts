// The hibernation schedule (src/domain/hibernation-schedule.ts, src/clusters/hibernation-schedule.ts) with an
// injected clock: cron fields read in the cluster's IANA time zone; PUT refuses a bad zone or time (400, nothing
// stored) and a reader (403); fireSchedules begins the hibernate at 19:00 in Berlin and the wake at 07:00 on
// Monday, each minute once however many passes (a restart, a second worker), and says in the timeline when the
// cluster could not take it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fireSchedules, setSchedule, type Fired } from '../../src/clusters/hibernation-schedule.js';
import { cronMatches, dueMinute, nextRun, parseCron, type CronSpec } from '../../src/domain/hibernation-schedule.js';
import { testApp, type TestApp } from '../support/app.js';
import { callerOf } from '../support/callers.js';
import { nodegroupCluster } from '../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp({ cloud: true });
});
after(() => t.close());

const spec = (text: string): CronSpec => {
  const s = parseCron(text);
  assert.ok(typeof s !== 'string', String(s));
  return s;
};

test('cron fields in a time zone: matches, next run, the minute due (with a bounded catch-up)', () => {
  const evening = spec('0 19 * * 1-5');
  // Friday 27 November 2026: 19:00 in Berlin is 18:00 UTC (CET)
  assert.equal(cronMatches(evening, new Date('2026-11-27T18:00:00Z'), 'Europe/Berlin'), true);
  assert.equal(cronMatches(evening, new Date('2026-11-27T19:00:00Z'), 'Europe/Berlin'), false);
  assert.equal(cronMatches(evening, new Date('2026-11-27T19:00:00Z'), 'UTC'), true);
  assert.equal(nextRun(evening, 'Europe/Berlin', new Date('2026-11-27T18:00:00Z'))?.toISOString(), '2026-11-30T18:00:00.000Z', 'Monday next');
  assert.equal(nextRun(spec('30 7 * * 0,7'), 'America/New_York', new Date('2026-11-27T00:00:00Z'))?.toISOString(), '2026-11-29T12:30:00.000Z', 'Sunday 07:30 EST');
  assert.equal(nextRun(spec('*/15 * * * *'), 'UTC', new Date('2026-11-27T10:07:00Z'))?.toISOString(), '2026-11-27T10:15:00.000Z');
  assert.equal(dueMinute(evening, 'Europe/Berlin', new Date('2026-11-27T18:04:30Z'), undefined)?.toISOString(), '2026-11-27T18:00:00.000Z');
  assert.equal(dueMinute(evening, 'Europe/Berlin', new Date('2026-11-27T18:04:30Z'), new Date('2026-11-27T18:00:00Z')), undefined, 'fired already');
  assert.equal(dueMinute(evening, 'Europe/Berlin', new Date('2026-11-27T18:30:00Z'), undefined), undefined, 'too long ago to catch up');
  for (const [bad, why] of [['0 19 * *', /has 4 field/], ['61 * * * *', /out of range for the minute/], ['0 x * * *', /not a valid hour/], ['0 0 31-1 * *', /out of range/]] as const) {
    assert.match(String(parseCron(bad)), why, bad);
  }
});

test('PUT checks the zone and the times; a reader may not; DELETE removes it', async () => {
  const fx = await nodegroupCluster(t);
  const url = `/v1/clusters/${fx.cluster.uuid}/hibernation/schedule`;
  const put = (who: 'demo' | 'demo-reader', payload: object) => t.as(who, { method: 'PUT', url, payload });
  const bad = await put('demo', { hibernate: '0 19 * * 1-5', wake: null, timezone: 'Mars/Olympus' });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().errors[0].detail, "Invalid input for field/attribute timezone. Value: 'Mars/Olympus'. Not an IANA time zone (e.g. Europe/Berlin).");
  assert.equal((await put('demo', { hibernate: '0 25 * * *', wake: null, timezone: 'UTC' })).statusCode, 400);
  assert.equal((await put('demo', { hibernate: null, wake: null, timezone: 'UTC' })).statusCode, 400);
  assert.equal((await put('demo', { hibernate: '0 19 * * *', timezone: 'UTC', at: 'now' })).statusCode, 400);
  assert.equal((await put('demo-reader', { hibernate: '0 19 * * *', wake: null, timezone: 'UTC' })).statusCode, 403);
  assert.equal((await t.as('demo', { method: 'GET', url: `/v1/clusters/${fx.cluster.uuid}/hibernation` })).json().schedule, null, 'nothing stored');
  const ok = await put('demo', { hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5', timezone: 'Europe/Berlin' });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(ok.json().schedule, { hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5', timezone: 'Europe/Berlin' });
  assert.match(ok.json().next.hibernate, /T18:00:00\.000Z$/);
  assert.match(ok.json().next.wake, /T06:00:00\.000Z$/);
  assert.equal((await t.as('demo', { method: 'DELETE', url })).statusCode, 204);
  assert.equal((await t.as('demo', { method: 'GET', url: `/v1/clusters/${fx.cluster.uuid}/hibernation` })).json().schedule, null);
});

test('fired by the injected clock: hibernate at 19:00 Berlin, wake at 07:00 on Monday, each minute once', async () => {
  const ds = t.app.services.db;
  const fx = await nodegroupCluster(t);
  const uuid = fx.cluster.uuid;
  const ops = async () => (await ds.query(`SELECT kind FROM operation WHERE cluster_id = $1 ORDER BY created_at`, [uuid])).map((o: { kind: string }) => o.kind);
  const mine = (fired: Fired[]) => fired.filter((f) => f.cluster === uuid);
  await setSchedule(t.app.services.clusters, await callerOf(t, 'demo'), fx.cluster, { hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5', timezone: 'Europe/Berlin' }, new Date('2026-11-27T17:30:00Z'));
  assert.deepEqual(mine(await fireSchedules(ds, new Date('2026-11-27T17:59:50Z'))), []);
  const fired = mine(await fireSchedules(ds, new Date('2026-11-27T18:00:20Z')));
  assert.deepEqual(fired, [{ cluster: uuid, action: 'hibernate', minute: '2026-11-27T18:00:00.000Z', outcome: 'started' }]);
  assert.deepEqual(await ops(), ['hibernate']);
  // a second pass, a restarted worker, two workers at once: the minute is claimed
  const again = await Promise.all([fireSchedules(ds, new Date('2026-11-27T18:00:40Z')), fireSchedules(ds, new Date('2026-11-27T18:03:00Z'))]);
  assert.deepEqual(again.flatMap(mine), []);
  assert.deepEqual(await ops(), ['hibernate']);
  const [accepted] = await ds.query(`SELECT message FROM cluster_event WHERE cluster_id = $1 AND reason = 'HibernateAccepted'`, [uuid]);
  assert.match(accepted.message, /by its schedule/);

  // still hibernating on Monday morning: the wake is skipped, and said
  const busy = mine(await fireSchedules(ds, new Date('2026-11-30T06:00:05Z')));
  assert.equal(busy[0]?.outcome, 'skipped');
  const [skipped] = await ds.query(`SELECT message, severity FROM cluster_event WHERE cluster_id = $1 AND reason = 'ScheduleSkipped'`, [uuid]);
  assert.match(skipped.message, /^The schedule's wake at 2026-11-30T06:00:00.000Z \(Europe\/Berlin: 0 7 \* \* 1-5\) did not start: Cluster .* is UPDATE_IN_PROGRESS/);
  assert.equal(skipped.severity, 'warning');

  // hibernated (the worker's end, written here): Tuesday's wake begins
  await ds.query(`UPDATE operation SET state = 'succeeded' WHERE cluster_id = $1`, [uuid]);
  await ds.query(`UPDATE cluster SET status = 'UPDATE_COMPLETE' WHERE uuid = $1`, [uuid]);
  assert.deepEqual(mine(await fireSchedules(ds, new Date('2026-12-01T06:00:30Z'))).map((f) => [f.action, f.outcome]), [['wake', 'started']]);
  assert.deepEqual(await ops(), ['hibernate', 'wake']);
});
