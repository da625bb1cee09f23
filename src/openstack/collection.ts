// One REST collection in the style Neutron and Octavia share (spec §3, §4.4): create with
// POST {<singular>: {...}} (201), show and update by id, delete (204), list with exact-match
// filters following `<plural>_links` next to the end. Types come from the generated OpenAPI types.
import { isNotFound } from './errors.js';
import { requestJson, toSearchParams, type Query, type Session } from './http.js';
import { collectPages } from './paging.js';

export interface CollectionSpec {
  /** Path of the collection below the session's base URL, e.g. '/v2.0/ports'. */
  path: string;
  /** Body keys, e.g. 'port' and 'ports'. */
  singular: string;
  plural: string;
  /** Metrics name of the resource, e.g. 'ports'. */
  name: string;
}

interface Link {
  rel: string;
  href: string;
}

export class Collection<T, Create, Filters extends object = Record<string, never>, Update = Partial<Create>> {
  constructor(
    private readonly session: Session,
    private readonly spec: CollectionSpec,
  ) {}

  /** POST: not repeated after an ambiguous failure; look the resource up by name or tag instead. */
  async create(body: Create): Promise<T> {
    const { singular, path, name } = this.spec;
    const res = await requestJson<Record<string, T>>(this.session, { method: 'POST', path, body: { [singular]: body }, operation: `${name}.create` });
    return res.body[singular]!;
  }

  async get(id: string): Promise<T> {
    const res = await requestJson<Record<string, T>>(this.session, { path: this.item(id), operation: `${this.spec.name}.get` });
    return res.body[this.spec.singular]!;
  }

  /** The item, or undefined when the service says it is gone (404); any other failure (a 5xx, no answer) throws. */
  async find(id: string): Promise<T | undefined> {
    try {
      return await this.get(id);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Every item matching the filters, through all pages. */
  async list(filters?: Filters): Promise<T[]> {
    const { plural, path, name } = this.spec;
    const first = toSearchParams(filters as Query | undefined);
    return collectPages(this.session.service, first, async (query) => {
      const { body } = await requestJson<Record<string, unknown>>(this.session, { path, query, operation: `${name}.list` });
      const links = body[`${plural}_links`] as Link[] | undefined;
      return { items: (body[plural] as T[] | undefined) ?? [], next: links?.find((l) => l.rel === 'next')?.href };
    });
  }

  async update(id: string, body: Update): Promise<T> {
    const { singular, name } = this.spec;
    const res = await requestJson<Record<string, T>>(this.session, { method: 'PUT', path: this.item(id), body: { [singular]: body }, operation: `${name}.update` });
    return res.body[singular]!;
  }

  /** DELETE; false when it was already gone (404), so a repeated delete is a success. */
  delete(id: string, query?: Query): Promise<boolean> {
    return deleted(() => requestJson(this.session, { method: 'DELETE', path: this.item(id), ...(query ? { query } : {}), operation: `${this.spec.name}.delete` }));
  }

  private item(id: string): string {
    return `${this.spec.path}/${encodeURIComponent(id)}`;
  }
}

/** The base URL's own version suffix, or the one to add (catalog URLs may be bare or versioned). */
export function versionPrefix(baseUrl: string, version: string): string {
  return new RegExp(`/${version.replace('.', '\\.')}/?$`).test(baseUrl) ? '' : `/${version}`;
}

/** Runs `fn`, answering false for 404 (already gone) and true otherwise. */
export async function deleted(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
