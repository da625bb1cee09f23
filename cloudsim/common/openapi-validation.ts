// The simulators check request bodies against the same OpenAPI subsets our clients are typed from
// (openapi/openstack/<service>.yaml): each documented operation with a JSON request body gets an
// ajv validator, compiled once per process, and a simulator route is matched to the operation by
// its path. The sims' own checks (with the services' exact texts) still run after this one.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { SimError } from './errors.js';

/** One way a body fails its document schema (the first ajv finds). */
export interface SchemaIssue {
  /** Where the offending field sits, dotted (`server.name`); '' for the body itself. */
  path: string;
  /** Its last key (`name`), as Nova and Octavia name a field; '' for the body itself. */
  field: string;
  /** The offending value (undefined for a missing property). */
  value: unknown;
  /** The JSON-Schema keyword that failed: type, required, additionalProperties, enum, maxLength... */
  keyword: string;
  /** ajv's params of the failure (e.g. `type`, `missingProperty`, `allowedValues`). */
  params: Record<string, unknown>;
  /** ajv's text, e.g. `must be string`. */
  message: string;
  /** Where ajv failed: the object lacking or having the property for `required` and `additionalProperties`, else the field itself. */
  at: { field: string; value: unknown };
}

export interface RequestSchemaOptions {
  /** The document, by file name under openapi/openstack (nova, neutron, ...). */
  document: string;
  /**
   * Where the document's paths are mounted in the simulator: a route prefix (Fastify syntax) →
   * the document prefix it stands for. Nova: `{'/v2.1': ''}`; the longest matching prefix wins.
   * Default `{'': ''}`: the document's paths are the routes.
   */
  mount?: Record<string, string>;
  /** The service's error for a failing body; default a 400 naming the field. */
  error?: (issue: SchemaIssue) => SimError;
}

/** A compiled operation: `POST /servers` of a document. */
interface Operation {
  method: string;
  path: string;
  segments: string[];
  validate: ValidateFunction;
}

const METHODS = ['post', 'put', 'patch'] as const;
const compiled = new Map<string, Operation[]>();

export const documentUrl = (name: string): URL => new URL(`../../openapi/openstack/${name}.yaml`, import.meta.url);

/** The operations of a document that take a JSON body, compiled (once per process). */
export function documentOperations(name: string): Operation[] {
  const cached = compiled.get(name);
  if (cached) return cached;
  const doc = parse(readFileSync(documentUrl(name), 'utf8')) as { paths?: Record<string, Record<string, unknown>> };
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; the document's other keywords (example,
  // description on a $ref...) are not ajv's business, hence not strict.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  const id = `openstack-${name}.json`;
  ajv.addSchema(doc, id);
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as { requestBody?: { content?: Record<string, unknown> } } | undefined;
      if (!op?.requestBody?.content?.['application/json']) continue;
      const pointer = ['paths', path, method, 'requestBody', 'content', 'application/json', 'schema']
        .map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1'))
        .join('/');
      const validate = ajv.compile({ $ref: `${id}#/${pointer}` });
      ops.push({ method: method.toUpperCase(), path, segments: path.split('/'), validate });
    }
  }
  compiled.set(name, ops);
  return ops;
}

/** Does a document path (`/servers/{server_id}`) describe a route path (`/servers/:id`)? */
function matches(docSegments: string[], routeSegments: string[]): boolean {
  if (docSegments.length !== routeSegments.length) return false;
  return docSegments.every((d, i) => {
    const r = routeSegments[i]!;
    if (d.startsWith('{') && d.endsWith('}')) return true;
    return !r.startsWith(':') && d === r;
  });
}

const isParam = (segment: string): boolean => segment.startsWith('{');

/** The document operation a simulator route serves, if the document describes it. */
function operationFor(ops: Operation[], mount: Record<string, string>, method: string, url: string): Operation | undefined {
  const prefixes = Object.keys(mount).sort((a, b) => b.length - a.length);
  const prefix = prefixes.find((p) => p === '' || url === p || url.startsWith(`${p}/`));
  if (prefix === undefined) return undefined;
  const segments = `${mount[prefix]}${url.slice(prefix.length)}`.split('/');
  // The most literal path wins (/routers/{id}/tags before /{resource}/{id}/tags).
  return ops
    .filter((o) => o.method === method && matches(o.segments, segments))
    .sort((a, b) => a.segments.filter(isParam).length - b.segments.filter(isParam).length)[0];
}

function issueOf(e: ErrorObject, body: unknown): SchemaIssue {
  const keys = e.instancePath.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  let value: unknown = body;
  for (const k of keys) value = (value as Record<string, unknown> | undefined)?.[k];
  const at = { field: keys.at(-1) ?? '', value };
  const extra = (e.params as { missingProperty?: string; additionalProperty?: string }).missingProperty ??
    (e.params as { additionalProperty?: string }).additionalProperty;
  if (extra !== undefined) {
    // The field to name is the missing or unexpected property, not its parent.
    value = e.keyword === 'required' ? undefined : (value as Record<string, unknown>)[extra];
    keys.push(extra);
  }
  return {
    path: keys.join('.'),
    field: keys.at(-1) ?? '',
    value,
    keyword: e.keyword,
    params: e.params as Record<string, unknown>,
    message: e.message ?? 'is invalid',
    at,
  };
}

/** The default 400: names the field and says what the document expects of it. */
export function defaultSchemaError(issue: SchemaIssue): SimError {
  const where = issue.path === '' ? 'the request body' : `field/attribute ${issue.path}`;
  const value = issue.value === undefined ? '' : ` Value: ${JSON.stringify(issue.value)}.`;
  return new SimError(400, `Invalid input for ${where}.${value} It ${issue.message}.`);
}

/** A body checker: the SimError to answer, or undefined when the body is valid. */
export type BodyCheck = (body: unknown) => SimError | undefined;

/**
 * Checks per route: `forRoute(method, url)` is the check of the document operation the route
 * serves, undefined when the document does not describe it.
 */
export class RequestSchemas {
  private readonly ops: Operation[];
  private readonly mount: Record<string, string>;
  private readonly error: (issue: SchemaIssue) => SimError;
  /** The document operations (`POST /servers`) some route has taken, to tell what is covered. */
  readonly served = new Set<string>();

  constructor(opts: RequestSchemaOptions) {
    this.ops = documentOperations(opts.document);
    this.mount = opts.mount ?? { '': '' };
    this.error = opts.error ?? defaultSchemaError;
  }

  forRoute(method: string, url: string): BodyCheck | undefined {
    const op = operationFor(this.ops, this.mount, method, url);
    if (!op) return undefined;
    this.served.add(`${op.method} ${op.path}`);
    return (body) => {
      // An absent body is left to the service, which has its own answer for it.
      if (body === undefined || op.validate(body)) return undefined;
      // A value no branch of a oneOf takes is reported as such, not by the first branch's complaint.
      const errors = op.validate.errors!;
      const first = errors.find((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf') ?? errors[0]!;
      return this.error(issueOf(first, body));
    };
  }

  /** The document's body-taking operations no route serves (an empty list when all are wired). */
  unserved(): string[] {
    return this.ops.map((o) => `${o.method} ${o.path}`).filter((k) => !this.served.has(k));
  }
}
