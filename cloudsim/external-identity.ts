// The identity side of the simulated cloud when it stands beside a real Keystone: project ids come from
// GET /v3/projects and the services are registered in that Keystone's catalog (public and internal
// endpoints in one region), all with the services' own user, which needs the admin role.
import type { CloudIdentity } from './cloud.js';
import { passwordAuthBody, type ServiceCredentials } from './common/keystone-auth.js';

export interface ExternalIdentityOptions {
  /** Keystone v3 URL, ending in /v3. */
  authUrl: string;
  credentials: ServiceCredentials;
  /** Default 'RegionOne'. */
  region?: string;
  /** Per call to Keystone; default 10 s. */
  timeoutMs?: number;
}

const INTERFACES = ['public', 'internal'] as const;
/** How often an unknown project id may trigger a fresh project list. */
const REFRESH_MIN_INTERVAL_MS = 10_000;

interface Endpoint {
  id: string;
  service_id: string;
  interface: string;
  region_id?: string | null;
  url: string;
}

export class ExternalIdentityError extends Error {}

export function externalIdentity(opts: ExternalIdentityOptions): CloudIdentity {
  const authUrl = opts.authUrl.replace(/\/+$/, '');
  const region = opts.region ?? 'RegionOne';
  const names = new Map<string, string>();
  let token: Promise<string> | undefined;
  let lastRefresh = 0;

  const login = async (): Promise<string> => {
    const res = await send('POST', '/auth/tokens?nocatalog', {}, passwordAuthBody(opts.credentials));
    await res.body?.cancel();
    const value = res.headers.get('x-subject-token');
    if (res.status !== 201 || !value) throw new ExternalIdentityError(`service login refused (HTTP ${res.status})`);
    return value;
  };

  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${authUrl}${path}`, {
      method,
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });

  /** One admin call; a 401 means our token lapsed: log in again once. */
  const call = async (method: string, path: string, ok: number, body?: unknown): Promise<any> => {
    for (let attempt = 0; ; attempt++) {
      token ??= login().catch((e: unknown) => {
        token = undefined;
        throw e;
      });
      const res = await send(method, path, { 'x-auth-token': await token }, body);
      if (res.status === 401 && attempt === 0) {
        await res.body?.cancel();
        token = undefined;
        continue;
      }
      const text = await res.text();
      if (res.status !== ok) throw new ExternalIdentityError(`Keystone ${method} ${path} answered HTTP ${res.status}: ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : undefined;
    }
  };

  const projects = async (): Promise<Record<string, string>> => {
    const list = (await call('GET', '/projects?domain_id=default', 200)).projects as { id: string; name: string }[];
    lastRefresh = Date.now();
    for (const p of list) names.set(p.id, p.name);
    return Object.fromEntries(list.map((p) => [p.name, p.id]));
  };

  return {
    projects,
    projectName(id) {
      const name = names.get(id);
      // Projects created since the last look: ask again in the background (the audit is synchronous).
      if (name === undefined && Date.now() - lastRefresh > REFRESH_MIN_INTERVAL_MS) {
        lastRefresh = Date.now();
        projects().catch(() => undefined);
      }
      return name;
    },
    async registerEndpoint(type, name, url) {
      const services = (await call('GET', `/services?type=${encodeURIComponent(type)}`, 200)).services as { id: string; name?: string }[];
      const service =
        services.find((s) => s.name === name) ?? (await call('POST', '/services', 201, { service: { type, name, enabled: true } })).service;
      // Endpoints of this service type elsewhere (an older port, the real service) give way to ours.
      const endpoints = (await call('GET', '/endpoints', 200)).endpoints as Endpoint[];
      const ofType = new Set([...services.map((s) => s.id), service.id as string]);
      for (const iface of INTERFACES) {
        const here = endpoints.filter((e) => ofType.has(e.service_id) && e.interface === iface && (e.region_id ?? region) === region);
        for (const e of here) if (e.url !== url || e.service_id !== service.id) await call('DELETE', `/endpoints/${e.id}`, 204);
        if (!here.some((e) => e.url === url && e.service_id === service.id)) {
          await call('POST', '/endpoints', 201, { endpoint: { service_id: service.id, interface: iface, region_id: region, url, enabled: true } });
        }
      }
    },
  };
}
