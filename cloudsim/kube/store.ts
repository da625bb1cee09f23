// One cluster's objects, as etcd would hold them behind the apiserver: keyed by API group,
// resource, namespace and name, with uid, creationTimestamp and generation kept across writes and
// one resourceVersion counter bumped only by writes that change something. Errors are
// Kubernetes Status objects. What goes in and out is a copy (copyOf: JSON-shaped data), except for
// the simulated controllers' own reads (peek, peekList): the stored objects themselves, frozen.
// Objects are filed by resource and by resource and namespace, so a list reads only its own kind.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { IndexedMap } from '../common/indexed-map.js';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
  [field: string]: unknown;
}

/** Any Kubernetes object, as JSON. */
export interface Obj {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Where an object lives: group ('' = core), resource (plural), namespace ('' = cluster-scoped), name. */
export interface ObjKey {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

/** A failure the API answers as a Status object. */
export class KubeStatus extends Error {
  readonly reason: string;

  constructor(
    readonly code: number,
    message: string,
    reason?: string,
    readonly details?: { name?: string; group?: string; kind?: string; causes?: { reason: string; message: string; field?: string }[] },
  ) {
    super(message);
    this.reason = reason ?? REASONS[code] ?? 'Unknown';
  }

  body(): Obj {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {} as ObjectMeta,
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** `nodes "x" not found`, Kubernetes' wording (the resource qualified by its group). */
export function notFound(k: ObjKey): KubeStatus {
  const what = k.group ? `${k.resource}.${k.group}` : k.resource;
  return new KubeStatus(404, `${what} "${k.name}" not found`, 'NotFound', { name: k.name, group: k.group, kind: k.resource });
}

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A deep copy of JSON-shaped data (what the store holds): plain objects and arrays copied member by
 * member, several times faster than structuredClone; anything else (a Date, a Buffer) is
 * structuredClone'd.
 */
export function copyOf<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyOf) as T;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    // A `__proto__` key (JSON.parse makes it an own property) stays a property.
    if (k === '__proto__') Object.defineProperty(out, k, { value: copyOf(x), enumerable: true, writable: true, configurable: true });
    else out[k] = copyOf(x);
  }
  return out as T;
}
/** Freezes JSON-shaped data to the leaves: what the store holds cannot be changed in place by a reader of peek(). */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
const keyOf = (k: ObjKey): string => `${k.group}/${k.resource}/${k.namespace}/${k.name}`;
const kindOf = (group: string, resource: string): string => `${group}/${resource}`;
const kindIn = (group: string, resource: string, namespace: string): string => `${group}/${resource}/${namespace}`;

export interface StoreSnapshot {
  rv: number;
  objects: { key: ObjKey; object: Obj }[];
}

export class ObjectStore {
  private rv = 0;
  private readonly items = new IndexedMap<{ key: ObjKey; object: Obj }, 'kind' | 'kindIn' | 'namespace'>({
    kind: (i) => kindOf(i.key.group, i.key.resource),
    kindIn: (i) => kindIn(i.key.group, i.key.resource, i.key.namespace),
    namespace: (i) => i.key.namespace,
  });

  constructor(readonly now: () => number) {}

  get resourceVersion(): string {
    return String(this.rv);
  }

  get(k: ObjKey): Obj | undefined {
    const hit = this.items.get(keyOf(k));
    return hit ? copyOf(hit.object) : undefined;
  }

  /** The uid of the object at `k` (no copy made). */
  uidOf(k: ObjKey): string | undefined {
    return this.items.get(keyOf(k))?.object.metadata.uid;
  }

  has(k: ObjKey): boolean {
    return this.items.has(keyOf(k));
  }

  /** Objects of a resource, in one namespace or (undefined) all, sorted by namespace and name. */
  list(group: string, resource: string, namespace?: string): Obj[] {
    return this.peekList(group, resource, namespace).map(copyOf);
  }

  /**
   * list() without the copies, for the simulated controllers' passes (which read every pod several times a pass):
   * the stored objects, frozen (a change in place throws), in a list readonly by type.
   */
  peekList(group: string, resource: string, namespace?: string): readonly Obj[] {
    const found = namespace === undefined ? this.items.by('kind', kindOf(group, resource)) : this.items.by('kindIn', kindIn(group, resource, namespace));
    return found.map((i) => i.object).sort((a, b) => (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || a.metadata.name.localeCompare(b.metadata.name));
  }

  /** get() without the copy: the stored object, frozen. */
  peek(k: ObjKey): Obj | undefined {
    return this.items.get(keyOf(k))?.object;
  }

  /**
   * Writes `obj` at `k` (creating it when absent), keeping uid and creationTimestamp of what was there.
   * The resourceVersion moves only when something changed; generation follows changes of `spec`.
   */
  write(k: ObjKey, obj: Obj): Obj {
    return copyOf(this.stored(k, obj));
  }

  /** write() for a controller that does not read the answer: true when something changed. */
  save(k: ObjKey, obj: Obj): boolean {
    const rv = this.rv;
    this.stored(k, obj);
    return this.rv !== rv;
  }

  /** The object now at `k` after writing `obj` there (the store's own, not a copy). */
  private stored(k: ObjKey, obj: Obj): Obj {
    const old = this.items.get(keyOf(k))?.object;
    const next = copyOf(obj);
    const meta: ObjectMeta = { ...next.metadata, name: k.name };
    if (k.namespace) meta.namespace = k.namespace;
    else delete meta.namespace;
    meta.uid = old?.metadata.uid ?? randomUUID();
    meta.creationTimestamp = old?.metadata.creationTimestamp ?? iso(this.now());
    const specChanged = !old || !isDeepStrictEqual(old.spec, next.spec);
    meta.generation = (old?.metadata.generation ?? 0) + (specChanged ? 1 : 0);
    meta.resourceVersion = old?.metadata.resourceVersion ?? '';
    next.metadata = meta;
    if (old && isDeepStrictEqual(old, next)) return old;
    meta.resourceVersion = String(++this.rv);
    this.items.set(keyOf(k), { key: { ...k }, object: deepFreeze(next) });
    return next;
  }

  /** 409 AlreadyExists when present. */
  create(k: ObjKey, obj: Obj): Obj {
    if (this.has(k)) {
      const what = k.group ? `${k.resource}.${k.group}` : k.resource;
      throw new KubeStatus(409, `${what} "${k.name}" already exists`, 'AlreadyExists', { name: k.name, group: k.group, kind: k.resource });
    }
    return this.write(k, obj);
  }

  delete(k: ObjKey): Obj | undefined {
    const hit = this.items.get(keyOf(k));
    if (!hit) return undefined;
    this.items.delete(keyOf(k));
    this.rv++;
    return copyOf(hit.object);
  }

  /** Every object of a namespace (any resource), for a namespace delete. */
  keysIn(namespace: string): ObjKey[] {
    return this.items.by('namespace', namespace).map((i) => ({ ...i.key }));
  }

  snapshot(): StoreSnapshot {
    return structuredClone({ rv: this.rv, objects: [...this.items.values()] });
  }

  restore(s: StoreSnapshot): void {
    this.items.clear();
    this.rv = s.rv;
    for (const i of structuredClone(s.objects)) this.items.set(keyOf(i.key), { key: i.key, object: deepFreeze(i.object) });
  }
}
