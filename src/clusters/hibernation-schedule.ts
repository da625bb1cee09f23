// The hibernation schedule (an extension): PUT /v1/clusters/{ident}/hibernation/schedule stores cron-like
// hibernate and wake times in an IANA time zone (each checked: a bad one is a 400 and nothing is stored); DELETE
// removes it. The worker process fires it (fireSchedules, every half minute): for each cluster with a schedule,
// the latest due minute of each action not yet fired is claimed in the row first (a compare-and-set on
// schedule_fired), so a restart or a second worker never fires the same minute twice; then the hibernate or wake
// begins as the service's own operation (a settled cluster only). A firing the cluster cannot take (busy, already
// in that state) is an event in its timeline, not a retry.
import { IsNull, MoreThan, Not, type DataSource } from 'typeorm';
import { ClusterEntity, type ClusterRow, type HibernationSchedule } from '../db/entities/cluster.js';
import { ClusterRepo } from '../db/repos/clusters.js';
import { ClusterEventRepo } from '../db/repos/events.js';
import { ApiError, errors } from '../domain/errors.js';
import { dueMinute, floorMinute, nextRun, parseCron } from '../domain/hibernation-schedule.js';
import { validTimeZone } from '../domain/zoned-time.js';
import { enforce } from '../domain/policy.js';
import type { Caller } from './lookup.js';
import { startHibernate, startWake } from './hibernate.js';
import { returnedRows } from '../db/returning.js';

const ACTIONS = ['hibernate', 'wake'] as const;
type Action = (typeof ACTIONS)[number];

/** The schedule checked: each time a five-field cron expression, the zone an IANA one, at least one time. */
export function checkSchedule(s: HibernationSchedule): HibernationSchedule {
  if (!validTimeZone(s.timezone)) throw errors.invalidInput('timezone', s.timezone, 'Not an IANA time zone (e.g. Europe/Berlin).');
  for (const a of ACTIONS) {
    const cron = s[a];
    if (cron === null) continue;
    const spec = parseCron(cron);
    if (typeof spec === 'string') throw errors.invalidInput(a, cron, spec);
  }
  if (s.hibernate === null && s.wake === null) throw errors.invalidInput('hibernate', null, 'A schedule needs a hibernate or a wake time (DELETE removes the schedule).');
  return { hibernate: s.hibernate?.trim() ?? null, wake: s.wake?.trim() ?? null, timezone: s.timezone };
}

/**
 * Stores (or with null removes) the schedule. What is already due when it is set does not fire: the firings
 * start with the next minute.
 */
export async function setSchedule(clusters: Pick<ClusterRepo, 'update'>, who: Caller, c: ClusterRow, schedule: HibernationSchedule | null, now = new Date()): Promise<void> {
  enforce(who.ctx, 'cluster:update', c);
  const checked = schedule ? checkSchedule(schedule) : null;
  const minute = floorMinute(now).toISOString();
  await clusters.update(c.uuid, { hibernation_schedule: checked, schedule_fired: { hibernate: minute, wake: minute } });
}

/** The next time each action fires (within eight days), for the view. */
export function nextFirings(s: HibernationSchedule | null, now = new Date()): { hibernate: string | null; wake: string | null } {
  const next = (cron: string | null | undefined) => {
    if (!s || !cron) return null;
    const spec = parseCron(cron);
    return typeof spec === 'string' ? null : (nextRun(spec, s.timezone, now)?.toISOString() ?? null);
  };
  return { hibernate: next(s?.hibernate), wake: next(s?.wake) };
}

/** Claims `minute` for `action` of the cluster: true once, for the first claimer. */
async function claim(ds: DataSource, uuid: string, action: Action, minute: string): Promise<boolean> {
  const rows = await ds.query(
    `UPDATE cluster SET schedule_fired = schedule_fired || jsonb_build_object($2::text, $3::text)
      WHERE uuid = $1 AND COALESCE(schedule_fired->>$2, '') < $3 RETURNING id`,
    [uuid, action, minute],
  );
  return returnedRows(rows).length > 0;
}

export interface Fired {
  cluster: string;
  action: Action;
  minute: string;
  outcome: 'started' | 'skipped';
  reason?: string;
}

/** One pass over the scheduled clusters at `now` (the injected clock); what fired. */
export async function fireSchedules(ds: DataSource, now: Date): Promise<Fired[]> {
  const clusters = new ClusterRepo(ds);
  const events = new ClusterEventRepo(ds);
  const out: Fired[] = [];
  let afterId = 0;
  for (;;) {
    const page = await ds.getRepository(ClusterEntity).find({ where: { hibernation_schedule: Not(IsNull()), id: MoreThan(afterId) }, order: { id: 'ASC' }, take: 500 });
    if (page.length === 0) return out;
    afterId = page.at(-1)!.id;
    for (const c of page) {
      const s = c.hibernation_schedule!;
      for (const action of ACTIONS) {
        const cron = s[action];
        const spec = cron ? parseCron(cron) : undefined;
        if (!spec || typeof spec === 'string') continue;
        const since = c.schedule_fired[action];
        const due = dueMinute(spec, s.timezone, now, since ? new Date(since) : undefined);
        if (!due || !(await claim(ds, c.uuid, action, due.toISOString()))) continue;
        const fired: Fired = { cluster: c.uuid, action, minute: due.toISOString(), outcome: 'started' };
        // Already as the schedule wants it (hibernated by hand before the evening's time): nothing to say.
        if ((action === 'hibernate') === (c.hibernation === 'hibernated')) {
          out.push({ ...fired, outcome: 'skipped', reason: `already ${c.hibernation}` });
          continue;
        }
        try {
          await (action === 'hibernate' ? startHibernate : startWake)({ clusters, outbox: { db: ds } }, undefined, c, now);
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          Object.assign(fired, { outcome: 'skipped', reason: e.message });
          await events.insert({ cluster_id: c.uuid, operation_id: null, at: now, type: 'hibernation', reason: 'ScheduleSkipped', message: `The schedule's ${action} at ${due.toISOString()} (${s.timezone}: ${cron}) did not start: ${e.message}`, severity: 'warning' });
        }
        out.push(fired);
        // One action a pass: a hibernate and a wake due together would cancel each other out.
        break;
      }
    }
  }
}
