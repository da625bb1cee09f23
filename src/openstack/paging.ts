// Following a list's pages to the end (spec openstack-apis §7.1), whatever link style the
// service uses: Glance's relative `next`, Nova's and Neutron's absolute `*_links`.
import { OpenStackError } from './http.js';

/** The query of a pagination link (absolute or relative), to replay on our own endpoint. */
export function linkQuery(href: string): URLSearchParams {
  return new URL(href, 'http://link.invalid').searchParams;
}

/** One page of a list and the link to the next one (absolute or relative), if any. */
export interface Page<T> {
  items: T[];
  next: string | undefined;
}

const MAX_PAGES = 1000;

/**
 * Every item of a paginated list: follows `next` until it is absent (spec §7.1: a full last page
 * links to an empty one). A link's query is replayed on our own endpoint, so a service that
 * advertises an internal host name in its links is still reached through the catalog URL.
 */
export async function collectPages<T>(service: string, first: URLSearchParams, fetchPage: (query: URLSearchParams) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let query = first;
  const seen = new Set<string>();
  for (let n = 0; n < MAX_PAGES; n++) {
    const page = await fetchPage(query);
    items.push(...page.items);
    if (page.next === undefined) return items;
    query = linkQuery(page.next);
    const key = query.toString();
    if (seen.has(key) || page.items.length === 0) return items;
    seen.add(key);
  }
  throw new OpenStackError(service, 0, undefined, undefined, 'unexpected', `${service}: more than ${MAX_PAGES} pages`);
}
