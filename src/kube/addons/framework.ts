// The add-on framework: an add-on is a feature module (labels → its spec section) that also knows whether it is
// enabled for a spec, where it goes in the apply order (spec k8s-bootstrap §1.7) and how to render its objects.

import type { CloudConfigOutput } from '../cloudconf.js';
import type { LabelSchema } from '../labels/types.js';
import type { FeatureModule } from '../spec/module.js';
import type { ClusterSpec } from '../spec/types.js';

/** A Kubernetes object as plain data (serialised to YAML by render-all, applied by the worker). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Cluster material the add-ons need besides the spec (secrets never live in the spec). */
export interface AddonContext {
  cloud: CloudConfigOutput;
}

/** Apply phases of spec §1.7: cloud-config Secret → OCCM → CNI → Cinder CSI + StorageClass → the rest. */
export const ORDER = { cloudConfig: 10, occm: 20, cni: 30, cinderCsi: 40, metricsServer: 50 } as const;

export interface AddonModule<S extends LabelSchema = LabelSchema, T = unknown> extends FeatureModule<S, T> {
  readonly kind: 'addon';
  /** Manifest name (file `addons/<order>-<name>.yaml`). */
  readonly name: string;
  readonly order: number;
  enabled(spec: ClusterSpec): boolean;
  render(spec: ClusterSpec, ctx: AddonContext): K8sObject[];
}

export function defineAddon<S extends LabelSchema, T>(m: AddonModule<S, T>): AddonModule<S, T> {
  return m;
}

/** The add-on's resolved section (typed by the caller, which is the add-on itself). */
export function settingsOf<T>(spec: ClusterSpec, key: string): T {
  const v = spec.features[key];
  if (v === undefined) throw new Error(`add-on ${key} was not resolved for this spec`);
  return v as T;
}

/** `<container_infra_prefix>/<name>:<tag>` when a mirror is set, else the upstream `<repo>/<name>:<tag>`. */
export function image(spec: ClusterSpec, upstreamRepo: string, name: string, tag: string): string {
  const repo = spec.kubernetes.imageRepository || upstreamRepo;
  return `${repo}/${name}:${tag}`;
}

export interface RenderedAddon {
  name: string;
  order: number;
  objects: K8sObject[];
}

/** Enabled add-ons in apply order, each with its objects. */
export function renderAddons(modules: readonly AddonModule[], spec: ClusterSpec, ctx: AddonContext): RenderedAddon[] {
  return [...modules]
    .sort((a, b) => a.order - b.order || a.name.localeCompare(b.name))
    .filter((m) => m.enabled(spec))
    .map((m) => ({ name: m.name, order: m.order, objects: m.render(spec, ctx) }));
}
