// The portal's one way to the API: openapi-fetch typed by openapi/types.ts (generated from
// openapi/magnum-v1.json by openapi-typescript; test/api/openapi.test.ts fails when it is stale).
// Every call names the microversion it was written for, the session's CSRF token and the project
// of the page's URL; the session cookie rides along (same origin), never a token.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../openapi/types';

export type Schemas = components['schemas'];
export type Cluster = Schemas['Cluster'];
export type ClusterSummary = Schemas['ClusterSummary'];
export type ClusterLive = Schemas['ClusterLive'];
export type ClusterTemplate = Schemas['ClusterTemplate'];
export type NodeGroup = Schemas['NodeGroup'];
export type PortalSession = Schemas['PortalSession'];
export type DryRun = Schemas['DryRun'];

/** The microversion every call is written against (node labels and taints, 1.14). */
export const API_VERSION = '1.14';

export const ctx = { csrf: '', project: '' };

/** Called when the API says the session is gone (expired or logged out elsewhere). */
export const onSessionLost: { handler: () => void } = { handler: () => undefined };

const headers: Middleware = {
  onRequest({ request }) {
    request.headers.set('OpenStack-API-Version', `container-infra ${API_VERSION}`);
    if (ctx.csrf) request.headers.set('X-CSRF-Token', ctx.csrf);
    if (ctx.project) request.headers.set('X-Portal-Project', ctx.project);
    return request;
  },
  onResponse({ response, request }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/portal/login')) onSessionLost.handler();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(headers);

/** Magnum's error envelope (or Keystone's 401) as one message. */
export function errorText(error: unknown): string {
  const e = error as { errors?: { detail?: string | null; title?: string }[]; error?: { message?: string } } | undefined;
  return e?.errors?.[0]?.detail ?? e?.errors?.[0]?.title ?? e?.error?.message ?? 'The request failed.';
}

/** The field a Magnum 400 names ("Invalid input for field/attribute X", "label X"), for inline errors. */
export function errorField(message: string): string | undefined {
  return /field\/attribute (\w+)/.exec(message)?.[1] ?? /label (\w+)/.exec(message)?.[1] ?? /attribute (?:for argument \w+: )?(\w+)/.exec(message)?.[1];
}

export class ApiFailure extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Unwraps an openapi-fetch answer: its data, or an ApiFailure with Magnum's message. */
export async function must<T>(p: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const r = await p;
  if (r.error !== undefined || !r.response.ok) throw new ApiFailure(r.response.status, errorText(r.error));
  return r.data as T;
}

/** The texts of a response's `Warning: 299 - "..."` headers (label warnings; fetch joins several with ", "). */
export function warningsOf(response: Response): string[] {
  const raw = response.headers.get('warning');
  if (!raw) return [];
  return [...raw.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
}

/** Like must(), with the answer's label warnings. */
export async function mustWarned<T>(p: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<{ data: T; warnings: string[] }> {
  const r = await p;
  if (r.error !== undefined || !r.response.ok) throw new ApiFailure(r.response.status, errorText(r.error));
  return { data: r.data as T, warnings: warningsOf(r.response) };
}

/** The session calls (not Magnum's). */
export const portal = {
  async session(project?: string): Promise<PortalSession | undefined> {
    const r = await fetch(`/portal/session${project ? `?project=${encodeURIComponent(project)}` : ''}`, { credentials: 'same-origin' });
    // A project this session may not use: the session itself, without a scope.
    if (r.status === 403 && project) return portal.session();
    return r.ok ? ((await r.json()) as PortalSession) : undefined;
  },
  async login(body: Schemas['PortalLogin']): Promise<PortalSession> {
    const form = await fetch('/portal/login', { credentials: 'same-origin' });
    const { csrf_token } = (await form.json()) as { csrf_token: string };
    const r = await fetch('/portal/login', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf_token },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new ApiFailure(r.status, r.status === 401 ? 'Keystone refused these credentials.' : errorText(await r.json().catch(() => undefined)));
    return (await r.json()) as PortalSession;
  },
  async logout(): Promise<void> {
    await fetch('/portal/logout', { method: 'POST', credentials: 'same-origin', headers: { 'x-csrf-token': ctx.csrf } });
  },
};

/** An EventSource on a /v1/streams path: EventSource sends no headers, so the CSRF token and project go in the query. */
export function stream(path: string): EventSource {
  const q = new URLSearchParams({ csrf: ctx.csrf, project: ctx.project });
  return new EventSource(`${path}?${q.toString()}`, { withCredentials: false });
}

type Listed = '/v1/clustertemplates' | '/v1/clustertemplates/detail' | '/v1/clusters' | '/v1/clusters/detail';

/**
 * Every item of a Magnum list, following its `next` links page after page (the API stops a page at
 * its max_limit, 1,000 by default): never the first page taken for the whole.
 */
export async function allPages<T>(path: Listed, key: 'clustertemplates' | 'clusters'): Promise<T[]> {
  const out: T[] = [];
  let query: Record<string, string> = {};
  for (;;) {
    const page = (await must(api.GET(path as '/v1/clusters', { params: { query } } as never))) as unknown as Record<string, unknown>;
    const items = (page[key] ?? []) as T[];
    out.push(...items);
    const next = page.next as string | undefined;
    if (!next || items.length === 0) return out;
    query = Object.fromEntries(new URL(next, location.href).searchParams);
  }
}

const UUID = /\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b/gi;

/** An API message with every UUID the page knows replaced by its name (`ClusterTemplate 'k8s-135' is referenced…`). */
export function named(message: string, names: Map<string, string>): string {
  return message.replace(UUID, (id) => {
    const n = names.get(id) ?? names.get(id.toLowerCase());
    return n === undefined ? id : `'${n}'`;
  });
}
