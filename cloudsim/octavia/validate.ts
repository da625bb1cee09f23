// WSME-style body validation for the Octavia simulator: the messages Octavia's types produce.
import { SimError } from '../common/errors.js';

export type Body = Record<string, unknown>;

const invalid = (field: string, value: unknown, why: string) =>
  new SimError(400, `Invalid input for field/attribute ${field}. Value: '${value === undefined || value === null ? 'None' : String(value)}'. ${why}`);

/** The object under `key` (e.g. {"loadbalancer": {...}}). */
export function wrapped(body: unknown, key: string): Body {
  const inner = body && typeof body === 'object' ? (body as Body)[key] : undefined;
  if (!inner || typeof inner !== 'object' || Array.isArray(inner)) throw invalid(key, inner, 'Mandatory field missing.');
  return inner as Body;
}

export function str(b: Body, field: string, required = false): string | undefined {
  const v = b[field];
  if (v === undefined || v === null) {
    if (required) throw invalid(field, v, 'Mandatory field missing.');
    return undefined;
  }
  if (typeof v !== 'string') throw invalid(field, v, 'Wrong type. Expected \'<class \'str\'>\', got \'' + typeof v + '\'');
  return v;
}

export function oneOf(b: Body, field: string, allowed: readonly string[], required = false): string | undefined {
  const v = str(b, field, required);
  if (v !== undefined && !allowed.includes(v)) throw invalid(field, v, `Value should be one of: ${allowed.join(', ')}`);
  return v;
}

export function int(b: Body, field: string, min: number, max: number, required = false): number | undefined {
  const v = b[field];
  if (v === undefined || v === null) {
    if (required) throw invalid(field, v, 'Mandatory field missing.');
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(field, v, "Wrong type. Expected '<class 'int'>', got '" + typeof v + "'");
  if (v < min) throw invalid(field, v, `Value should be greater or equal to ${min}`);
  if (v > max) throw invalid(field, v, `Value should be lower or equal to ${max}`);
  return v;
}

export function bool(b: Body, field: string): boolean | undefined {
  const v = b[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalid(field, v, "Wrong type. Expected '<class 'bool'>', got '" + typeof v + "'");
  return v;
}

export function tags(b: Body): string[] | undefined {
  const v = b.tags;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw invalid('tags', JSON.stringify(v), "Wrong type. Expected '<class 'list'>'");
  return [...new Set(v as string[])];
}

export function list(b: Body, field: string): Body[] {
  const v = b[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => !x || typeof x !== 'object')) throw invalid(field, JSON.stringify(v), "Wrong type. Expected '<class 'list'>'");
  return v as Body[];
}

export function obj(b: Body, field: string): Body | undefined {
  const v = b[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(field, JSON.stringify(v), "Wrong type. Expected '<class 'dict'>'");
  return v as Body;
}
