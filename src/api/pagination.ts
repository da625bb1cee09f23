// Magnum's list parameters (spec §2.1) and `next` link (spec §2.2).
import { errors } from '../domain/errors.js';
import type { ListQueryT } from './schemas/common.js';

export const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

export interface Page {
  limit: number;
  marker: string | undefined;
  sortKey: string;
  sortDir: 'asc' | 'desc';
}

export function parsePage(q: ListQueryT, maxLimit: number, sortable: ReadonlySet<string>): Page {
  let limit = maxLimit;
  if (q.limit !== undefined) {
    if (q.limit <= 0) throw errors.limitNotPositive();
    limit = Math.min(q.limit, maxLimit);
  }
  if (q.marker !== undefined && !UUID_RE.test(q.marker)) {
    throw errors.invalidInput('marker', q.marker, 'Expected a uuid but received ' + q.marker + '.');
  }
  const sortKey = q.sort_key ?? 'id';
  if (!sortable.has(sortKey)) throw errors.invalidSortKey(sortKey);
  const dir = q.sort_dir ?? 'asc';
  if (dir !== 'asc' && dir !== 'desc') throw errors.invalidSortDir(dir);
  return { limit, marker: q.marker, sortKey, sortDir: dir };
}

/** The absolute `next` URL, present only when the page came back full. */
export function nextLink(hostUrl: string, path: string, page: Pick<Page, 'limit' | 'sortKey' | 'sortDir'>, count: number, lastMarker: string | undefined) {
  if (count === 0 || count !== page.limit || lastMarker === undefined) return {};
  const qs = `sort_key=${encodeURIComponent(page.sortKey)}&sort_dir=${page.sortDir}&limit=${page.limit}&marker=${lastMarker}`;
  return { next: `${hostUrl}/v1/${path}?${qs}` };
}

/** A page whose marker is an integer id (quotas, spec §2.1). */
export interface IdPage extends Omit<Page, 'marker'> {
  marker: number | undefined;
}

/** parsePage for collections paged by integer id; the schema has already made the marker an integer. */
export function parseIdPage(q: Omit<ListQueryT, 'marker'> & { marker?: number }, maxLimit: number, sortable: ReadonlySet<string>): IdPage {
  const { marker, ...rest } = q;
  return { ...parsePage(rest, maxLimit, sortable), marker };
}
