// Label maps as the API stores and compares them: string to string.
import { pythonStr } from './python-literal.js';

export type Labels = Record<string, string>;

/** Label values as stored: JSON numbers and booleans become Python's strings (`true` → "True", 5 → "5"). */
export function labelStrings(labels: Record<string, unknown>): Labels {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, pythonStr(v as string | number | boolean | null)]));
}

/**
 * A cluster's labels from its template's (spec §3.2): the parent's when none (or an empty map) are
 * given; the parent's overlaid with the given ones when `merge`; else the given ones alone.
 */
export function inheritLabels(parent: Labels, given: Labels | null, merge: boolean): Labels {
  if (given === null || Object.keys(given).length === 0) return { ...parent };
  return merge ? { ...parent, ...given } : { ...given };
}

export interface LabelDiff {
  /** Keys in both with a different value, mapped to the PARENT's value. */
  overridden: Labels;
  /** Keys only in the child, with the child's value. */
  added: Labels;
  /** Keys only in the parent, with the parent's value. */
  skipped: Labels;
}

/**
 * How a child's labels differ from its parent's (cluster vs template, node group vs cluster):
 * Magnum's labels_overridden / labels_added / labels_skipped.
 */
export function labelDiff(parent: Labels | null | undefined, child: Labels | null | undefined): LabelDiff {
  const p = parent ?? {};
  const c = child ?? {};
  const out: LabelDiff = { overridden: {}, added: {}, skipped: {} };
  for (const [k, v] of Object.entries(c)) {
    if (!Object.hasOwn(p, k)) out.added[k] = v;
    else if (p[k] !== v) out.overridden[k] = p[k]!;
  }
  for (const [k, v] of Object.entries(p)) if (!Object.hasOwn(c, k)) out.skipped[k] = v;
  return out;
}
