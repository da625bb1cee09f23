// The cloud-wide audit: every live resource of every simulated service, grouped by owning
// project, with its tags (what a test checks to prove a cluster delete leaked nothing), and the
// per-operation call counters of every service ('nova POST /servers').
import type { AuditResource, Auditable, CallCounter } from './common/audit.js';

export interface AuditedResource extends AuditResource {
  /** The service holding it: keystone, glance, nova, neutron, octavia, cinder, designate. */
  service: string;
}

export interface ProjectResources {
  project_id: string;
  /** The Keystone project's name; null for '' (service-owned) or unknown ids. */
  project_name: string | null;
  resources: AuditedResource[];
}

export interface CloudAudit {
  projects: ProjectResources[];
}

/** A service's state, which may not list its resources (yet). */
export type MaybeAuditable = Partial<Auditable> | object;

function resourcesOf(state: MaybeAuditable): AuditResource[] {
  const list = (state as Partial<Auditable>).auditResources;
  return typeof list === 'function' ? list.call(state) : [];
}

/**
 * Every resource of `states`, grouped by project (sorted by project id, then service, type, id).
 * `projectId` keeps one project only.
 */
export function auditCloud(
  states: Record<string, MaybeAuditable>,
  projectName: (id: string) => string | undefined,
  projectId?: string,
): CloudAudit {
  const byProject = new Map<string, AuditedResource[]>();
  for (const [service, state] of Object.entries(states)) {
    for (const r of resourcesOf(state)) {
      if (projectId !== undefined && r.project_id !== projectId) continue;
      const list = byProject.get(r.project_id) ?? [];
      list.push({ service, ...r });
      byProject.set(r.project_id, list);
    }
  }
  const order = (a: AuditedResource, b: AuditedResource) =>
    a.service.localeCompare(b.service) || a.type.localeCompare(b.type) || a.id.localeCompare(b.id);
  const projects = [...byProject.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, resources]) => ({ project_id: id, project_name: id === '' ? null : (projectName(id) ?? null), resources: resources.sort(order) }));
  return { projects };
}

/** The calls of every service, keyed `<service> <METHOD> <route>`, sorted. */
export function callsOf(counters: Record<string, CallCounter>): Record<string, number> {
  const out: [string, number][] = [];
  for (const [service, counter] of Object.entries(counters)) {
    for (const [operation, n] of Object.entries(counter.all())) out.push([`${service} ${operation}`, n]);
  }
  return Object.fromEntries(out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
