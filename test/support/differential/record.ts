// The differential test's recording (issue 25): every answered call of our clients as (service, method, path
// template, query, status, the body's shape), ids and times aside, so that one scenario run against the
// simulator and against the real services can be compared call by call.
import type { CallTrace } from '../../../src/openstack/http.js';

/** A JSON value's keys and types, recursively: 'string', 'number', 'boolean', 'null', [element], { key: shape }. */
export type Shape = string | Shape[] | { [key: string]: Shape };

export interface Recorded {
  /** What the scenario was doing, e.g. 'network create'. */
  step: string;
  service: string;
  method: string;
  /** The path with every id and generated name replaced by a placeholder. */
  path: string;
  query: string;
  status: number;
  shape: Shape;
  /** The answer as it came, for the failure message. */
  body: unknown;
}

/** A field left out of the comparison: where (service and path template), which (a dotted path; `*` for any key or element), and why. */
export interface Ignored {
  service: string;
  path: RegExp;
  field: string;
  reason: string;
}

const UUID = /[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}/gi;

/**
 * A value's shape. An array's elements merge into one shape (keys of all; a key's differing types joined by '|').
 * `key` names the keys (a server's addresses are keyed by its networks' generated names).
 */
export function shapeOf(v: unknown, key: (k: string) => string = (k) => k): Shape {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length === 0 ? [] : [v.map((x) => shapeOf(x, key)).reduce(merge)];
  if (typeof v === 'object') {
    return Object.fromEntries(Object.keys(v as object).map((k) => [key(k), shapeOf((v as Record<string, unknown>)[k], key)] as const).sort((a, b) => a[0].localeCompare(b[0])));
  }
  return typeof v === 'undefined' ? 'empty' : typeof v;
}

function merge(a: Shape, b: Shape): Shape {
  if (JSON.stringify(a) === JSON.stringify(b)) return a;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === 0 ? b : b.length === 0 ? a : [merge(a[0]!, b[0]!)];
  if (typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return Object.fromEntries(keys.map((k) => [k, a[k] === undefined ? b[k]! : b[k] === undefined ? a[k]! : merge(a[k], b[k])]));
  }
  const parts = (s: Shape) => (typeof s === 'string' ? s.split('|') : [JSON.stringify(s)]);
  return [...new Set([...parts(a), ...parts(b)])].sort().join('|');
}

/** The shape without the fields `ignored` names (dotted paths, `*` any key or array element). */
export function without(shape: Shape, field: string[]): Shape {
  if (field.length === 0 || typeof shape === 'string') return shape;
  const [head, ...rest] = field;
  if (Array.isArray(shape)) return head === '*' ? shape.map((s) => without(s, rest)) : shape;
  const out: { [key: string]: Shape } = {};
  for (const [k, v] of Object.entries(shape)) {
    if (head === '*' || head === k) {
      if (rest.length === 0) continue;
      out[k] = without(v, rest);
    } else out[k] = v;
  }
  return out;
}

/** Records the calls of sessions given `trace`; `quiet` runs polls unrecorded (their count varies with the cloud's speed). */
export class Recorder {
  readonly calls: Recorded[] = [];
  private step = '';
  private silent = 0;
  /** Generated values (names, non-UUID ids) and their placeholders. */
  private readonly names = new Map<string, string>();

  constructor(private readonly ignored: Ignored[]) {}

  readonly trace = (t: CallTrace): void => {
    if (this.silent > 0) return;
    const path = this.template(t.path);
    const shape = this.ignored
      .filter((i) => i.service === t.service && i.path.test(`${t.method} ${path}`))
      .reduce((s, i) => without(s, i.field.split('.')), shapeOf(t.body, (k) => this.template(k)));
    const query = this.template(decodeURIComponent(t.query.replace(/\+/g, ' '))).split('&').filter(Boolean).sort().join('&');
    this.calls.push({ step: this.step, service: t.service, method: t.method, path, query, status: t.status, shape, body: redacted(t.body) });
  };

  /** Calls made from now on belong to `step`. */
  at(step: string): void {
    this.step = step;
  }

  /** `value` (a generated name, a non-UUID id) is written `{label}` in paths and queries. */
  name(value: string, label: string): void {
    this.names.set(value, `{${label}}`);
  }

  async quiet<T>(fn: () => Promise<T>): Promise<T> {
    this.silent++;
    try {
      return await fn();
    } finally {
      this.silent--;
    }
  }

  private template(s: string): string {
    let out = s.replace(UUID, '{id}');
    // Longest first, so that a name containing another is replaced whole.
    for (const [value, label] of [...this.names].sort((a, b) => b[0].length - a[0].length)) out = out.split(value).join(label);
    return out;
  }
}

/** The body with its secrets (an application credential's, a generated private key) blanked, for printing. */
function redacted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redacted);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'secret' || k === 'private_key' ? '(redacted)' : redacted(x)]));
}

/** A line per call, for the failure message. */
export const describeCall = (c: Recorded | undefined): string =>
  c === undefined ? '(no call)' : `[${c.step}] ${c.service} ${c.method} ${c.path}${c.query ? `?${c.query}` : ''} → ${c.status}`;

/**
 * The first differing call of the two recordings, with both answers (shape and body); undefined when they agree.
 */
export function firstDifference(sim: Recorded[], real: Recorded[]): string | undefined {
  const key = (c: Recorded) => JSON.stringify([c.service, c.method, c.path, c.query, c.status, c.shape]);
  for (let i = 0; i < Math.max(sim.length, real.length); i++) {
    const a = sim[i];
    const b = real[i];
    if (a && b && key(a) === key(b)) continue;
    const show = (who: string, c: Recorded | undefined) =>
      `${who}: ${describeCall(c)}\n  shape: ${JSON.stringify(c?.shape)}\n  body: ${JSON.stringify(c?.body)?.slice(0, 3000)}`;
    const fields = a && b ? `\nfields (+ simulator only, - real only): ${shapeDiff(a.shape, b.shape).join(', ')}` : '';
    return `call ${i + 1} differs:\n${show('simulator', a)}\n${show('real', b)}${fields}`;
  }
  return undefined;
}

/** Every differing call (index, both answers), for a report of all at once. */
export function differences(sim: Recorded[], real: Recorded[]): string[] {
  const out: string[] = [];
  const key = (c: Recorded) => JSON.stringify([c.service, c.method, c.path, c.query, c.status, c.shape]);
  for (let i = 0; i < Math.max(sim.length, real.length); i++) {
    const a = sim[i];
    const b = real[i];
    if (a && b && key(a) === key(b)) continue;
    const fields = a && b ? shapeDiff(a.shape, b.shape).join(', ') : '';
    out.push(`#${i + 1} sim ${describeCall(a)}\n    real ${describeCall(b)}${fields ? `\n    fields (+ simulator only, - real only): ${fields}` : ''}`);
  }
  return out;
}

/** Where two shapes differ, as dotted paths: `+x` only in `a`, `-x` only in `b`, `x: a ≠ b` different types. */
export function shapeDiff(a: Shape, b: Shape, at = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isObj = (s: Shape): s is { [key: string]: Shape } => typeof s === 'object' && !Array.isArray(s);
  if (isObj(a) && isObj(b)) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort().flatMap((k) => {
      const p = at ? `${at}.${k}` : k;
      if (b[k] === undefined) return [`+${p}`];
      if (a[k] === undefined) return [`-${p}`];
      return shapeDiff(a[k], b[k], p);
    });
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length && b.length) return shapeDiff(a[0]!, b[0]!, `${at}[]`);
  return [`${at || '(body)'}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`];
}
