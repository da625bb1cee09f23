// The label registry as the portal's forms see it: every label a feature module declares (its
// module, what it accepts, what it does) and every label Magnum has that this service does not
// support (with the reason). Generated at build time from src/kube, so the forms cannot drift.
import { addonModules, coreModules, labelOwners } from '../src/cluster-spec/registry.js';
import { LABEL_CATALOG } from '../src/cluster-spec/labels/catalog.js';

export interface LabelInfo {
  name: string;
  module: string;
  kind: 'core' | 'addon';
  accepts: string;
  doc: string;
  /** When it is accepted but ignored with a warning (`without monitoring_enabled=true`). */
  ignored?: string;
  /** Deprecated: what to use instead. */
  deprecated?: string;
}

export function labelRegistry(): { labels: LabelInfo[]; unsupported: Record<string, string> } {
  const owners = labelOwners([...coreModules(), ...addonModules()]);
  const labels = [...owners.entries()]
    .map(([name, m]) => {
      const d = m.labels[name]!;
      return { name, module: m.key, kind: m.kind, accepts: d.type.accepts, doc: d.doc, ...(d.ignored ? { ignored: d.ignored } : {}), ...(d.deprecated ? { deprecated: d.deprecated } : {}) };
    })
    .sort((a, b) => a.module.localeCompare(b.module) || a.name.localeCompare(b.name));
  const unsupported = Object.fromEntries(Object.entries(LABEL_CATALOG).map(([k, v]) => [k, v.reason]));
  return { labels, unsupported };
}
