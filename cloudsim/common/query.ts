// Query-string helpers for the simulators: Fastify gives a repeated parameter as an array.

export type RawQuery = Record<string, string | string[] | undefined>;

/** Every value of a parameter, in order. */
export function all(query: RawQuery, key: string): string[] {
  const v = query[key];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** The last value of a parameter (what webob's `params.get` returns for a repeated one). */
export function one(query: RawQuery, key: string): string | undefined {
  const v = all(query, key);
  return v[v.length - 1];
}

/** The request's query with `changes` applied (undefined removes), keeping repeated parameters. */
export function withParams(query: RawQuery, changes: Record<string, string | undefined>, sort = false): URLSearchParams {
  const params = new URLSearchParams();
  const keys = Object.keys(query).filter((k) => !(k in changes));
  for (const k of keys) for (const v of all(query, k)) params.append(k, v);
  for (const [k, v] of Object.entries(changes)) if (v !== undefined) params.append(k, v);
  if (sort) params.sort();
  return params;
}

/** Orders by the given keys and directions; undefined and null sort first, as SQL NULLs do ascending. */
export function compareBy<T>(keys: { get: (item: T) => unknown; desc: boolean }[]): (a: T, b: T) => number {
  return (a, b) => {
    for (const k of keys) {
      const x = k.get(a);
      const y = k.get(b);
      if (x === y) continue;
      const c = x === undefined || x === null ? -1 : y === undefined || y === null ? 1 : x < y ? -1 : x > y ? 1 : 0;
      if (c !== 0) return k.desc ? -c : c;
    }
    return 0;
  };
}

/** oslo's bool_from_string(strict=True); undefined when the value is not a boolean. */
export function parseBool(value: string): boolean | undefined {
  const v = value.trim().toLowerCase();
  if (['1', 't', 'true', 'on', 'y', 'yes'].includes(v)) return true;
  if (['0', 'f', 'false', 'off', 'n', 'no'].includes(v)) return false;
  return undefined;
}

/** A `metadata={"k": "v"}` filter (JSON, or the Python-literal form the OpenStack CLIs send); undefined when neither parses. */
export function metadataFilter(raw: string): Record<string, string> | undefined {
  for (const text of [raw, raw.replace(/'/g, '"')]) {
    try {
      const v = JSON.parse(text) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
    } catch {
      /* next form */
    }
  }
  return undefined;
}
