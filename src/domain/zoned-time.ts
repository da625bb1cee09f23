// Wall-clock time in an IANA time zone, from the runtime's Intl data (daylight saving included): whether a zone
// exists, the wall clock of an instant in it, and the instant of a wall-clock time (a time that does not exist,
// in the hour skipped in spring, moves forward by the gap; one that exists twice, in autumn, is the first).
// Pure: the clock is the caller's. The hibernation schedule and the maintenance windows read time through it.

/** Whether `zone` is an IANA time zone this runtime knows. */
export function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.trim() !== '';
  } catch {
    return false;
  }
}

export interface WallClock {
  year: number;
  /** 1-12 */
  month: number;
  /** Day of the month, 1-31. */
  day: number;
  hour: number;
  minute: number;
  /** Day of the week, 0 (Sunday) to 6. */
  dow: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The wall clock of `at` in `zone`. */
export function wallClock(at: Date, zone: string): WallClock {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', weekday: 'short' });
    formatters.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  return { year: Number(p.year), month: Number(p.month), day: Number(p.day), hour: Number(p.hour), minute: Number(p.minute), dow: WEEKDAYS.indexOf(p.weekday ?? '') };
}

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

/** The zone's offset from UTC at `t` (epoch ms), in ms, to the minute. */
function offsetAt(t: number, zone: string): number {
  const w = wallClock(new Date(t), zone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute) - Math.floor(t / MINUTE) * MINUTE;
}

/**
 * The instant at which the wall clock in `zone` reads `year-month-day hour:minute` (the day may overflow the
 * month: Date.UTC's arithmetic). In a gap (spring forward) the time moves forward by the gap; a time that
 * exists twice (autumn) is its first instant.
 */
export function zonedInstant(year: number, month: number, day: number, hour: number, minute: number, zone: string): Date {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  // Offsets change at most once around a day: the one before and the one after cover every case.
  const before = offsetAt(wall - DAY, zone);
  const after = offsetAt(wall + DAY, zone);
  const hits = [...new Set([before, after])].map((o) => wall - o).filter((t) => offsetAt(t, zone) === wall - t);
  if (hits.length > 0) return new Date(Math.min(...hits));
  return new Date(wall - before);
}
