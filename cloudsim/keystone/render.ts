// JSON representations of identity entities, as Keystone's v3 API returns them.
import type { AppCred } from './appcreds.js';
import type { Catalog, Endpoint, Service } from './catalog.js';
import type { Urls } from './context.js';
import { isoMicro } from './format.js';
import type { Domain, Project, Role, User } from './state.js';

/** Keystone's list envelope: `{<key>: [...], links: {self, previous: null, next: null}}`. */
export function list<T>(urls: Urls, path: string, key: string, items: T[]): Record<string, unknown> {
  return { [key]: items, links: { self: urls.link(path), previous: null, next: null } };
}

export function renderDomain(urls: Urls, d: Domain): Record<string, unknown> {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    enabled: d.enabled,
    tags: [],
    options: {},
    links: { self: urls.link(`/domains/${d.id}`) },
  };
}

export function renderProject(urls: Urls, p: Project): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    domain_id: p.domainId,
    description: p.description,
    enabled: p.enabled,
    parent_id: p.domainId,
    is_domain: false,
    tags: p.tags,
    options: {},
    links: { self: urls.link(`/projects/${p.id}`) },
  };
}

export function renderUser(urls: Urls, u: User): Record<string, unknown> {
  return {
    ...u.extra,
    id: u.id,
    name: u.name,
    domain_id: u.domainId,
    enabled: u.enabled,
    password_expires_at: null,
    options: {},
    ...(u.defaultProjectId !== undefined ? { default_project_id: u.defaultProjectId } : {}),
    ...(u.description !== undefined ? { description: u.description } : {}),
    links: { self: urls.link(`/users/${u.id}`) },
  };
}

/** keystone-manage bootstrap makes these roles immutable (Zed's Keystone shows `options: {immutable: true}`). */
const IMMUTABLE_ROLES = new Set(['admin', 'member', 'reader']);

export function renderRole(urls: Urls, r: Role): Record<string, unknown> {
  return {
    id: r.id,
    name: r.name,
    domain_id: null,
    description: r.description,
    options: IMMUTABLE_ROLES.has(r.name) ? { immutable: true } : {},
    links: { self: urls.link(`/roles/${r.id}`) },
  };
}

/**
 * An application credential as Zed's Keystone shows it: its owner, `system: null`, the roles as asked (each with
 * its description and options), access rules only when it has some, its link at /v3/application_credentials/{id}.
 * The secret is added by the create route only.
 */
export function renderAppCred(urls: Urls, c: AppCred, roles: Map<string, Role>): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    user_id: c.userId,
    project_id: c.projectId,
    system: null,
    expires_at: c.expiresAt === null ? null : isoMicro(c.expiresAt),
    unrestricted: c.unrestricted,
    roles: (c.askedRoleIds ?? c.roleIds).map((id) => {
      const r = roles.get(id);
      return { id, name: r?.name ?? id, domain_id: null, description: r?.description ?? null, options: IMMUTABLE_ROLES.has(r?.name ?? '') ? { immutable: true } : {} };
    }),
    ...(c.accessRules.length > 0 ? { access_rules: c.accessRules } : {}),
    links: { self: urls.link(`/application_credentials/${c.id}`) },
  };
}

export function renderService(urls: Urls, s: Service): Record<string, unknown> {
  return { id: s.id, type: s.type, name: s.name, enabled: true, description: '', links: { self: urls.link(`/services/${s.id}`) } };
}

export function renderEndpoint(urls: Urls, catalog: Catalog, e: Endpoint): Record<string, unknown> {
  return {
    id: e.id,
    interface: e.interface,
    region: catalog.region,
    region_id: catalog.region,
    service_id: e.serviceId,
    url: e.url,
    enabled: true,
    links: { self: urls.link(`/endpoints/${e.id}`) },
  };
}

export function renderRegion(urls: Urls, id: string): Record<string, unknown> {
  return { id, description: '', parent_region_id: null, links: { self: urls.link(`/regions/${id}`) } };
}
