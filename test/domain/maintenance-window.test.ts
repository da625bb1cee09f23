// The weekly maintenance window (src/domain/maintenance-window.ts): its openings in its zone across daylight
// saving (a start in the skipped hour opens at the gap's end, one in the repeated hour at its first instant), a
// window spanning midnight, a window whose day wraps into the next week; each wrong field named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { windowProblems, windowState, type WeeklyWindow } from '../../src/domain/maintenance-window.js';

const iso = (d: Date | undefined) => d?.toISOString();
const at = (s: string) => new Date(s);
const w = (over: Partial<WeeklyWindow>): WeeklyWindow => ({ day: 'monday', start: '09:00', duration_minutes: 60, timezone: 'Europe/Berlin', ...over });

test('the next window across the change to summer time keeps its wall-clock start', () => {
  const s = windowState(w({}), at('2026-03-24T12:00:00Z'));
  assert.equal(s.open, undefined);
  assert.deepEqual([iso(s.previous.start), iso(s.previous.end)], ['2026-03-23T08:00:00.000Z', '2026-03-23T09:00:00.000Z'], '09:00 CET');
  assert.deepEqual([iso(s.next.start), iso(s.next.end)], ['2026-03-30T07:00:00.000Z', '2026-03-30T08:00:00.000Z'], '09:00 CEST');
  // a window that starts in the skipped hour opens at its end; one in the repeated hour at its first instant
  assert.equal(iso(windowState(w({ day: 'sunday', start: '02:30' }), at('2026-03-28T12:00:00Z')).next.start), '2026-03-29T01:30:00.000Z');
  const autumn = windowState(w({ day: 'sunday', start: '02:30', duration_minutes: 90 }), at('2026-10-25T01:10:00Z'));
  assert.deepEqual([iso(autumn.open?.start), iso(autumn.open?.end)], ['2026-10-25T00:30:00.000Z', '2026-10-25T02:00:00.000Z'], 'elapsed minutes across the repeated hour');
  assert.equal(iso(autumn.next.start), '2026-11-01T01:30:00.000Z', 'the next Sunday 02:30 CET');
});

test('a window spanning midnight is open after it, on the next day; it closes at its end', () => {
  const late = w({ start: '23:00', duration_minutes: 120, timezone: 'UTC' });
  const tuesday = windowState(late, at('2026-12-01T00:30:00Z'));
  assert.deepEqual([iso(tuesday.open?.start), iso(tuesday.open?.end)], ['2026-11-30T23:00:00.000Z', '2026-12-01T01:00:00.000Z']);
  assert.equal(iso(tuesday.next.start), '2026-12-07T23:00:00.000Z');
  const closed = windowState(late, at('2026-12-01T01:00:00Z'));
  assert.equal(closed.open, undefined, 'the end is not in the window');
  assert.equal(iso(closed.previous.start), '2026-11-30T23:00:00.000Z');
  assert.equal(iso(windowState(late, at('2026-11-30T22:59:00Z')).next.start), '2026-11-30T23:00:00.000Z', 'the same day, before it opens');
});

test('the day wraps: Sunday late in New York is open on Monday, and Saturday waits for the next day', () => {
  const sunday = w({ day: 'sunday', start: '23:30', duration_minutes: 180, timezone: 'America/New_York' });
  const monday = windowState(sunday, at('2026-11-30T06:00:00Z'));
  assert.deepEqual([iso(monday.open?.start), iso(monday.open?.end)], ['2026-11-30T04:30:00.000Z', '2026-11-30T07:30:00.000Z']);
  assert.equal(iso(windowState(sunday, at('2026-11-28T12:00:00Z')).next.start), '2026-11-30T04:30:00.000Z', 'Saturday: tomorrow night');
  const full = windowState(w({ day: 'friday', start: '00:00', duration_minutes: 1440, timezone: 'UTC' }), at('2026-11-27T23:59:00Z'));
  assert.equal(iso(full.open?.start), '2026-11-27T00:00:00.000Z', 'a whole day');
  assert.equal(iso(full.next.start), '2026-12-04T00:00:00.000Z');
});

test('each wrong field is named with its reason', () => {
  assert.deepEqual(windowProblems(w({})), []);
  const bad = windowProblems({ day: 'funday' as WeeklyWindow['day'], start: '24:00', duration_minutes: 29, timezone: 'Mars/Olympus' });
  assert.deepEqual(bad.map(([field]) => field), ['window.day', 'window.start', 'window.duration_minutes', 'window.timezone']);
  assert.match(bad[0]![2], /^Not a day of the week \(monday, tuesday, .*, sunday\)\.$/);
  assert.equal(bad[1]![2], 'Not a time of day HH:MM (00:00 to 23:59).');
  assert.equal(bad[3]![2], 'Not an IANA time zone (e.g. Europe/Berlin).');
  for (const start of ['9:00', '12:60', '12:00:00', 'noon']) assert.equal(windowProblems(w({ start })).length, 1, start);
  assert.equal(windowProblems(w({ duration_minutes: 1441 })).length, 1);
});
