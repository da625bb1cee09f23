// The wall clock in an IANA time zone (src/domain/zoned-time.ts): an instant's fields there, and the instant of a
// wall-clock time, daylight saving's gap and repeated hour included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validTimeZone, wallClock, zonedInstant } from '../../src/domain/zoned-time.js';

const iso = (d: Date | undefined) => d?.toISOString();
const at = (s: string) => new Date(s);

test('wall clock and its instant in a zone: a skipped time moves forward by the gap, a repeated one is its first instant', () => {
  assert.deepEqual(wallClock(at('2026-11-27T18:00:00Z'), 'Europe/Berlin'), { year: 2026, month: 11, day: 27, hour: 19, minute: 0, dow: 5 });
  assert.equal(iso(zonedInstant(2026, 11, 27, 19, 0, 'Europe/Berlin')), '2026-11-27T18:00:00.000Z');
  assert.equal(iso(zonedInstant(2026, 7, 1, 9, 0, 'Europe/Berlin')), '2026-07-01T07:00:00.000Z', 'CEST');
  assert.equal(iso(zonedInstant(2026, 3, 29, 2, 30, 'Europe/Berlin')), '2026-03-29T01:30:00.000Z', '02:30 does not exist: 03:30 CEST');
  assert.equal(iso(zonedInstant(2026, 10, 25, 2, 30, 'Europe/Berlin')), '2026-10-25T00:30:00.000Z', 'the first 02:30 (CEST)');
  assert.equal(iso(zonedInstant(2026, 11, 32, 0, 0, 'UTC')), '2026-12-02T00:00:00.000Z', 'the day overflows into the next month');
  assert.equal(iso(zonedInstant(2026, 11, 29, 23, 30, 'America/New_York')), '2026-11-30T04:30:00.000Z');
});

test('zones: IANA names only', () => {
  for (const zone of ['UTC', 'Europe/Berlin', 'America/New_York']) assert.equal(validTimeZone(zone), true, zone);
  for (const zone of ['Mars/Olympus', '', ' ', 'Europe/Berlin; DROP']) assert.equal(validTimeZone(zone), false, zone);
});
