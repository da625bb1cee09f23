// Cached reads of templates for the GET paths: rows by (scope, id or name) and serialized list
// pages. Writes never read through here; every write invalidates (see ClusterTemplateRepo).
import type { ClusterTemplateRow } from './entities/cluster-template.js';
import type { ClusterTemplateRepo, Visibility } from './repos/cluster-templates.js';
import type { Keyset } from './repos/keyset.js';
import { ReadCache } from './read-cache.js';

export type Found = ClusterTemplateRow | 'ambiguous' | null;

export class TemplateCache {
  readonly rows: ReadCache<Found>;
  readonly lists: ReadCache<string>;

  constructor(usable: () => boolean, opts: { maxRows: number; maxListBytes: number }) {
    this.rows = new ReadCache<Found>(opts.maxRows, () => 1, usable);
    this.lists = new ReadCache<string>(opts.maxListBytes, (s) => s.length, usable);
  }

  invalidate(): void {
    this.rows.invalidate();
    this.lists.invalidate();
  }

  static scopeKey(vis: Visibility): string {
    return vis.all ? 'all' : `p:${vis.projectId ?? ''}:${vis.hiddenPublic ? 'h' : ''}`;
  }

  async find(repo: ClusterTemplateRepo, ident: string, vis: Visibility): Promise<Found> {
    const key = `${TemplateCache.scopeKey(vis)}|${ident}`;
    const hit = this.rows.get(key);
    if (hit !== undefined) return hit;
    const gen = this.rows.generation;
    const found = await repo.find(ident, vis);
    this.rows.set(key, found, gen);
    return found;
  }

  /** A serialized page, made by `render` from the rows on a miss; 'bad-marker' is never cached. */
  async listPage(
    key: string,
    load: () => Promise<ClusterTemplateRow[] | 'bad-marker'>,
    render: (rows: ClusterTemplateRow[]) => string,
  ): Promise<string | 'bad-marker'> {
    const hit = this.lists.get(key);
    if (hit !== undefined) return hit;
    const gen = this.lists.generation;
    const rows = await load();
    if (rows === 'bad-marker') return rows;
    const body = render(rows);
    this.lists.set(key, body, gen);
    return body;
  }

  static pageKey(parts: { flavor: string; detail: boolean; vis: Visibility; host: string; page: Keyset & { marker?: string } }): string {
    const p = parts.page;
    return [parts.flavor, parts.detail ? 'd' : 'l', TemplateCache.scopeKey(parts.vis), parts.host, p.limit, p.marker ?? '', p.sortKey, p.sortDir].join('|');
  }
}
