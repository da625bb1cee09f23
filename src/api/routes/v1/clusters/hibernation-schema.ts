// The hibernation schedule's wire form: cron-like times (five fields) to hibernate and to wake, in an IANA
// time zone; either time may be null (only hibernate at night, wake by hand).
import { Type, type Static } from '@sinclair/typebox';

const Cron = Type.Union([Type.String({ minLength: 9, maxLength: 100, description: 'minute hour day-of-month month day-of-week, e.g. "0 19 * * 1-5"' }), Type.Null()]);

export const HibernationSchedule = Type.Object(
  {
    hibernate: Cron,
    wake: Cron,
    timezone: Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone, e.g. Europe/Berlin.' }),
  },
  { additionalProperties: false, $id: 'HibernationSchedule' },
);
export type HibernationScheduleT = Static<typeof HibernationSchedule>;
