// Values as Magnum's wsme reads and refuses them: its scalar conversions (boolean and numeric strings, applied
// before validation, which never coerces), and its wording for a value a schema refuses. Used by the API's
// request handling (src/api/plugins) and by the use cases that validate what a JSON patch produced.
import { errors, type ApiError } from './errors.js';

export interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** Set when a map's key (not its value) failed the schema's propertyNames. */
  propertyName?: string;
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

export interface ObjectSchema {
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
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
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

function valueAt(data: unknown, pointer: string): unknown {
  let cur: unknown = data;
  for (const seg of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Reflect.get(cur, seg.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return cur;
}

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** wsme's wording for one schema failure. */
export function validationError(e: AjvError, data: unknown): ApiError {
  if (e.keyword === 'required') {
    const field = String(e.params.missingProperty);
    return errors.invalidInput(field, 'None', 'Mandatory field missing.');
  }
  const field = e.instancePath.split('/').filter(Boolean).join('.') || 'body';
  if (e.propertyName !== undefined) return keyError(field, e);
  const value = valueAt(data, e.instancePath);
  switch (e.keyword) {
    case 'minLength':
      return errors.invalidInput(field, value, `Value should have a minimum character requirement of ${e.params.limit}`);
    case 'maxLength':
      return errors.invalidInput(field, value, `Value should have a maximum character requirement of ${e.params.limit}`);
    case 'minimum':
      return errors.invalidInput(field, value, `Value should be greater or equal to ${e.params.limit}`);
    case 'maximum':
      return errors.invalidInput(field, value, `Value should be lower or equal to ${e.params.limit}`);
    case 'pattern':
      return errors.invalidInput(field, value, `Value should match the pattern ${e.params.pattern}`);
    case 'enum':
      return errors.invalidInput(field, value, `Value should be one of: ${(e.params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`);
    case 'type':
      return errors.invalidInput(field, value, `Wrong type. Expected '${e.params.type}', got '${typeName(value)}'`);
    case 'additionalProperties':
      return errors.unknownAttributes(field, [String(e.params.additionalProperty)]);
    case 'maxProperties':
      return errors.invalidInput(field, value, `Value should have at most ${e.params.limit} entries`);
    case 'maxItems':
      return errors.invalidInput(field, value, `Value should have at most ${e.params.limit} items`);
    default:
      return errors.invalidInput(field, value, e.message ?? 'Invalid value');
  }
}

/** A map key refused by propertyNames (too long, empty, reserved): the key is the value shown. */
function keyError(field: string, e: AjvError): ApiError {
  const key = e.propertyName!;
  switch (e.keyword) {
    case 'maxLength':
      return errors.invalidInput(field, key, `Keys should have a maximum character requirement of ${e.params.limit}`);
    case 'minLength':
      return errors.invalidInput(field, key, 'Keys should not be empty');
    case 'not':
      return errors.invalidInput(field, key, 'This key is reserved');
    default:
      return errors.invalidInput(field, key, 'Invalid key');
  }
}
