// fast-check arbitraries from the JSON schemas of the OpenAPI document, for the fuzz test
// (test/scenarios/fuzz.test.ts): values the schema accepts, values just past its bounds, and hostile
// values (prototype names, NUL, lone surrogates, huge numbers, long and deep things) at every level.
import fc from 'fast-check';

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  maxProperties?: number;
  pattern?: string;
}

export const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', ''];

export const HOSTILE_STRINGS = [
  ...HOSTILE_KEYS,
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '😀'.repeat(200),
  'é'.repeat(300),
  '../../etc/passwd',
  "'; DROP TABLE cluster; --",
  '%00',
  '%',
  '{}',
  '[]',
  'null',
  'None',
  'True',
  '1e999',
  'NaN',
  '-1',
  '9'.repeat(400),
  ' ',
  '\n',
  "{'a': 'b'}",
  "{'__proto__': {'polluted': 'yes'}}",
  '<script>alert(1)</script>',
  'a'.repeat(256),
  'a'.repeat(5000),
];

export const HOSTILE_NUMBERS = [0, -1, -0, 0.5, 1e308, -1e308, 2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53 + 2, 2 ** 64, Number.MAX_SAFE_INTEGER, 1e-300];

/** An object with these entries as own properties (`__proto__` included, as JSON.parse would make it). */
export function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

/** JSON nested `depth` levels (arrays or objects). */
export function deep(depth: number, leaf: unknown = 'x'): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const hostileString = fc.constantFrom(...HOSTILE_STRINGS);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(true, false, null, [], {}),
  fc.integer({ min: 3, max: 60 }).map((d) => deep(d)),
  fc.jsonValue({ maxDepth: 3 }),
);

/**
 * Dirty values are mostly well formed, one part in five wrong at each level: a request with one
 * thing wrong reaches the code behind the first check, where a request wrong everywhere would not.
 */
const mostly = (ok: fc.Arbitrary<unknown>, ...wrong: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 4, arbitrary: ok }, { weight: 1, arbitrary: fc.oneof(...wrong) });

const types = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/**
 * Arbitraries of one schema's values. `clean`: what the schema accepts, with realistic values
 * where `hints` names the property (so that a request can get all the way through); `dirty`:
 * also values just past each bound and hostile values at every level.
 */
export class SchemaArbitraries {
  constructor(
    private readonly components: Record<string, JsonSchema>,
    private readonly hints: Record<string, readonly unknown[]> = {},
    /** Hostile values by property name, in dirty values only (a patch's path into a prototype). */
    private readonly hostile: Record<string, readonly unknown[]> = {},
  ) {}

  resolve(s: JsonSchema): JsonSchema {
    let cur = s;
    for (let i = 0; cur.$ref && i < 10; i++) cur = this.components[cur.$ref.replace('#/components/schemas/', '')] ?? {};
    return cur;
  }

  /** A value for a property or parameter called `name` (its hints first, when clean). */
  named(name: string, schema: JsonSchema, dirty: boolean, depth = 0): fc.Arbitrary<unknown> {
    const hint = this.hints[name];
    const shaped = this.value(schema, dirty, depth);
    const hostile = this.hostile[name];
    if (dirty && hostile) {
      return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hostile) }, { weight: 1, arbitrary: hint ? fc.constantFrom(...hint) : shaped }, { weight: 1, arbitrary: shaped });
    }
    if (!hint) return shaped;
    // Dirty values stay mostly plausible where a hint exists, so that the hostile part of a request meets the code behind validation.
    return dirty ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hint) }, { weight: 1, arbitrary: shaped }) : fc.constantFrom(...hint);
  }

  value(schema: JsonSchema, dirty: boolean, depth = 0): fc.Arbitrary<unknown> {
    const shaped = this.shaped(this.resolve(schema), dirty, depth);
    return dirty ? fc.oneof({ weight: 7, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue }) : shaped;
  }

  private shaped(s: JsonSchema, dirty: boolean, depth: number): fc.Arbitrary<unknown> {
    if (s.anyOf || s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf)!.map((x) => this.value(x, dirty, depth + 1)));
    if (s.enum) return dirty ? mostly(fc.constantFrom(...s.enum), this.string({}, true)) : fc.constantFrom(...s.enum);
    const alts: fc.Arbitrary<unknown>[] = [];
    for (const t of types(s)) {
      if (t === 'null') alts.push(fc.constant(null));
      else if (t === 'string') alts.push(this.string(s, dirty));
      else if (t === 'integer' || t === 'number') alts.push(this.number(s, t === 'integer', dirty));
      else if (t === 'boolean') alts.push(dirty ? mostly(fc.boolean(), fc.constantFrom('yes', 'off', 'T', 'maybe', 1, 0, 2)) : fc.boolean());
      else if (t === 'array') alts.push(this.array(s, dirty, depth));
      else if (t === 'object') alts.push(this.object(s, dirty, depth));
    }
    if (alts.length === 0) return dirty ? hostileValue : fc.oneof(fc.string({ maxLength: 8 }), fc.integer({ min: 0, max: 5 })); // unconstrained (a patch's value)
    return fc.oneof(...alts);
  }

  private string(s: JsonSchema, dirty: boolean): fc.Arbitrary<unknown> {
    const min = s.minLength ?? 0;
    const max = Math.max(min, Math.min(s.maxLength ?? 40, 40));
    const ok = s.pattern ? fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length >= min && x.length <= max) : fc.string({ minLength: min, maxLength: max });
    if (!dirty) return ok;
    const wrong: fc.Arbitrary<unknown>[] = [fc.string({ unit: 'grapheme', maxLength: 20 }), fc.integer(), hostileString];
    if (s.maxLength !== undefined) wrong.push(fc.constant('y'.repeat(s.maxLength)), fc.constant('z'.repeat(s.maxLength + 1)));
    return mostly(ok, ...wrong);
  }

  private number(s: JsonSchema, integer: boolean, dirty: boolean): fc.Arbitrary<unknown> {
    const min = s.minimum ?? 0;
    const max = s.maximum ?? 100_000;
    // Clean: small counts and sizes, as a user asks for (a cloud has room for them).
    const clean = integer ? fc.integer({ min, max: Math.min(max, min + 5) }) : fc.double({ min, max: Math.min(max, min + 5), noNaN: true });
    if (!dirty) return clean;
    return mostly(
      clean,
      fc.constantFrom(min - 1, max + 1, min, max),
      fc.constantFrom(...HOSTILE_NUMBERS),
      fc.integer({ min: 0, max: 50 }).map(String),
      fc.constantFrom('1.5', ' 3', '0x10', 'one'),
    );
  }

  private array(s: JsonSchema, dirty: boolean, depth: number): fc.Arbitrary<unknown> {
    const item = s.items ? this.value(s.items, dirty, depth + 1) : hostileValue;
    const some = fc.array(item, { maxLength: 3 });
    if (!dirty || s.maxItems === undefined) return some;
    return mostly(some, fc.array(item, { minLength: s.maxItems + 1, maxLength: s.maxItems + 1 }));
  }

  private object(s: JsonSchema, dirty: boolean, depth: number): fc.Arbitrary<unknown> {
    const props = Object.entries(s.properties ?? {});
    const required = new Set(s.required ?? []);
    const known = props.map(([k, ps]) => {
      const v = this.named(k, ps, dirty, depth + 1);
      // A body mostly carries what a user would send (the hinted attributes), the rest now and then.
      const freq = this.hints[k] ? 8 : 2;
      return required.has(k)
        ? v.map((x): [string, unknown][] => [[k, x]])
        : fc.option(v, { freq, nil: undefined }).map((x): [string, unknown][] => (x === undefined ? [] : [[k, x]]));
    });
    const ap = s.additionalProperties;
    const cleanKey = fc.stringMatching(/^[a-z][a-z_]{0,15}$/);
    const extraKey = dirty ? (mostly(cleanKey, fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 12 }), fc.constantFrom('uuid', 'project_id', 'links', 'id', 'a\u0000')) as fc.Arbitrary<string>) : cleanKey;
    const mapValue = typeof ap === 'object' ? this.value(ap, dirty, depth + 1) : hostileValue;
    let extras: fc.Arbitrary<[string, unknown][]>;
    if (typeof ap === 'object') {
      const many = fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.constant('v')), { minLength: (s.maxProperties ?? 100) + 1, maxLength: (s.maxProperties ?? 100) + 1 });
      extras = dirty ? (mostly(fc.array(fc.tuple(extraKey, mapValue), { maxLength: 6 }), many) as fc.Arbitrary<[string, unknown][]>) : fc.array(fc.tuple(extraKey, mapValue), { maxLength: 4 });
    } else {
      extras = dirty ? fc.oneof({ weight: 3, arbitrary: fc.constant<[string, unknown][]>([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(extraKey, hostileValue), { maxLength: 2 }) }) : fc.constant<[string, unknown][]>([]);
    }
    return fc.tuple(fc.tuple(...known), extras).map(([k, e]) => objectOf([...k.flat(), ...e]));
  }
}
