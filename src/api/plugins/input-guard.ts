// What no request may carry, whatever its route: JSON nested deeper than JSON_DEPTH_MAX (recursive
// code further on, and the error messages that echo a value, would exhaust the stack) and the NUL
// character in any string, key, query argument or path parameter (PostgreSQL's text and jsonb
// refuse it: the database would answer a 500). Both are a 400 in Magnum's envelope.
import type { FastifyInstance } from 'fastify';
import { errors } from '../../domain/errors.js';
import { JSON_DEPTH_MAX } from '../../domain/limits.js';

const NUL = '\u0000';

/** Walks a parsed body without recursion; throws on depth or NUL. */
export function checkBody(body: unknown): void {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: body, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) throw errors.nulCharacter(path || 'body', value);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= JSON_DEPTH_MAX) throw errors.jsonTooDeep(JSON_DEPTH_MAX);
    for (const [k, v] of Object.entries(value)) {
      const at = path ? `${path}.${k}` : k;
      if (k.includes(NUL)) throw errors.nulCharacter(path || 'body', k);
      stack.push({ value: v, depth: depth + 1, path: at });
    }
  }
}

function checkStrings(what: unknown): void {
  if (what === null || typeof what !== 'object') return;
  for (const [k, v] of Object.entries(what)) {
    const values = Array.isArray(v) ? v : [v];
    if (k.includes(NUL)) throw errors.nulCharacter(k, k);
    for (const s of values) if (typeof s === 'string' && s.includes(NUL)) throw errors.nulCharacter(k, s);
  }
}

export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    checkStrings(request.params);
    checkStrings(request.query);
  });
}
