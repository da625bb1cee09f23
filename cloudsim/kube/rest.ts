// The Kubernetes REST API of one simulated cluster, transport aside: health and version, then
// x509-authenticated, system:masters-authorised CRUD on any group/version/resource (namespaced
// or not by the shape of the URL), list selectors, merge and server-side apply patches, graceful
// deletion (termination.ts), and the Eviction subresource of pods checked against their
// PodDisruptionBudgets (disruption.ts). Errors are Status objects; every write that changes something is followed by `changed()`.
import { parse as parseYaml } from 'yaml';
import { admitWithStore } from './admission.js';
import { evictionRefusal } from './disruption.js';
import { fieldSelectorMatches, parseLabelSelector, selectorMatches } from './selectors.js';
import { KubeStatus, notFound, type Obj, type ObjKey, type ObjectStore } from './store.js';
import { deleteGracefully, finishDeletion, gracePeriod, keepDeletion } from './termination.js';

export interface KubeUser {
  name: string;
  groups: string[];
}

export interface ApiRequest {
  method: string;
  /** Path and query. */
  url: string;
  contentType: string | undefined;
  body: string;
  /** Undefined: no client certificate the cluster trusts. */
  user: KubeUser | undefined;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
  contentType?: string;
}

/** What the REST layer needs from its cluster. */
export interface ClusterApi {
  store: ObjectStore;
  now(): number;
  version(): Record<string, string>;
  /** After a write that changed something: the controllers catch up (nodes, pods, workload status). */
  changed(what: { group: string; resource: string }): void;
}

const SYSTEM_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);
/** Kinds of resources whose lists are asked for before any object exists. */
const KINDS: Record<string, string> = {
  nodes: 'Node', pods: 'Pod', namespaces: 'Namespace', secrets: 'Secret', configmaps: 'ConfigMap', services: 'Service',
  serviceaccounts: 'ServiceAccount', daemonsets: 'DaemonSet', deployments: 'Deployment', statefulsets: 'StatefulSet', events: 'Event',
};

interface Target {
  group: string;
  version: string;
  resource: string;
  namespace: string | undefined;
  name: string | undefined;
  sub: string | undefined;
}

function targetOf(path: string): Target | 'discovery' | undefined {
  const m = /^\/api\/(v1)(\/.*)?$/.exec(path) ?? /^\/apis\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
  if (!m) return undefined;
  const [group, version, rest] = m.length === 4 ? [m[1]!, m[2]!, m[3]] : ['', m[1]!, m[2]];
  const segs = (rest ?? '').split('/').filter(Boolean).map(decodeURIComponent);
  if (segs.length === 0) return 'discovery';
  if (segs[0] === 'namespaces' && segs.length >= 3) return { group, version, resource: segs[2]!, namespace: segs[1], name: segs[3], sub: segs[4] };
  return { group, version, resource: segs[0]!, namespace: undefined, name: segs[1], sub: segs[2] };
}

const gv = (t: Target) => (t.group ? `${t.group}/${t.version}` : t.version);
const keyOf = (t: Target, name: string): ObjKey => ({ group: t.group, resource: t.resource, namespace: t.namespace ?? '', name });
const success = (t: Target, name: string, code = 200, uid?: string) => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: t.group, kind: t.resource, ...(uid ? { uid } : {}) }, code,
});

function body(req: ApiRequest, yaml = false): Obj {
  let o: unknown;
  try {
    o = yaml ? parseYaml(req.body) : JSON.parse(req.body);
  } catch (e) {
    throw new KubeStatus(400, `the body of the request was in an unknown format: ${(e as Error).message}`);
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new KubeStatus(400, 'the body of the request must be an object');
  return o as Obj;
}

/** RFC 7386 JSON merge patch (the strategic merge patch too, for the maps and scalars it is used for here). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue;
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** What the apiserver does to an object on every write: stringData folded into data for Secrets. */
function admit(t: Target, o: Obj): Obj {
  if (t.group === '' && t.resource === 'secrets' && o.stringData && typeof o.stringData === 'object') {
    const data = { ...(o.data as Record<string, string> | undefined) };
    for (const [k, v] of Object.entries(o.stringData as Record<string, string>)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    o = { ...o, data };
    delete o.stringData;
  }
  if (t.group === '' && t.resource === 'namespaces') o = { ...o, spec: { finalizers: ['kubernetes'], ...(o.spec as object) }, status: { phase: 'Active' } };
  return o;
}

export class RestApi {
  /** The resource the request wrote, if any. */
  private written: { group: string; resource: string } | undefined;

  constructor(private readonly api: ClusterApi) {}

  handle(req: ApiRequest): ApiAnswer {
    try {
      const before = this.api.store.resourceVersion;
      const answer = this.route(req);
      const t = this.written;
      this.written = undefined;
      if (t && this.api.store.resourceVersion !== before) this.api.changed(t);
      return answer;
    } catch (e) {
      this.written = undefined;
      const s = e instanceof KubeStatus ? e : new KubeStatus(500, `Internal error occurred: ${(e as Error).message}`);
      return { status: s.code, body: s.body() };
    }
  }

  private route(req: ApiRequest): ApiAnswer {
    const u = new URL(req.url, 'https://apiserver');
    const path = u.pathname.replace(/\/+$/, '') || '/';
    const health = /^\/(readyz|livez|healthz)(\/.*)?$/.exec(path);
    if (health && req.method === 'GET') return { status: 200, body: 'ok', contentType: 'text/plain; charset=utf-8' };
    if (path === '/version' && req.method === 'GET') return { status: 200, body: this.api.version() };
    if (!req.user) throw new KubeStatus(401, 'Unauthorized');
    if (path === '/api') return { status: 200, body: { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] } };
    if (path === '/apis') return { status: 200, body: { kind: 'APIGroupList', apiVersion: 'v1', groups: [] } };
    const t = targetOf(path);
    if (!t) throw new KubeStatus(404, 'the server could not find the requested resource');
    if (t === 'discovery') return { status: 200, body: { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: path.replace(/^\/apis?\//, ''), resources: [] } };
    this.authorize(req, req.user, t);
    const q = u.searchParams;
    switch (req.method) {
      case 'GET':
        return t.name === undefined ? this.list(t, q) : { status: 200, body: this.get(t) };
      case 'POST':
        if (t.name !== undefined && t.resource === 'pods' && t.sub === 'eviction') return this.evict(t, req);
        if (t.name !== undefined) throw new KubeStatus(405, 'the server does not allow this method on the requested resource');
        return this.create(t, body(req, /yaml/.test(req.contentType ?? '')));
      case 'PUT':
        return this.replace(t, body(req, /yaml/.test(req.contentType ?? '')));
      case 'PATCH':
        return this.patch(t, req, q);
      case 'DELETE':
        return this.remove(t, req, q);
      default:
        throw new KubeStatus(405, 'the server does not allow this method on the requested resource');
    }
  }

  private authorize(req: ApiRequest, user: KubeUser, t: Target): void {
    if (user.groups.includes('system:masters')) return;
    const verb = { GET: t.name === undefined ? 'list' : 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[req.method] ?? req.method.toLowerCase();
    const res = t.sub ? `${t.resource}/${t.sub}` : t.resource;
    const where = t.namespace ? `in the namespace "${t.namespace}"` : 'at the cluster scope';
    throw new KubeStatus(403, `${res}${t.name ? ` "${t.name}"` : ''} is forbidden: User "${user.name}" cannot ${verb} resource "${res}" in API group "${t.group}" ${where}`, 'Forbidden', {
      ...(t.name ? { name: t.name } : {}), group: t.group, kind: t.resource,
    });
  }

  private get(t: Target): Obj {
    if (t.sub !== undefined && t.sub !== 'status') throw new KubeStatus(404, 'the server could not find the requested resource');
    const o = this.api.store.get(keyOf(t, t.name!));
    if (!o) throw notFound(keyOf(t, t.name!));
    return o;
  }

  private list(t: Target, q: URLSearchParams): ApiAnswer {
    if (q.get('watch') === 'true' || q.get('watch') === '1') throw new KubeStatus(405, 'watch is not supported by the simulated apiserver');
    const labels = parseLabelSelector(q.get('labelSelector') ?? '');
    const fields = q.get('fieldSelector') ?? '';
    const items = this.api.store.list(t.group, t.resource, t.namespace).filter((o) => selectorMatches(o.metadata.labels, labels) && fieldSelectorMatches(o, fields));
    const kind = items[0]?.kind ?? KINDS[t.resource] ?? `${t.resource[0]!.toUpperCase()}${t.resource.slice(1).replace(/ies$/, 'y').replace(/s$/, '')}`;
    return { status: 200, body: { apiVersion: gv(t), kind: `${kind}List`, metadata: { resourceVersion: this.api.store.resourceVersion }, items } };
  }

  /** A namespaced write needs its namespace (409/404 as the apiserver's admission answers). */
  private namespaceExists(t: Target): void {
    if (t.namespace === undefined) return;
    if (!this.api.store.has({ group: '', resource: 'namespaces', namespace: '', name: t.namespace })) {
      throw new KubeStatus(404, `namespaces "${t.namespace}" not found`, 'NotFound', { name: t.namespace, kind: 'namespaces' });
    }
  }

  private checked(t: Target, o: Obj, name: string | undefined): Obj {
    if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') throw new KubeStatus(400, 'Object \'Kind\' is missing in the request body');
    const meta = { ...(o.metadata ?? {}) } as Obj['metadata'];
    if (!meta.name && typeof meta.generateName === 'string' && name === undefined) {
      meta.name = `${meta.generateName}${Math.random().toString(36).slice(2, 7)}`;
    }
    if (!meta.name) throw new KubeStatus(422, `${o.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, 'Invalid');
    if (name !== undefined && meta.name !== name) throw new KubeStatus(400, `the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    if (t.namespace !== undefined && meta.namespace !== undefined && meta.namespace !== t.namespace) {
      throw new KubeStatus(400, 'the namespace of the provided object does not match the namespace sent on the request');
    }
    return admit(t, { ...o, metadata: meta });
  }

  private create(t: Target, o: Obj): ApiAnswer {
    const obj = admitWithStore(this.api.store, t, this.checked(t, o, undefined), undefined);
    this.namespaceExists(t);
    const created = this.api.store.create(keyOf(t, obj.metadata.name), obj);
    this.written = t;
    return { status: 201, body: this.api.store.get(keyOf(t, obj.metadata.name)) ?? created };
  }

  private replace(t: Target, o: Obj): ApiAnswer {
    const key = keyOf(t, t.name!);
    const old = this.api.store.get(key);
    if (!old) throw notFound(key);
    const rv = (o.metadata as Obj['metadata'] | undefined)?.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion) {
      throw new KubeStatus(409, `Operation cannot be fulfilled on ${t.resource} "${t.name}": the object has been modified; please apply your changes to the latest version and try again`, 'Conflict');
    }
    const next = t.sub === 'status' ? { ...old, status: o.status } : { ...admitWithStore(this.api.store, t, this.checked(t, o, t.name), old), ...(old.status !== undefined ? { status: old.status } : {}) };
    this.api.store.write(key, keepDeletion(old, next));
    this.written = t;
    const answer = this.api.store.get(key);
    finishDeletion(this.api.store, key);
    return { status: 200, body: answer };
  }

  private patch(t: Target, req: ApiRequest, q: URLSearchParams): ApiAnswer {
    const key = keyOf(t, t.name ?? '');
    if (t.name === undefined) throw new KubeStatus(405, 'the server does not allow this method on the requested resource');
    const type = (req.contentType ?? '').split(';')[0]!.trim();
    const old = this.api.store.get(key);
    if (type === 'application/apply-patch+yaml') {
      if (!q.get('fieldManager')) throw new KubeStatus(422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', 'Invalid');
      const applied = admitWithStore(this.api.store, t, this.checked(t, body(req, true), t.name), old);
      if (!old) this.namespaceExists(t);
      this.api.store.write(key, keepDeletion(old, old?.status !== undefined ? { ...applied, status: old.status } : applied));
      this.written = t;
      const answer = this.api.store.get(key);
      finishDeletion(this.api.store, key);
      return { status: old ? 200 : 201, body: answer };
    }
    if (type !== 'application/merge-patch+json' && type !== 'application/strategic-merge-patch+json') {
      throw new KubeStatus(415, `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
    }
    if (!old) throw notFound(key);
    const p = body(req);
    const merged = mergePatch(old, t.sub === 'status' ? { status: p.status } : p) as Obj;
    merged.metadata = { ...merged.metadata, name: old.metadata.name, ...(old.metadata.namespace ? { namespace: old.metadata.namespace } : {}) };
    this.api.store.write(key, keepDeletion(old, t.sub === 'status' ? admit(t, merged) : admitWithStore(this.api.store, t, admit(t, merged), old)));
    this.written = t;
    const answer = this.api.store.get(key);
    finishDeletion(this.api.store, key);
    return { status: 200, body: answer };
  }

  private remove(t: Target, req: ApiRequest, q: URLSearchParams): ApiAnswer {
    if (t.name === undefined) throw new KubeStatus(405, 'deleting a collection is not supported by the simulated apiserver');
    const key = keyOf(t, t.name);
    if (t.group === '' && t.resource === 'namespaces' && SYSTEM_NAMESPACES.has(t.name)) {
      throw new KubeStatus(403, `namespaces "${t.name}" is forbidden: this namespace may not be deleted`, 'Forbidden', { name: t.name, kind: 'namespaces' });
    }
    if (t.group === '' && t.resource === 'namespaces') {
      const gone = this.api.store.delete(key);
      if (!gone) throw notFound(key);
      for (const k of this.api.store.keysIn(t.name)) this.api.store.delete(k);
      this.written = t;
      return { status: 200, body: success(t, t.name, 200, gone.metadata.uid) };
    }
    const before = this.api.store.get(key);
    if (!before) throw notFound(key);
    const left = deleteGracefully(this.api.store, key, this.api.now(), gracePeriod(q, req.body ? body(req) : undefined));
    this.written = t;
    // Still there (terminating, or held by finalizers): the apiserver answers with the object.
    const still = this.api.store.get(key);
    return still ? { status: 200, body: still } : { status: 200, body: success(t, t.name, 200, (left ?? before).metadata.uid) };
  }

  /** The Eviction API: the pod goes gracefully unless a PodDisruptionBudget forbids it (429). */
  private evict(t: Target, req: ApiRequest): ApiAnswer {
    const key = { ...keyOf(t, t.name!), resource: 'pods' };
    const pod = this.api.store.get(key);
    if (!pod) throw notFound(key);
    const refusal = evictionRefusal(this.api.store, pod);
    if (refusal) throw refusal;
    const options = (req.body ? body(req) : {}) as { deleteOptions?: { gracePeriodSeconds?: number } };
    deleteGracefully(this.api.store, key, this.api.now(), options.deleteOptions?.gracePeriodSeconds);
    this.written = { group: '', resource: 'pods' };
    return { status: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
  }
}
