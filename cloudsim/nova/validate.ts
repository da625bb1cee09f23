// Nova's request validation messages: its JSON-Schema errors are rendered as
// "Invalid input for field/attribute <last path item>. Value: <str(value)>. <jsonschema message>",
// where jsonschema prints values with Python's repr. These helpers reproduce those texts.
import { SimError } from '../common/errors.js';

/** Python's repr() of a JSON value (dicts and strings in single quotes, True/False/None). */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
  }
  return String(value);
}

/** str() of a value, as Nova formats the `Value:` part. */
const pyStr = (value: unknown): string => (typeof value === 'string' ? value : pyRepr(value));

/** 400 in the shape of a schema failure at `path` (the last key of the failing location). */
export function invalidInput(path: string | undefined, value: unknown, message: string): SimError {
  if (path === undefined) return new SimError(400, message);
  return new SimError(400, `Invalid input for field/attribute ${path}. Value: ${pyStr(value)}. ${message}`);
}

export const NAME_MESSAGE = "An invalid 'name' value was provided. The name must be: printable characters. Can not start or end with whitespace.";

export type Obj = Record<string, unknown>;

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const TYPE_NAMES: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  object: isObject,
  array: Array.isArray,
  null: (v) => v === null,
};

/** jsonschema's `type` keyword. */
export function checkType(path: string, value: unknown, ...types: string[]): void {
  if (types.some((t) => TYPE_NAMES[t]!(value))) return;
  throw invalidInput(path, value, `${pyRepr(value)} is not of type ${types.map((t) => `'${t}'`).join(', ')}`);
}

/** `required` and `additionalProperties: false` of an object at `path` (undefined at the top). */
export function checkKeys(path: string | undefined, obj: Obj, allowed: readonly string[], required: readonly string[] = []): void {
  for (const r of required) if (!(r in obj)) throw invalidInput(path, obj, `'${r}' is a required property`);
  const extra = Object.keys(obj).filter((k) => !allowed.includes(k));
  if (extra.length === 1) throw invalidInput(path, obj, `Additional properties are not allowed ('${extra[0]}' was unexpected)`);
  if (extra.length > 1) throw invalidInput(path, obj, `Additional properties are not allowed (${extra.map((k) => `'${k}'`).join(', ')} were unexpected)`);
}

/** Nova's `name` format: printable, no leading or trailing whitespace, 1-255 characters. */
export function checkName(path: string, value: unknown, max = 255): string {
  checkType(path, value, 'string');
  const s = value as string;
  if (s.length < 1) throw invalidInput(path, s, `${pyRepr(s)} is too short`);
  if (s.length > max) throw invalidInput(path, s, `${pyRepr(s)} is too long`);
  // eslint-disable-next-line no-control-regex
  if (/^\s|\s$/.test(s) || /[\x00-\x1f\x7f]/.test(s)) throw new SimError(400, NAME_MESSAGE);
  return s;
}

export function checkString(path: string, value: unknown, min: number, max: number): string {
  checkType(path, value, 'string');
  const s = value as string;
  if (s.length < min) throw invalidInput(path, s, `${pyRepr(s)} is too short`);
  if (s.length > max) throw invalidInput(path, s, `${pyRepr(s)} is too long`);
  return s;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

export function checkUuid(path: string, value: unknown): string {
  checkType(path, value, 'string');
  if (!isUuid(value)) throw invalidInput(path, value, `${pyRepr(value)} is not a 'uuid'`);
  return value;
}

/** A server tag: 1-60 characters without ',' or '/'. */
export function checkTag(path: string, value: unknown): string {
  const s = checkString(path, value, 1, 60);
  if (/[,/]/.test(s)) throw invalidInput(path, s, `${pyRepr(s)} does not match '^[^,/]*$'`);
  return s;
}

/** Server metadata: keys of 1-255 characters from [a-zA-Z0-9-_:. ], string values up to 255. */
export function checkMetadata(path: string, value: unknown): Record<string, string> {
  checkType(path, value, 'object');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Obj)) {
    if (!/^[a-zA-Z0-9\-_:. ]{1,255}$/.test(k)) {
      throw invalidInput(path, value, `Additional properties are not allowed ('${k}' was unexpected)`);
    }
    checkString(k, v, 0, 255);
    out[k] = v as string;
  }
  return out;
}

/** oslo's strict boolean strings, or a JSON boolean. */
export function checkBoolean(path: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    if (['true', 'True', 'TRUE', '1', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'y', 't'].includes(value)) return true;
    if (['false', 'False', 'FALSE', '0', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'n', 'f'].includes(value)) return false;
  }
  throw invalidInput(path, value, `${pyRepr(value)} is not of type 'boolean', 'string'`);
}

/** The request's JSON body as an object, or Nova's 400 for anything else. */
export function bodyObject(body: unknown): Obj {
  if (!isObject(body)) throw new SimError(400, 'The request body is invalid: a JSON object is required.');
  return body;
}
