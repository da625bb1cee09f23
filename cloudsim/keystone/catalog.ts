// The service catalog: services, their endpoints in one region, and the token rendering of it.
import { newId } from './secrets.js';

export type Interface = 'public' | 'internal' | 'admin';

export interface CatalogEntry {
  type: string;
  name: string;
  url: string;
  interfaces?: Interface[];
}

export interface Endpoint {
  id: string;
  serviceId: string;
  interface: Interface;
  url: string;
}

export interface Service {
  id: string;
  type: string;
  name: string;
  endpoints: Endpoint[];
}

export interface TokenCatalogService {
  id: string;
  type: string;
  name: string;
  endpoints: { id: string; interface: Interface; region: string; region_id: string; url: string }[];
}

const PROJECT_PLACEHOLDERS = /%\((?:tenant_id|project_id)\)s|\$\((?:tenant_id|project_id)\)s/g;
const USER_PLACEHOLDERS = /%\(user_id\)s|\$\(user_id\)s/g;

export class Catalog {
  readonly services: Service[] = [];

  constructor(readonly region: string) {}

  /** Add a service, or replace the endpoints of the service with the same type and name. */
  upsert(entry: CatalogEntry): Service {
    const interfaces = entry.interfaces ?? ['public', 'internal'];
    let service = this.services.find((s) => s.type === entry.type && s.name === entry.name);
    if (!service) {
      service = { id: newId(), type: entry.type, name: entry.name, endpoints: [] };
      this.services.push(service);
    }
    const previous = service.endpoints;
    const serviceId = service.id;
    service.endpoints = interfaces.map((iface) => ({
      id: previous.find((e) => e.interface === iface)?.id ?? newId(),
      serviceId,
      interface: iface,
      url: entry.url,
    }));
    return service;
  }

  remove(type: string, name?: string): void {
    for (let i = this.services.length - 1; i >= 0; i--) {
      const s = this.services[i];
      if (s && s.type === type && (name === undefined || s.name === name)) this.services.splice(i, 1);
    }
  }

  allEndpoints(): Endpoint[] {
    return this.services.flatMap((s) => s.endpoints);
  }

  /**
   * The catalog as it appears in a token. Project placeholders in URLs are substituted; endpoints that need a
   * project are dropped when the token is not project-scoped. Services left without endpoints are omitted.
   */
  forToken(ctx: { projectId?: string; userId: string }): TokenCatalogService[] {
    const out: TokenCatalogService[] = [];
    for (const service of this.services) {
      const endpoints: TokenCatalogService['endpoints'] = [];
      for (const ep of service.endpoints) {
        const needsProject = ep.url.search(PROJECT_PLACEHOLDERS) >= 0;
        if (needsProject && ctx.projectId === undefined) continue;
        const url = ep.url
          .replace(PROJECT_PLACEHOLDERS, ctx.projectId ?? '')
          .replace(USER_PLACEHOLDERS, ctx.userId);
        endpoints.push({ id: ep.id, interface: ep.interface, region: this.region, region_id: this.region, url });
      }
      if (endpoints.length > 0) out.push({ id: service.id, type: service.type, name: service.name, endpoints });
    }
    return out;
  }
}
