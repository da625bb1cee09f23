// The hibernation schedule's times: five cron fields (minute hour day-of-month month day-of-week; `*`, numbers,
// ranges `a-b`, lists `a,b` and steps `*/n` or `a-b/n`; day-of-week 0-7, 0 and 7 Sunday), read in an IANA time
// zone, as cron reads them (when both day fields are restricted, either matching is enough). Pure: the clock is
// the caller's; the zone's wall clock is zoned-time.ts's.
import { wallClock } from './zoned-time.js';

export interface CronSpec {
  minute: Set<number>;
  hour: Set<number>;
  dom: Set<number>;
  month: Set<number>;
  dow: Set<number>;
  domAny: boolean;
  dowAny: boolean;
}

const FIELDS = [
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['day of month', 1, 31],
  ['month', 1, 12],
  ['day of week', 0, 7],
] as const;

/** The cron expression read, or the reason it is not one (a sentence for the 400). */
export function parseCron(text: string): CronSpec | string {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5) return `"${text}" has ${parts.length} field(s); a schedule has five: minute hour day-of-month month day-of-week.`;
  const sets: Set<number>[] = [];
  for (const [i, part] of parts.entries()) {
    const [name, lo, hi] = FIELDS[i]!;
    const set = new Set<number>();
    for (const item of part.split(',')) {
      const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
      if (!m) return `"${item}" is not a valid ${name} (numbers, ranges a-b, lists a,b, steps */n).`;
      const from = m[1] === '*' ? lo : Number(m[2]);
      const to = m[1] === '*' ? hi : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? hi : from;
      const step = m[4] !== undefined ? Number(m[4]) : 1;
      if (from < lo || to > hi || from > to || step < 1) return `"${item}" is out of range for the ${name} (${lo}-${hi}).`;
      for (let v = from; v <= to; v += step) set.add(i === 4 && v === 7 ? 0 : v);
    }
    sets.push(set);
  }
  return { minute: sets[0]!, hour: sets[1]!, dom: sets[2]!, month: sets[3]!, dow: sets[4]!, domAny: parts[2] === '*', dowAny: parts[4] === '*' };
}

/** Whether the minute of `at` is one of the schedule's, in `zone`. */
export function cronMatches(spec: CronSpec, at: Date, zone: string): boolean {
  const l = wallClock(at, zone);
  if (!spec.minute.has(l.minute) || !spec.hour.has(l.hour) || !spec.month.has(l.month)) return false;
  const dom = spec.dom.has(l.day);
  const dow = spec.dow.has(l.dow);
  if (spec.domAny || spec.dowAny) return (spec.domAny || dom) && (spec.dowAny || dow);
  return dom || dow;
}

const MINUTE = 60_000;
export const floorMinute = (at: Date): Date => new Date(Math.floor(at.getTime() / MINUTE) * MINUTE);

/** The first minute after `after` the schedule names, within `horizonDays` (undefined: none that soon). */
export function nextRun(spec: CronSpec, zone: string, after: Date, horizonDays = 8): Date | undefined {
  const start = floorMinute(after).getTime() + MINUTE;
  for (let t = start; t < start + horizonDays * 1440 * MINUTE; t += MINUTE) if (cronMatches(spec, new Date(t), zone)) return new Date(t);
  return undefined;
}

/**
 * The latest minute in (`since`, `now`] the schedule names, looking back at most `catchUpMinutes` (a worker down
 * for a moment still fires what it missed, not what is long past); undefined when none.
 */
export function dueMinute(spec: CronSpec, zone: string, now: Date, since: Date | undefined, catchUpMinutes = 10): Date | undefined {
  const end = floorMinute(now).getTime();
  const floor = Math.max(end - catchUpMinutes * MINUTE, since ? floorMinute(since).getTime() + MINUTE : -Infinity);
  for (let t = end; t >= floor; t -= MINUTE) if (cronMatches(spec, new Date(t), zone)) return new Date(t);
  return undefined;
}
