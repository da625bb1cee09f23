// Input handling that JSON schema alone cannot express in Magnum's terms, applied before
// validation: unknown body attributes and query arguments (400 naming them all), read-only
// attributes, and wsme's scalar conversions (the validator itself never coerces).
import type { FastifyInstance } from 'fastify';
import { errors } from '../../domain/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** wsme's name for the body argument, used in "Unknown attribute for argument <name>". */
    bodyName?: string;
    /** Attributes the resource shows but a body may not set. */
    readOnly?: readonly string[];
  }
}

const TRUE = new Set(['true', 'yes', '1', 'on', 'y', 't']);
const FALSE = new Set(['false', 'no', '0', 'off', 'n', 'f']);

export function parseBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number' && (v === 0 || v === 1)) return v === 1;
  if (typeof v !== 'string') return undefined;
  const s = v.toLowerCase();
  return TRUE.has(s) ? true : FALSE.has(s) ? false : undefined;
}

interface ObjectSchema {
  properties?: Record<string, object>;
  additionalProperties?: unknown;
  $ref?: string;
}

/** A property schema's JSON types (`type` may be one name or a list). */
function types(s: object): string[] {
  const t = 'type' in s ? s.type : undefined;
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return typeof t === 'string' ? [t] : [];
}

/** A JSON object (not an array): what a body or a query string is before validation. */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const NUMERIC = /^-?\d+(\.\d+)?$/;

/**
 * wsme's scalar conversions, in place, by the schema's property types: boolean strings
 * (yes/no/on/off/1/0/t/f...) and numeric strings for integers; with `numbersToStrings`
 * (PATCH values, which the client JSON-decodes) numbers for string attributes. Anything else
 * is left for the validator to refuse; JSON numbers are never turned into strings otherwise.
 */
export function coerceScalars(obj: Record<string, unknown>, schema: ObjectSchema, opts: { numbersToStrings?: boolean } = {}): void {
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    const v = obj[k];
    const ts = types(s);
    if (typeof v === 'string') {
      if (ts.includes('boolean') && !ts.includes('string')) {
        const b = parseBool(v);
        if (b !== undefined) obj[k] = b;
      } else if ((ts.includes('integer') || ts.includes('number')) && !ts.includes('string') && NUMERIC.test(v.trim())) {
        obj[k] = Number(v.trim());
      }
    } else if (typeof v === 'number' && ts.includes('boolean') && (v === 0 || v === 1)) {
      obj[k] = v === 1;
    } else if (typeof v === 'number' && opts.numbersToStrings && ts.includes('string') && !ts.includes('integer')) {
      obj[k] = String(v);
    }
  }
}

const isV1Operation = (url: string | undefined): boolean =>
  url !== undefined && url.startsWith('/v1/') && !url.startsWith('/v1/docs') && url !== '/v1/openapi.json';

export function registerCoercion(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema;
    const config = request.routeOptions.config;
    const qs = schema?.querystring as ObjectSchema | undefined;
    // Magnum refuses unknown query arguments on its v1 operations (not on docs or probes).
    const query = request.query;
    if (isV1Operation(request.routeOptions.url) && isObject(query)) {
      const allowed = qs?.properties ?? {};
      for (const k of Object.keys(query)) if (!(k in allowed)) throw errors.unknownArgument(k);
      if (qs) coerceScalars(query, qs);
    }
    let bs = schema?.body as (ObjectSchema & { $ref?: string }) | undefined;
    if (bs?.$ref) bs = request.server.getSchema(bs.$ref) as ObjectSchema | undefined;
    const obj = request.body;
    if (!bs?.properties || !isObject(obj)) return;
    for (const k of config?.readOnly ?? []) {
      if (k in obj) throw errors.invalidInput(k, obj[k], 'Cannot set read only field.');
    }
    if (bs.additionalProperties === false) {
      const unknown = Object.keys(obj).filter((k) => !(k in bs.properties!));
      if (unknown.length > 0) throw errors.unknownAttributes(config?.bodyName ?? 'body', unknown);
    }
    coerceScalars(obj, bs);
  });
}
