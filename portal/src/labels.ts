// The label registry (src/kube, built into the bundle by portal/build.ts) as typed form fields:
// a boolean is a checkbox, a choice a select, an integer a number; unknown labels are warnings.
import registry from 'virtual:labels';

export interface LabelInfo {
  name: string;
  module: string;
  kind: 'core' | 'addon';
  accepts: string;
  doc: string;
  ignored?: string;
  deprecated?: string;
}

export const LABELS: LabelInfo[] = (registry as { labels: LabelInfo[] }).labels;
export const UNSUPPORTED: Record<string, string> = (registry as { unsupported: Record<string, string> }).unsupported;
const BY_NAME = new Map(LABELS.map((l) => [l.name, l]));

export type FieldKind = { kind: 'bool' } | { kind: 'choice'; values: string[] } | { kind: 'int'; min: number; max: number } | { kind: 'text' };

export function fieldKind(l: LabelInfo): FieldKind {
  if (l.accepts === 'true|false') return { kind: 'bool' };
  const int = /^integer (-?\d+)\.\.(-?\d+)$/.exec(l.accepts);
  if (int) return { kind: 'int', min: Number(int[1]), max: Number(int[2]) };
  if (/^[\w.-]+(\|[\w.-]+)+$/.test(l.accepts)) return { kind: 'choice', values: l.accepts.split('|') };
  return { kind: 'text' };
}

/** The warning a label set to a value gives whatever else the cluster has (deprecated, not supported, unknown); undefined when none. */
export function labelWarning(name: string): string | undefined {
  const s = labelStatus(name);
  if (!s.known) return s.warning;
  return s.info.deprecated ? `Deprecated: ${s.info.deprecated}` : undefined;
}

/** What the service says of a label: supported (its module), not supported (why), or unknown. */
export function labelStatus(name: string): { known: true; info: LabelInfo } | { known: false; warning: string } {
  const info = BY_NAME.get(name);
  if (info) return { known: true, info };
  const why = UNSUPPORTED[name];
  return { known: false, warning: why ? `Not supported here: ${why}` : 'Unknown label: kept on the cluster, changes nothing.' };
}

export const MODULES = [...new Set(LABELS.map((l) => l.module))];
