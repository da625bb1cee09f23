// Input handling that JSON schema alone cannot express in Magnum's terms, applied before
// validation: unknown body attributes and query arguments (400 naming them all), read-only
// attributes, and wsme's scalar conversions (the validator itself never coerces).
import type { FastifyInstance } from 'fastify';
import { errors } from '../../domain/errors.js';
import { coerceScalars, isObject, parseBool, type ObjectSchema } from '../../domain/wire-values.js';

export { coerceScalars, parseBool };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** wsme's name for the body argument, used in "Unknown attribute for argument <name>". */
    bodyName?: string;
    /** Attributes the resource shows but a body may not set. */
    readOnly?: readonly string[];
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
