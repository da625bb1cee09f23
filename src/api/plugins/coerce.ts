// Input handling that JSON schema alone cannot express in Magnum's terms, applied before
// validation: unknown body attributes and query arguments (400 naming them all), read-only
// attributes, and wsme's boolean strings (yes/no/on/off/1/0/t/f...).
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
  properties?: Record<string, { type?: string | string[] }>;
  additionalProperties?: unknown;
}

const isBoolSchema = (s: { type?: string | string[] }): boolean =>
  s.type === 'boolean' || (Array.isArray(s.type) && s.type.includes('boolean'));

/** Converts wsme boolean strings in place; leaves anything else for the validator to refuse. */
export function coerceBooleans(body: Record<string, unknown>, schema: ObjectSchema): void {
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    if (isBoolSchema(s) && typeof body[k] === 'string') {
      const b = parseBool(body[k]);
      if (b !== undefined) body[k] = b;
    }
  }
}

export function registerCoercion(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema;
    const config = request.routeOptions.config;
    const qs = schema?.querystring as ObjectSchema | undefined;
    if (request.query && typeof request.query === 'object') {
      const allowed = qs?.properties ?? {};
      for (const k of Object.keys(request.query)) if (!(k in allowed)) throw errors.unknownArgument(k);
    }
    const bs = schema?.body as ObjectSchema | undefined;
    const body = request.body;
    if (!bs?.properties || body === null || typeof body !== 'object' || Array.isArray(body)) return;
    const obj = body as Record<string, unknown>;
    for (const k of config?.readOnly ?? []) {
      if (k in obj) throw errors.invalidInput(k, obj[k], 'Cannot set read only field.');
    }
    if (bs.additionalProperties === false) {
      const unknown = Object.keys(obj).filter((k) => !(k in bs.properties!));
      if (unknown.length > 0) throw errors.unknownAttributes(config?.bodyName ?? 'body', unknown);
    }
    coerceBooleans(obj, bs);
  });
}
