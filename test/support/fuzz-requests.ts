// Requests for the fuzz test (test/scenarios/fuzz.test.ts), one arbitrary per operation of the OpenAPI
// document: path parameters, query arguments and a body from the operation's own schemas. A clean
// request is what the schemas accept with what a user of this cloud would send (names of existing
// resources, realistic values); a dirty one is clean but for one part (path, query, body or version
// header), which passes bounds and carries hostile values (unknown arguments, malformed
// percent-encoding, prototype names, bodies that are not JSON or nest deeply, garbled versions). Existing resources are written as `@placeholders`, resolved at send time to the
// fixture of the run.
import fc from 'fast-check';
import { deep, HOSTILE_STRINGS, objectOf, SchemaArbitraries, type JsonSchema } from './schema-arbitrary.js';

export interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: JsonSchema;
}
export interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}
/** Which part of a request is dirty, if any. */
export type Dirt = 'none' | 'path' | 'query' | 'body' | 'version';

export interface FuzzRequest {
  method: string;
  url: string;
  body: string | undefined;
  who: 'demo' | 'demo-reader' | 'admin' | 'other';
  version: string;
  dirt: Dirt;
}

/** Placeholders of the run's fixture: a settled cluster of user demo, its template and node groups, a spare template. */
export const CLUSTER = ['@cluster.uuid', '@cluster.name'];
export const TEMPLATE = ['@template.uuid', '@template.name'];
/** A template of the fixture no cluster uses (a PATCH or DELETE of it can succeed). */
export const SPARE = ['@spare.uuid', '@spare.name'];
export const NODEGROUP = ['@worker.uuid', '@worker.name', '@worker.id', '@extra.uuid', '@extra.name'];
export const PROJECT = ['@project.demo', '@project.other'];

/** Realistic values by property or argument name. */
export const HINTS: Record<string, readonly unknown[]> = {
  coe: ['kubernetes'],
  image_id: ['ubuntu-24.04'],
  flavor_id: ['m1.small', 'm1.medium'],
  master_flavor_id: ['m1.medium'],
  external_network_id: ['public'],
  keypair: [null],
  keypair_id: ['kp'],
  network_driver: ['flannel', 'calico'],
  volume_driver: [null, 'cinder'],
  server_type: ['vm'],
  dns_nameserver: ['8.8.8.8'],
  labels: [{ kube_tag: 'v1.35.2' }, {}, { kube_tag: 'v1.36.0', foo: 'bar' }],
  docker_storage_driver: [null, 'overlay2'],
  fixed_network: [null],
  fixed_subnet: [null],
  discovery_url: [null],
  public: [false],
  hidden: [false],
  master_lb_enabled: [true],
  floating_ip_enabled: [true, false],
  role: ['worker'],
  node_count: [1, 2],
  master_count: [1, 3],
  min_node_count: [0, 1],
  max_node_count: [null, 5],
  docker_volume_size: [null, 10],
  create_timeout: [60],
  hard_limit: [5],
  project_id: PROJECT,
  resource: ['Cluster'],
  op: ['replace', 'add', 'remove'],
  path: ['/node_count', '/name', '/labels', '/labels/kube_tag', '/health_status', '/health_status_reason', '/min_node_count', '/max_node_count', '/tags', '/public'],
  value: [2, 'HEALTHY', "{'api': 'ok'}", 'renamed', 1],
  csr: ['@csr'],
  ca_cert_type: ['kubernetes', 'etcd'],
  nodegroup: ['default-worker', '@extra.name'],
  cluster_template: ['@target.uuid'],
  cluster_template_id: TEMPLATE,
  baymodel_id: TEMPLATE,
  cluster_uuid: CLUSTER,
  bay_uuid: CLUSTER,
  max_batch_size: [1],
  nodes_to_remove: [[]],
  name: ['@name'],
  sort_key: ['id', 'name', 'created_at', 'uuid'],
  sort_dir: ['asc', 'desc'],
  limit: [1, 2, 1000],
  marker: ['@cluster.uuid', '@template.uuid', '@worker.uuid'],
  all_tenants: [true, false],
  rollback: ['true', 'false'],
  type: ['cluster'],
  method: ['password'],
  username: ['demo'],
  password: ['demo-secret'],
};

/** JSON-patch paths that would reach a prototype, sent in dirty patches. */
export const HOSTILE_PATHS = ['/labels/__proto__/polluted', '/labels/constructor/prototype/polluted', '/__proto__/polluted', '/labels/toString'];

/** Path segments sent as they are (malformed or tricky percent-encoding). */
const RAW = 'raw:';
const RAW_SEGMENTS = ['%', '%zz', '%ED%A0%80', '%C0%AF', '%FF', '..', '.', '%2F', '%2e%2e', '%00', 'a%20b'];

/** The version header of a clean request: bays and baymodels exist up to 1.10. */
const versionFor = (path: string): string => (/^\/v1\/(bays|baymodels)/.test(path) ? 'container-infra 1.10' : 'container-infra latest');

/** encodeURIComponent, or the UTF-8 bytes (a lone surrogate becomes U+FFFD) where it refuses. */
function enc(s: string): string {
  if (s.startsWith(RAW)) return s.slice(RAW.length);
  try {
    return encodeURIComponent(s);
  } catch {
    return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

const asQueryValue = (v: unknown): string | string[] => (Array.isArray(v) ? v.map((x) => String(x)) : typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null'));

/** A body naming the fixture's cluster or template where it names one, so creates and signs go further. */
function withRef(body: unknown, ref: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const refs = ['cluster_template_id', 'baymodel_id', 'cluster_template', 'cluster_uuid', 'bay_uuid'];
  return objectOf(Object.entries(body).map(([k, v]): [string, unknown] => (refs.includes(k) ? [k, ref] : [k, v])));
}

export class FuzzRequests {
  private readonly schemas: SchemaArbitraries;

  constructor(components: Record<string, JsonSchema>) {
    this.schemas = new SchemaArbitraries(components, HINTS, { path: HOSTILE_PATHS });
  }

  /**
   * Half clean, half dirty. A dirty request is wrong in one part only (its path, its query, its body
   * or its version header), so that what is wrong there meets the code behind the other parts' checks.
   */
  of(method: string, path: string, op: Operation): fc.Arbitrary<FuzzRequest> {
    const parts: Dirt[] = ['query', 'version'];
    if (op.parameters?.some((p) => p.in === 'path')) parts.push('path');
    // A body is where most can go wrong: twice the share.
    if (op.requestBody) parts.push('body', 'body');
    return fc.oneof(fc.constant<Dirt>('none'), fc.constantFrom(...parts)).chain((dirt) => this.request(method, path, op, dirt));
  }

  /**
   * Requests every run of an operation starts with: prototype names where a parser could make them a
   * path into an object (query arguments, path parameters, body keys, labels, JSON-patch paths), each
   * in an otherwise clean request of the creator (or an admin, for quotas) that would reach the code.
   */
  probes(method: string, path: string, op: Operation): FuzzRequest[] {
    const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
    const url = (value?: string) => pathParams.reduce((u, p) => u.replace(`{${p.name}}`, enc(value ?? this.pool(path, p)[0]!)), path);
    const bodySchema = op.requestBody?.content['application/json']?.schema;
    const clean = bodySchema ? fc.sample(this.schemas.value(bodySchema, false), { seed: 0, numRuns: 1 })[0] : undefined;
    const base: FuzzRequest = { method, url: url(), body: clean === undefined ? undefined : JSON.stringify(clean), who: /^\/v1\/(quotas|mservices)/.test(path) ? 'admin' : 'demo', version: versionFor(path), dirt: 'none' };
    const out: FuzzRequest[] = [];
    for (const q of ['__proto__[polluted]=yes', 'constructor[prototype][polluted]=yes', '__proto__=yes']) out.push({ ...base, url: `${base.url}?${q}`, dirt: 'query' });
    if (pathParams.length) for (const name of ['__proto__', 'constructor']) out.push({ ...base, url: url(name), dirt: 'path' });
    if (!bodySchema) return out;
    const body = (b: unknown): FuzzRequest => ({ ...base, body: JSON.stringify(b), dirt: 'body' });
    if (Array.isArray(clean)) {
      for (const p of HOSTILE_PATHS) for (const o of ['add', 'replace']) out.push(body([{ op: o, path: p, value: 'yes' }]));
    } else if (clean !== null && typeof clean === 'object') {
      const entries = Object.entries(clean);
      out.push(body(objectOf([['__proto__', { polluted: 'yes' }], ...entries])));
      out.push(body(objectOf([['constructor', { prototype: { polluted: 'yes' } }], ...entries])));
      if (this.schemas.resolve(bodySchema).properties?.labels) {
        out.push(body(objectOf([...entries, ['labels', objectOf([['__proto__', 'yes'], ['constructor', 'yes'], ['toString', 'yes']])]])));
      }
    }
    return out;
  }

  /** The fixture's resources a path parameter of `path` names: templates under /clustertemplates and /baymodels, else clusters. */
  private pool(path: string, p: Parameter): string[] {
    const templates = /^\/v1\/(clustertemplates|baymodels)\//.test(path);
    return p.name === 'nodegroup' ? NODEGROUP : p.name === 'project_id' ? PROJECT : p.name === 'resource' ? ['Cluster'] : templates ? [...TEMPLATE, ...SPARE] : CLUSTER;
  }

  private pathValue(path: string, p: Parameter, dirty: boolean): fc.Arbitrary<string> {
    const existing = fc.constantFrom(...this.pool(path, p));
    if (!dirty) return existing;
    return fc.oneof(
      { weight: 6, arbitrary: existing },
      { weight: 2, arbitrary: this.schemas.value(p.schema, true).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null'))) },
      { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
      { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((x) => `${RAW}${x}`) },
    );
  }

  private request(method: string, path: string, op: Operation, dirt: Dirt): fc.Arbitrary<FuzzRequest> {
    const params = op.parameters ?? [];
    const pathParams = params.filter((p) => p.in === 'path');
    const query = params.filter((p) => p.in === 'query');
    const bodySchema = op.requestBody?.content['application/json']?.schema;
    const unknownArgs = fc.array(fc.tuple(fc.constantFrom('__proto__', 'name', 'all_tenants', 'x[y]', 'limit', 'constructor[prototype]'), fc.constantFrom(...HOSTILE_STRINGS)), { maxLength: 2 });
    const queryArb = fc.tuple(
      fc.tuple(...query.map((q) => fc.option(this.schemas.named(q.name, q.schema, dirt === 'query').map(asQueryValue), { freq: 2, nil: undefined }))),
      dirt === 'query' ? fc.oneof({ weight: 3, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 1, arbitrary: unknownArgs }) : fc.constant<[string, string][]>([]),
    );
    const refs = fc.constantFrom(...CLUSTER, ...TEMPLATE);
    const shaped = bodySchema
      ? fc.tuple(this.schemas.value(bodySchema, dirt === 'body'), refs, fc.boolean()).map(([b, ref, use]) => JSON.stringify(use ? withRef(b, ref) : b))
      : fc.constant(undefined);
    const strange = ['{', '[]', '"x"', '{"a":1,"a":2}', JSON.stringify(deep(40)), `${'['.repeat(20_000)}${']'.repeat(20_000)}`, '\u0000', JSON.stringify({ x: 'x'.repeat(130_000) })];
    const body: fc.Arbitrary<string | undefined> = dirt === 'body'
      ? fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: fc.constantFrom(...strange) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) })
      : shaped;
    // Mostly the one whose policy lets the operation run: the creator, or an admin for quotas and services.
    const admins = /^\/v1\/(quotas|mservices)/.test(path);
    const who = admins ? fc.constantFrom<FuzzRequest['who'][]>('admin', 'admin', 'admin', 'demo', 'demo-reader', 'other') : fc.constantFrom<FuzzRequest['who'][]>('demo', 'demo', 'demo', 'admin', 'demo-reader', 'other');
    const usual = versionFor(path);
    const odd = fc.constantFrom('container-infra 1.1', 'container-infra 1.10', 'container-infra 9.99', 'container-infra 1.x', 'garbage', 'container-infra latest latest');
    const version = dirt === 'version' ? odd : fc.constant(usual);
    return fc.record({ path: fc.tuple(...pathParams.map((p) => this.pathValue(path, p, dirt === 'path'))), query: queryArb, body, who, version }).map((r) => {
      let url = path;
      pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, enc(r.path[i]!))));
      const qs: string[] = [];
      query.forEach((q, i) => {
        const v = r.query[0][i];
        for (const x of v === undefined ? [] : Array.isArray(v) ? v : [v]) qs.push(`${enc(q.name)}=${enc(x)}`);
      });
      for (const [k, v] of r.query[1]) qs.push(`${enc(k)}=${enc(v)}`);
      return { method, url: qs.length ? `${url}?${qs.join('&')}` : url, body: r.body, who: r.who, version: r.version, dirt };
    });
  }
}
