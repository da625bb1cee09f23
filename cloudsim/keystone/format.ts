// Time formatting and parsing in Keystone's conventions.

/** ISO-8601 UTC with microseconds and `Z`, e.g. `2026-08-22T10:00:00.000000Z`. */
export function isoMicro(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Parse an ISO time; a time without zone is UTC, as Keystone reads it. Returns undefined when invalid. */
export function parseIsoTime(value: string): number | undefined {
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value);
  const ms = Date.parse(hasZone ? value : `${value}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Keystone's bool_from_string for query flags such as `allow_expired`. */
export function queryFlag(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return ['1', 't', 'true', 'on', 'y', 'yes'].includes(value.trim().toLowerCase());
}
