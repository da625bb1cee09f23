// Feature modules: each declares its labels' schema and resolves them (already typed) into its part of the spec.
// The core parser owns no label names; it only runs the registered modules.

import type { LabelSchema, ParsedLabels } from './labels/types.js';
import type { ClusterInput, ClusterSpec, TemplateInput } from './types.js';

/** Raised by modules for a label whose value is well-formed but unacceptable in context. */
export class LabelProblem extends Error {
  constructor(readonly label: string, reason: string, readonly value?: string) {
    super(reason);
  }
}

export interface ModuleContext {
  template: TemplateInput;
  cluster: ClusterInput;
  subnetCidr?: string;
  /** Sections resolved by modules that ran earlier (registry order). */
  spec: Partial<ClusterSpec>;
  warn(message: string): void;
  /**
   * The warning that `label` (one of the module's own, which declares when: `ignored`) is ignored; `why` names the
   * present case when it says more than the declaration.
   */
  ignore(label: string, why?: string): void;
  /** Throws a LabelProblem for `label` (its value defaults to the label's given value). */
  reject(label: string, reason: string, value?: string): never;
}

export interface FeatureModule<S extends LabelSchema = LabelSchema, T = unknown> {
  /** Core modules fill a top-level spec section; add-ons land in `spec.features[key]`. */
  readonly key: string;
  readonly kind: 'core' | 'addon';
  readonly labels: S;
  resolve(labels: ParsedLabels<S>, ctx: ModuleContext): T;
}

export function defineModule<S extends LabelSchema, T>(m: FeatureModule<S, T>): FeatureModule<S, T> {
  return m;
}

/** Typed read of an add-on's section. */
export function featureOf<T>(spec: ClusterSpec, mod: FeatureModule<LabelSchema, T>): T | undefined {
  return spec.features[mod.key] as T | undefined;
}
