// A cluster's weekly maintenance window (an extension, issue 28): a day of the week, a wall-clock start and a
// duration in an IANA time zone. The window opens at that wall-clock time in the zone (daylight saving
// included: a start in the hour skipped in spring opens at the end of the gap, one in the hour repeated in
// autumn at its first instant) and lasts `duration_minutes` of elapsed time, across midnight and the week's end
// when it is long. Pure: the clock is the caller's.
import { validTimeZone, wallClock, zonedInstant } from './zoned-time.js';

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const DURATION = { min: 30, max: 1440 } as const;

export interface WeeklyWindow {
  day: Weekday;
  /** "HH:MM", 24-hour wall-clock time in `timezone`. */
  start: string;
  duration_minutes: number;
  timezone: string;
}

/** One opening of the window: [start, end). */
export interface WindowSpan {
  start: Date;
  end: Date;
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Each field that is wrong, as [field, value, reason] (empty: the window is good). */
export function windowProblems(w: WeeklyWindow): [string, unknown, string][] {
  const out: [string, unknown, string][] = [];
  if (!(WEEKDAYS as readonly string[]).includes(w.day)) out.push(['window.day', w.day, `Not a day of the week (${[...WEEKDAYS.slice(1), WEEKDAYS[0]].join(', ')}).`]);
  if (!HHMM.test(w.start)) out.push(['window.start', w.start, 'Not a time of day HH:MM (00:00 to 23:59).']);
  if (!Number.isInteger(w.duration_minutes) || w.duration_minutes < DURATION.min || w.duration_minutes > DURATION.max) {
    out.push(['window.duration_minutes', w.duration_minutes, `A window lasts ${DURATION.min} to ${DURATION.max} minutes.`]);
  }
  if (!validTimeZone(w.timezone)) out.push(['window.timezone', w.timezone, 'Not an IANA time zone (e.g. Europe/Berlin).']);
  return out;
}

/** The opening of the window `weeks` weeks after the one in the week of `at` (its zone's calendar, any weekday). */
function openingNear(w: WeeklyWindow, at: Date, weeks: number): WindowSpan {
  const [hh, mm] = w.start.split(':').map(Number) as [number, number];
  const today = wallClock(at, w.timezone);
  // Days back from today (in the zone) to the window's weekday: 0..6.
  const back = (today.dow - WEEKDAYS.indexOf(w.day) + 7) % 7;
  const start = zonedInstant(today.year, today.month, today.day - back + 7 * weeks, hh, mm, w.timezone);
  return { start, end: new Date(start.getTime() + w.duration_minutes * 60_000) };
}

export interface WindowState {
  /** The opening `now` is in, if any. */
  open: WindowSpan | undefined;
  /** The next opening that starts after `now`. */
  next: WindowSpan;
  /** The latest opening that has ended by `now`. */
  previous: WindowSpan;
}

/** Where `now` stands: in an opening or not, the next one, the last one that ended. */
export function windowState(w: WeeklyWindow, now: Date): WindowState {
  // This week's opening and its neighbours hold every answer (a window lasts at most a day).
  const spans = [-2, -1, 0, 1, 2].map((k) => openingNear(w, now, k));
  const t = now.getTime();
  const open = spans.find((s) => s.start.getTime() <= t && t < s.end.getTime());
  const next = spans.find((s) => s.start.getTime() > t)!;
  const previous = spans.filter((s) => s.end.getTime() <= t).at(-1)!;
  return { open, next, previous };
}

export const spanOf = (s: WindowSpan): { start: string; end: string } => ({ start: s.start.toISOString(), end: s.end.toISOString() });
