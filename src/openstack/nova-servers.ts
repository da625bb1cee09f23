// Nova servers and their tags (spec openstack-apis §2.2–§2.6), at NOVA_MICROVERSION: create
// (202, a minimal body: poll get() for BUILD → ACTIVE/ERROR), show, list in detail by exact name
// or tags, delete, tags. Tags belong in the create body: Nova refuses tag changes (409) while the
// server builds or is in ERROR. Shelve and unshelve put a server to sleep off its host and back.
import type { components, operations } from '../../openapi/openstack/nova.js';
import { deleted } from './collection.js';
import { requestJson, toSearchParams, type Session } from './http.js';
import { computeSession, NOVA_MICROVERSION } from './nova.js';
import { collectPages } from './paging.js';

type S = components['schemas'];

export type Server = S['Server'];
export type ServerCreate = S['ServerCreate'];
export type BlockDeviceMapping = S['BlockDeviceMapping'];
export type ServerCreated = S['ServerCreated'];
export type SchedulerHints = S['SchedulerHints'];

export interface ServerFilters {
  /** Exact name: sent anchored and escaped (Nova matches an unanchored regex), checked again here. */
  name?: string;
  /** Servers having all of these tags. */
  tags?: string[];
  /** Servers having any of these tags. */
  tagsAny?: string[];
  status?: string;
  /** Page size asked of Nova (its max_limit, 1000, otherwise). */
  limit?: number;
}

/** A Nova `name` filter matching exactly `name` (POSIX and MySQL regex metacharacters escaped). */
export function exactNameRegex(name: string): string {
  return `^${name.replace(/[.^$*+?()[\]{}|\\]/g, '\\$&')}$`;
}

export class NovaServersClient {
  private readonly session: Session;

  constructor(session: Session, microversion: string = NOVA_MICROVERSION) {
    this.session = computeSession(session, microversion);
  }

  /**
   * POST /servers → 202 {id, links}. Not repeated after an ambiguous failure: a lost answer may
   * still have booted the server, so look it up by name or tag before creating again (spec §7.5).
   */
  async create(server: ServerCreate, hints?: SchedulerHints): Promise<ServerCreated> {
    const body: S['ServerCreateRequest'] = { server, ...(hints ? { 'os:scheduler_hints': hints } : {}) };
    const res = await requestJson<{ server: ServerCreated }>(this.session, { method: 'POST', path: '/servers', body, operation: 'servers.create' });
    return res.body.server;
  }

  /** GET /servers/{id}: status, fault (in ERROR), addresses once networking is done. */
  async get(id: string): Promise<Server> {
    const res = await requestJson<{ server: Server }>(this.session, { path: `/servers/${encodeURIComponent(id)}`, operation: 'servers.get' });
    return res.body.server;
  }

  /** GET /servers/detail with filters, following `servers_links` next through every page. */
  async list(filters: ServerFilters = {}): Promise<Server[]> {
    type Query = NonNullable<operations['listServersDetail']['parameters']['query']>;
    const query: Query = {
      ...(filters.name !== undefined ? { name: exactNameRegex(filters.name) } : {}),
      ...(filters.tags?.length ? { tags: filters.tags.join(',') } : {}),
      ...(filters.tagsAny?.length ? { 'tags-any': filters.tagsAny.join(',') } : {}),
      ...(filters.status !== undefined ? { status: filters.status } : {}),
      ...(filters.limit !== undefined ? { limit: filters.limit } : {}),
    };
    const servers = await collectPages(this.session.service, toSearchParams(query), async (q) => {
      const { body } = await requestJson<{ servers: Server[]; servers_links?: S['Link'][] }>(this.session, { path: '/servers/detail', query: q, operation: 'servers.list' });
      return { items: body.servers, next: body.servers_links?.find((l) => l.rel === 'next')?.href };
    });
    return filters.name === undefined ? servers : servers.filter((s) => s.name === filters.name);
  }

  /** The last `lines` lines of the server's console log (os-getConsoleOutput; 409 while it builds). */
  async consoleOutput(id: string, lines: number): Promise<string> {
    const body: S['ServerActionRequest'] = { 'os-getConsoleOutput': { length: lines } };
    const res = await requestJson<{ output: string }>(this.session, { method: 'POST', path: `/servers/${encodeURIComponent(id)}/action`, body, operation: 'servers.consoleOutput' });
    return res.body.output;
  }

  /**
   * Action shelve (202): the server goes SHELVED, then SHELVED_OFFLOADED off its host (shelved_offload_time 0),
   * keeping its ports and volumes; 409 when its state or a running task does not allow it.
   */
  async shelve(id: string): Promise<void> {
    const body: S['ServerActionRequest'] = { shelve: null };
    await requestJson(this.session, { method: 'POST', path: `/servers/${encodeURIComponent(id)}/action`, body, operation: 'servers.shelve' });
  }

  /** Action unshelve (202): scheduled again, ACTIVE with the same ports and volumes; 409 unless SHELVED(_OFFLOADED). */
  async unshelve(id: string): Promise<void> {
    const body: S['ServerActionRequest'] = { unshelve: null };
    await requestJson(this.session, { method: 'POST', path: `/servers/${encodeURIComponent(id)}/action`, body, operation: 'servers.unshelve' });
  }

  /** DELETE /servers/{id} (204, asynchronous: get() answers 404 once gone); false when already gone. */
  delete(id: string): Promise<boolean> {
    return deleted(() => requestJson(this.session, { method: 'DELETE', path: `/servers/${encodeURIComponent(id)}`, operation: 'servers.delete' }));
  }

  async listTags(id: string): Promise<string[]> {
    const res = await requestJson<S['Tags']>(this.session, { path: this.tagsPath(id), operation: 'servers.tags.list' });
    return res.body.tags;
  }

  /** PUT /servers/{id}/tags: replaces all tags (409 unless active, paused, suspended or stopped). */
  async replaceTags(id: string, tags: string[]): Promise<string[]> {
    const body: S['Tags'] = { tags };
    const res = await requestJson<S['Tags']>(this.session, { method: 'PUT', path: this.tagsPath(id), body, operation: 'servers.tags.replace' });
    return res.body.tags;
  }

  /** PUT /servers/{id}/tags/{tag}: 201 added, 204 already there. */
  async addTag(id: string, tag: string): Promise<void> {
    await requestJson(this.session, { method: 'PUT', path: `${this.tagsPath(id)}/${encodeURIComponent(tag)}`, operation: 'servers.tags.add' });
  }

  /** DELETE /servers/{id}/tags/{tag}; false when the tag was not there. */
  deleteTag(id: string, tag: string): Promise<boolean> {
    return deleted(() => requestJson(this.session, { method: 'DELETE', path: `${this.tagsPath(id)}/${encodeURIComponent(tag)}`, operation: 'servers.tags.delete' }));
  }

  private tagsPath(id: string): string {
    return `/servers/${encodeURIComponent(id)}/tags`;
  }
}
