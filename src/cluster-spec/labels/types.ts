// Label value types. Feature modules declare their labels with these; parsing happens once, in parseClusterSpec.
// A parser throws an Error whose message is the user-facing reason (it becomes the 400's text).

import { parseCidr, type Cidr } from '../cidr.js';

export interface LabelType<T> {
  /** Short description of accepted values, for docs and the label table. */
  readonly accepts: string;
  parse(raw: string): T;
}

const TRUE = new Set(['1', 't', 'true', 'on', 'y', 'yes']);
const FALSE = new Set(['0', 'f', 'false', 'off', 'n', 'no']);

/** Same spellings as oslo `bool_from_string(strict=True)`, which Magnum uses for labels. */
export const bool: LabelType<boolean> = {
  accepts: 'true|false',
  parse(raw) {
    const v = raw.trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
    throw new Error("Expected a boolean ('true' or 'false').");
  },
};

export function oneOf<const V extends string>(values: readonly V[], opts: { caseInsensitive?: boolean } = {}): LabelType<V> {
  return {
    accepts: values.join('|'),
    parse(raw) {
      const v = raw.trim();
      const hit = values.find((x) => (opts.caseInsensitive ? x.toLowerCase() === v.toLowerCase() : x === v));
      if (hit === undefined) throw new Error(`Expected one of: ${values.join(', ')}.`);
      return hit;
    },
  };
}

export function int(min: number, max: number): LabelType<number> {
  return {
    accepts: `integer ${min}..${max}`,
    parse(raw) {
      const v = raw.trim();
      if (!/^-?\d+$/.test(v) || Number(v) < min || Number(v) > max) {
        throw new Error(`Expected an integer between ${min} and ${max}.`);
      }
      return Number(v);
    },
  };
}

export const cidr: LabelType<Cidr> = { accepts: 'IPv4 CIDR', parse: (raw) => parseCidr(raw) };

/** Comma-separated CIDRs (empty string → empty list). */
export const cidrList: LabelType<Cidr[]> = {
  accepts: 'comma-separated IPv4 CIDRs',
  parse(raw) {
    const items = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
    return items.map((s) => {
      try {
        return parseCidr(s);
      } catch (e) {
        throw new Error(`'${s}': ${(e as Error).message}`);
      }
    });
  },
};

/** A container image tag (OCI tag grammar). */
export const imageTag: LabelType<string> = {
  accepts: 'image tag',
  parse(raw) {
    const v = raw.trim();
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(v)) throw new Error('Expected a container image tag.');
    return v;
  },
};

/** A registry prefix such as `registry.example.org/mirror/` (trailing slash optional). */
export const registryPrefix: LabelType<string> = {
  accepts: 'registry/path prefix',
  parse(raw) {
    const v = raw.trim().replace(/\/+$/, '');
    if (v === '') return '';
    if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(\/[a-z0-9._-]+)*$/.test(v)) {
      throw new Error('Expected a registry prefix like registry.example.org/k8s/.');
    }
    return v;
  },
};

/** A DNS zone name as Designate stores it: lower case, dot-separated labels, the trailing dot added. */
export const dnsZone: LabelType<string> = {
  accepts: 'DNS zone name (example.org.)',
  parse(raw) {
    const v = raw.trim().toLowerCase().replace(/\.?$/, '.');
    const labels = v.slice(0, -1).split('.');
    const ok = v.length <= 254 && labels.length >= 2 && labels.every((l) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(l));
    if (!ok) throw new Error('Expected a DNS zone name such as k8s.example.org. (at least two labels of letters, digits and hyphens).');
    return v;
  },
};

/** Free text (trimmed); rejects control characters so it can be rendered into configs safely. */
export const text: LabelType<string> = {
  accepts: 'text',
  parse(raw) {
    if (/[\u0000-\u001f\u007f]/.test(raw)) throw new Error('Control characters are not allowed.');
    return raw.trim();
  },
};

export interface LabelDecl<T> {
  type: LabelType<T>;
  /** What the label does in this implementation (rendered into the label table). */
  doc: string;
  /** When it is accepted but ignored, with a warning (`without monitoring_enabled=true`): its module says so through ctx.ignore. */
  ignored?: string;
  /** Deprecated: what to use instead (every use warns). */
  deprecated?: string;
}

export const label = <T>(type: LabelType<T>, doc: string, more: { ignored?: string; deprecated?: string } = {}): LabelDecl<T> => ({ type, doc, ...more });

export type LabelSchema = Record<string, LabelDecl<unknown>>;

/** `{kube_tag: LabelDecl<string>}` → `{kube_tag?: string}` */
export type ParsedLabels<S extends LabelSchema> = { [K in keyof S]?: S[K] extends LabelDecl<infer T> ? T : never };
