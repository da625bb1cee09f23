// parseClusterSpec: the one place labels are read. Each registered module parses its own labels by their
// declared types; unknown and not-yet-supported labels are kept and reported, never acted upon.

import { errors } from '../domain/errors.js';
import { catalogWarning, LABEL_CATALOG } from './labels/catalog.js';
import type { ParsedLabels } from './labels/types.js';
import { LabelProblem, type FeatureModule, type ModuleContext } from './module.js';
import { addonModules, coreModules, labelOwners } from './registry.js';
import { SPEC_VERSION, type ClusterSpec, type LabelValue, type ParseInput, type ParseResult } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseClusterSpec(
  input: ParseInput,
  modules: readonly FeatureModule[] = [...coreModules(), ...addonModules()],
): ParseResult {
  const { template, cluster } = input;
  if (template.coe !== undefined && template.coe !== 'kubernetes') throw errors.unsupportedCoe(template.coe);
  if (!UUID.test(cluster.uuid)) throw errors.invalidInput('uuid', cluster.uuid, 'Expected a UUID.');
  const raw = normalise(input.labels);
  const owners = labelOwners(modules);
  const warnings: string[] = [];
  const known: Record<string, string> = {};
  const ignored: Record<string, string> = {};
  const byModule = new Map<FeatureModule, Record<string, unknown>>(modules.map((m) => [m, {}]));

  for (const [name, value] of Object.entries(raw)) {
    const owner = owners.get(name);
    if (owner) {
      try {
        byModule.get(owner)![name] = owner.labels[name]!.type.parse(value);
      } catch (e) {
        throw errors.invalidLabel(name, value, (e as Error).message);
      }
      known[name] = value;
      const deprecated = owner.labels[name]!.deprecated;
      if (deprecated !== undefined) warnings.push(`Label ${name} is deprecated: ${deprecated}`);
      continue;
    }
    ignored[name] = value;
    const entry = LABEL_CATALOG[name];
    warnings.push(entry ? catalogWarning(name, entry) : `Label ${name} is unknown; it is kept and ignored.`);
  }

  const partial: Partial<ClusterSpec> & { features: Record<string, unknown> } = { features: {} };
  const ctx: ModuleContext = {
    template,
    cluster,
    ...(input.subnetCidr !== undefined ? { subnetCidr: input.subnetCidr } : {}),
    spec: partial,
    warn: (m) => warnings.push(m),
    ignore: () => {
      throw new Error('ignore() is given to each module');
    },
    reject: (label, reason, value) => {
      throw new LabelProblem(label, reason, value);
    },
  };
  for (const m of modules) {
    const ignore = (name: string, why?: string) => {
      const when = m.labels[name]?.ignored;
      if (when === undefined) throw new Error(`module ${m.key}: label ${name} declares no 'ignored'`);
      warnings.push(`Label ${name} is ignored ${why ?? when}.`);
    };
    try {
      const value = m.resolve(byModule.get(m) as ParsedLabels<typeof m.labels>, { ...ctx, ignore });
      if (m.kind === 'core') (partial as Record<string, unknown>)[m.key] = value;
      else partial.features[m.key] = value;
    } catch (e) {
      if (e instanceof LabelProblem) throw errors.invalidLabel(e.label, e.value ?? raw[e.label] ?? '', e.message);
      throw e;
    }
  }

  const spec: ClusterSpec = {
    specVersion: SPEC_VERSION,
    cluster: { uuid: cluster.uuid.toLowerCase(), name: cluster.name, shortName: shortName(cluster.name, cluster.uuid) },
    nodes: partial.nodes!,
    kubernetes: partial.kubernetes!,
    network: partial.network!,
    octavia: partial.octavia!,
    apiServer: partial.apiServer!,
    cloudProvider: partial.cloudProvider!,
    autoHealing: partial.autoHealing!,
    autoScaling: partial.autoScaling!,
    kms: partial.kms!,
    nodeOps: partial.nodeOps!,
    features: partial.features,
    labels: { known, ignored },
  };
  return { spec, warnings };
}

function normalise(labels: Record<string, LabelValue> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) {
    out[k] = typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v);
  }
  return out;
}

/** DNS-safe prefix for OpenStack object and node names: `<name, sanitised, ≤20>-<uuid[0:5]>`. */
export function shortName(name: string, uuid: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 20).replace(/-+$/, '');
  return `${base || 'k8s'}-${uuid.toLowerCase().slice(0, 5)}`;
}
