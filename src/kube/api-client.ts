// The worker's thin, typed client of a cluster's Kubernetes API: HTTPS with the cluster CA(s) and
// a client certificate, the server's identity checked against the host of `server` even when
// `connect` routes the TCP connection elsewhere (the simulator's listeners), Status errors as
// KubeError. Covers what the worker needs: health, version, nodes (cordon, delete), pods on a node
// and their eviction, and server-side apply / get / list / delete of any object.
// The server is the tenant's: an answer is bounded in size (maxResponseBytes, refused on its
// Content-Length or as it streams) and in time (timeoutMs for the whole call, idleTimeoutMs between
// two packets), so an endless body or a slow drip cannot hold a worker's memory or slot.
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import type { K8sObject } from '../bootstrap/addons/framework.js';

/** Where a TCP connection to host:port really goes; undefined = unreachable. */
export type Connect = (host: string, port: number) => Promise<{ host: string; port: number } | undefined>;

export interface KubeEndpoint {
  /** `https://<api address>:6443`. */
  server: string;
  /** PEM CA certificates the server's certificate may chain to (during a CA rotation: old and new). */
  caCerts: string[];
  clientCert: string;
  clientKey: string;
  /** Routes the connection (the simulator); direct when absent. */
  connect?: Connect;
  /** Limits of one call; KUBE_LIMITS when absent. */
  limits?: Partial<KubeLimits>;
}

export interface KubeLimits {
  /** The whole call, from routing to the last byte. */
  timeoutMs: number;
  /** Silence on the connection (connecting, or between two packets of the answer). */
  idleTimeoutMs: number;
  /** Largest answer body accepted. */
  maxResponseBytes: number;
}

export const KUBE_LIMITS: KubeLimits = { timeoutMs: 30_000, idleTimeoutMs: 10_000, maxResponseBytes: 64 * 1024 * 1024 };

/** Status codes of an answer worth asking again for later (the server is busy, restarting or behind a failing proxy). */
const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/**
 * A failed call: the HTTP status (0 = no complete answer) and the Status reason (NotFound, Forbidden, ...;
 * Unreachable, Timeout, ResponseTooLarge).
 */
export class KubeError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    /** The Status' causes (an eviction's DisruptionBudget, a validation's fields). */
    readonly causes: { reason?: string; message?: string; field?: string }[] = [],
  ) {
    super(message);
    this.name = 'KubeError';
  }

  /**
   * Worth trying again later: no answer (unreachable, timed out) or a busy or failing server. Not: an
   * answer too large (the same request gets the same answer), and the API's refusals (4xx).
   */
  get retryable(): boolean {
    if (this.reason === 'ResponseTooLarge') return false;
    return this.status === 0 || RETRYABLE_STATUS.has(this.status);
  }
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  /** Set when a graceful deletion (or finalizers) keeps the object a while. */
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | string;
}

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface KubeNode {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { providerID?: string; unschedulable?: boolean; taints?: Taint[] };
  status?: {
    conditions?: NodeCondition[];
    addresses?: { type: string; address: string }[];
    nodeInfo?: { kubeletVersion: string; [field: string]: string };
    allocatable?: Record<string, string>;
  };
}

export interface KubePod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { nodeName?: string; containers?: { resources?: { requests?: Record<string, string> } }[]; [field: string]: unknown };
  status?: { phase?: string; conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[] };
}

export interface KubeVersion {
  major: string;
  minor: string;
  gitVersion: string;
  [field: string]: string;
}

/** Kinds whose objects live outside namespaces. */
const CLUSTER_SCOPED = new Set([
  'Namespace', 'Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'APIService',
  'StorageClass', 'CSIDriver', 'CSINode', 'VolumeAttachment', 'PriorityClass', 'IngressClass', 'RuntimeClass', 'VolumeSnapshotClass',
  'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding',
  'CertificateSigningRequest', 'Installation', 'APIServer', 'TigeraStatus', 'ImageSet', 'IPPool', 'FelixConfiguration', 'BGPConfiguration',
]);

/** Plural resource names that the lowercase-plural rule gets wrong or that are worth spelling out. */
const RESOURCES: Record<string, string> = {
  Endpoints: 'endpoints', Ingress: 'ingresses', IngressClass: 'ingressclasses', NetworkPolicy: 'networkpolicies', PriorityClass: 'priorityclasses',
  StorageClass: 'storageclasses', TigeraStatus: 'tigerastatuses', VolumeSnapshotClass: 'volumesnapshotclasses', IPPool: 'ippools',
};

/** The resource (plural, lowercase) of a kind. */
export function resourceOf(kind: string): string {
  const known = RESOURCES[kind];
  if (known) return known;
  const k = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

export const isClusterScoped = (kind: string): boolean => CLUSTER_SCOPED.has(kind);

/** The REST path of a kind's collection, or of one object when `name` is given. */
export function resourcePath(apiVersion: string, kind: string, namespace?: string, name?: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const ns = isClusterScoped(kind) ? undefined : namespace;
  const e = encodeURIComponent;
  return `${base}${ns ? `/namespaces/${e(ns)}` : ''}/${resourceOf(kind)}${name !== undefined ? `/${e(name)}` : ''}`;
}

/** Ready=True. */
export function nodeReady(n: KubeNode): boolean {
  return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

interface Answer {
  status: number;
  text: string;
}

export class KubeClient {
  private readonly host: string;
  private readonly port: number;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8, maxCachedSessions: 0 });
  private readonly limits: KubeLimits;

  constructor(private readonly ep: KubeEndpoint) {
    this.limits = { ...KUBE_LIMITS, ...ep.limits };
    const u = new URL(ep.server);
    this.host = u.hostname.replace(/^\[|\]$/g, '');
    this.port = u.port ? Number(u.port) : 443;
  }

  /** True when /readyz answers `ok`; false when unreachable or not ready (never throws). */
  async readyz(): Promise<boolean> {
    try {
      const r = await this.send('GET', '/readyz');
      return r.status === 200 && r.text.trim() === 'ok';
    } catch {
      return false;
    }
  }

  version(): Promise<KubeVersion> {
    return this.json<KubeVersion>('GET', '/version');
  }

  async listNodes(): Promise<KubeNode[]> {
    return (await this.json<{ items: KubeNode[] }>('GET', '/api/v1/nodes')).items;
  }

  getNode(name: string): Promise<KubeNode | undefined> {
    return this.orMissing(this.json<KubeNode>('GET', `/api/v1/nodes/${encodeURIComponent(name)}`));
  }

  /** spec.unschedulable = true. */
  async cordon(name: string, unschedulable = true): Promise<void> {
    await this.json('PATCH', `/api/v1/nodes/${encodeURIComponent(name)}`, { spec: { unschedulable } }, 'application/strategic-merge-patch+json');
  }

  /** A JSON merge patch of one object; undefined when it is gone. */
  mergePatch<T extends K8sObject = K8sObject>(apiVersion: string, kind: string, namespace: string | undefined, name: string, patch: Record<string, unknown>): Promise<T | undefined> {
    return this.orMissing(this.json<T>('PATCH', resourcePath(apiVersion, kind, namespace, name), patch, 'application/merge-patch+json'));
  }

  /** False when the Node was already gone. */
  async deleteNode(name: string): Promise<boolean> {
    return this.delete('v1', 'Node', undefined, name);
  }

  /** Every pod of the cluster (all namespaces). */
  async listPods(): Promise<KubePod[]> {
    return (await this.json<{ items: KubePod[] }>('GET', '/api/v1/pods')).items;
  }

  /** Every pod bound to the node (all namespaces). */
  async podsOn(node: string): Promise<KubePod[]> {
    const q = new URLSearchParams({ fieldSelector: `spec.nodeName=${node}` });
    return (await this.json<{ items: KubePod[] }>('GET', `/api/v1/pods?${q}`)).items;
  }

  /** The Eviction API (a pod already gone is fine; a disruption budget's 429 is a KubeError to retry). */
  async evict(namespace: string, name: string): Promise<void> {
    const path = `${resourcePath('v1', 'Pod', namespace, name)}/eviction`;
    await this.orMissing(this.json('POST', path, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } }));
  }

  /** Server-side apply (create or update, forced), the path from apiVersion, kind and namespace. */
  apply(obj: K8sObject, fieldManager = 'magnum'): Promise<K8sObject> {
    const q = new URLSearchParams({ fieldManager, force: 'true' });
    const path = `${resourcePath(obj.apiVersion, obj.kind, obj.metadata.namespace ?? (isClusterScoped(obj.kind) ? undefined : 'default'), obj.metadata.name)}?${q}`;
    return this.json<K8sObject>('PATCH', path, obj, 'application/apply-patch+yaml');
  }

  get<T extends K8sObject = K8sObject>(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<T | undefined> {
    return this.orMissing(this.json<T>('GET', resourcePath(apiVersion, kind, namespace, name)));
  }

  /** Objects of a kind in one namespace (all when undefined), optionally by label selector. */
  async list<T extends K8sObject = K8sObject>(apiVersion: string, kind: string, namespace?: string, labelSelector?: string): Promise<T[]> {
    const q = labelSelector ? `?${new URLSearchParams({ labelSelector })}` : '';
    return (await this.json<{ items: T[] }>('GET', `${resourcePath(apiVersion, kind, namespace)}${q}`)).items;
  }

  /** False when it was already gone. */
  async delete(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<boolean> {
    return (await this.orMissing(this.json('DELETE', resourcePath(apiVersion, kind, namespace, name)).then(() => true))) ?? false;
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private async orMissing<T>(p: Promise<T>): Promise<T | undefined> {
    try {
      return await p;
    } catch (e) {
      if (e instanceof KubeError && e.status === 404) return undefined;
      throw e;
    }
  }

  private async json<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const r = await this.send(method, path, body === undefined ? undefined : JSON.stringify(body), contentType);
    let parsed: unknown;
    try {
      parsed = r.text ? JSON.parse(r.text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (r.status >= 400) {
      const s = parsed as { kind?: string; reason?: string; message?: string; details?: { causes?: KubeError['causes'] } } | undefined;
      throw new KubeError(r.status, s?.kind === 'Status' && s.reason ? s.reason : `HTTP${r.status}`, `${method} ${path}: ${s?.message ?? (r.text.slice(0, 200) || `HTTP ${r.status}`)}`, s?.details?.causes ?? []);
    }
    return parsed as T;
  }

  private async send(method: string, path: string, body?: string, contentType?: string): Promise<Answer> {
    const { timeoutMs, idleTimeoutMs, maxResponseBytes } = this.limits;
    const what = `${method} ${path}`;
    const deadline = Date.now() + timeoutMs;
    const late = () => new KubeError(0, 'Timeout', `${what}: no complete answer within ${timeoutMs} ms`);
    let target: { host: string; port: number } | undefined;
    try {
      target = await withDeadline(this.ep.connect ? this.ep.connect(this.host, this.port) : Promise.resolve({ host: this.host, port: this.port }), deadline, late);
    } catch (e) {
      if (e instanceof KubeError) throw e;
      throw new KubeError(0, 'Unreachable', `${what}: routing to ${this.ep.server} failed: ${(e as Error).message}`);
    }
    if (!target) throw new KubeError(0, 'Unreachable', `${what}: ${this.ep.server} is not reachable`);
    return new Promise<Answer>((settle, fail) => {
      let timer: NodeJS.Timeout | undefined;
      const resolve = (a: Answer) => {
        clearTimeout(timer);
        settle(a);
      };
      const reject = (e: KubeError) => {
        clearTimeout(timer);
        fail(e);
      };
      const req = request(
        {
          host: target.host,
          port: target.port,
          method,
          path,
          agent: this.agent,
          ca: this.ep.caCerts,
          cert: this.ep.clientCert,
          key: this.ep.clientKey,
          // SNI carries DNS names only; the identity is checked against the API address either way
          ...(isIP(this.host) ? {} : { servername: this.host }),
          checkServerIdentity: (_host, cert) => checkServerIdentity(this.host, cert),
          headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } : {}) },
          timeout: idleTimeoutMs,
        },
        (res) => {
          const tooLarge = (size: string) => new KubeError(res.statusCode ?? 0, 'ResponseTooLarge', `${what}: the answer (${size}) exceeds ${maxResponseBytes} bytes`);
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > maxResponseBytes) {
            req.destroy(tooLarge(`${declared} bytes`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > maxResponseBytes) {
              chunks.length = 0;
              req.destroy(tooLarge(`more than ${maxResponseBytes} bytes so far`));
              return;
            }
            chunks.push(c);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (e) => reject(e instanceof KubeError ? e : new KubeError(0, 'Unreachable', `${what}: ${e.message}`)));
        },
      );
      timer = setTimeout(() => req.destroy(late()), Math.max(0, deadline - Date.now()));
      req.on('timeout', () => req.destroy(new KubeError(0, 'Timeout', `${what}: nothing received for ${idleTimeoutMs} ms`)));
      req.on('error', (e) => reject(e instanceof KubeError ? e : new KubeError(0, 'Unreachable', `${what}: ${e.message}`)));
      req.end(body);
    });
  }
}

/** `p`, or `late()` thrown once `deadline` (epoch ms) passes first. */
async function withDeadline<T>(p: Promise<T>, deadline: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([p, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Routes connections through the simulator's admin API: `getJson` calls a path relative to its
 * catalog URL (…/v1), here `/kube/endpoints?address=&port=`; a 404 means nothing answers there.
 * Answers are kept briefly (unreachable ones are not kept).
 */
export function cloudsimConnect(getJson: (path: string) => Promise<unknown>, cacheMs = 1000): Connect {
  const cache = new Map<string, { at: number; target: { host: string; port: number } }>();
  return async (host, port) => {
    const key = `${host}:${port}`;
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < cacheMs) return hit.target;
    cache.delete(key);
    let answer: unknown;
    try {
      answer = await getJson(`/kube/endpoints?${new URLSearchParams({ address: host, port: String(port) })}`);
    } catch (e) {
      if ((e as { status?: unknown }).status === 404) return undefined;
      throw e;
    }
    const t = answer as { host?: unknown; port?: unknown } | undefined;
    if (typeof t?.host !== 'string' || typeof t.port !== 'number') return undefined;
    const target = { host: t.host, port: t.port };
    cache.set(key, { at: Date.now(), target });
    return target;
  };
}
