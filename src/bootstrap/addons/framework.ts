// The add-on framework: an add-on is a feature module (labels → its spec section) that also knows whether it is
// enabled for a spec, where it goes in the apply order (spec k8s-bootstrap §1.7) and how to render its objects.

import type { CloudConfigOutput } from '../cloudconf.js';
import type { LabelSchema } from '../../cluster-spec/labels/types.js';
import type { FeatureModule } from '../../cluster-spec/module.js';
import type { ClusterSpec } from '../../cluster-spec/types.js';
import { withSecretChecksums } from './secret-checksums.js';

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
export const ORDER = { cloudConfig: 10, occm: 20, cni: 30, cinderCsi: 40, manilaCsi: 45, metricsServer: 50, dnsAutoscaler: 55, keystoneAuth: 60, ingress: 70, externalDns: 80, dashboard: 85, monitoring: 90 } as const;

/** A host file cloud-init writes on every control-plane node (never on workers). */
export interface HostFile {
  path: string;
  content: string;
  permissions?: string;
}

/**
 * What an enabled add-on needs from kube-apiserver (the kubeadm ClusterConfiguration of the first control plane,
 * which kubeadm re-uses for the joining ones). Only spec data: these files end up in user-data, never secrets.
 */
export interface ApiServerExtension {
  /** Extra kube-apiserver flags; each flag may be contributed by one add-on only. */
  extraArgs?: { name: string; value: string }[];
  /** Authorizers appended after kubeadm's `Node,RBAC`, so system components never depend on an add-on's pod. */
  authorizationModes?: string[];
  /** Files the flags point at; their directories are hostPath-mounted read-only into the apiserver pod. */
  files?: HostFile[];
}

export interface AddonModule<S extends LabelSchema = LabelSchema, T = unknown> extends FeatureModule<S, T> {
  readonly kind: 'addon';
  /** Manifest name (file `addons/<order>-<name>.yaml`). */
  readonly name: string;
  readonly order: number;
  enabled(spec: ClusterSpec): boolean;
  render(spec: ClusterSpec, ctx: AddonContext): K8sObject[];
  /** Optional: the add-on's apiserver wiring (asked only when the add-on is enabled). */
  apiServer?(spec: ClusterSpec): ApiServerExtension;
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

/**
 * Enabled add-ons in apply order, each with its objects; workloads reading Secrets of the rendering
 * carry those Secrets' checksum (secret-checksums.ts), so a changed Secret rolls its readers.
 */
export function renderAddons(modules: readonly AddonModule[], spec: ClusterSpec, ctx: AddonContext): RenderedAddon[] {
  const rendered = [...modules]
    .sort((a, b) => a.order - b.order || a.name.localeCompare(b.name))
    .filter((m) => m.enabled(spec))
    .map((m) => ({ name: m.name, order: m.order, objects: m.render(spec, ctx) }));
  const stamped = withSecretChecksums(rendered.flatMap((r) => r.objects));
  let i = 0;
  return rendered.map((r) => ({ ...r, objects: r.objects.map(() => stamped[i++]!) }));
}

/** The merged apiserver wiring of the enabled add-ons, in apply order (what cloudinit/kubeadm.ts consumes). */
export interface MergedApiServerExtension {
  extraArgs: { name: string; value: string }[];
  files: HostFile[];
  /** One read-only hostPath volume per directory holding contributed files. */
  volumes: { name: string; hostPath: string; mountPath: string; readOnly: true; pathType: 'DirectoryOrCreate' }[];
}

/** kubeadm's default apiserver authorizers; add-on authorizers come after them. */
export const BASE_AUTHORIZATION_MODES = ['Node', 'RBAC'] as const;

export function apiServerExtensions(modules: readonly AddonModule[], spec: ClusterSpec): MergedApiServerExtension {
  const extraArgs: MergedApiServerExtension['extraArgs'] = [];
  const files: HostFile[] = [];
  const modes: string[] = [...BASE_AUTHORIZATION_MODES];
  const owner = new Map<string, string>();
  const claim = (what: string, by: string) => {
    const prev = owner.get(what);
    if (prev) throw new Error(`${what} is contributed by both add-ons ${prev} and ${by}`);
    owner.set(what, by);
  };
  const enabled = [...modules].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name)).filter((m) => m.apiServer && m.enabled(spec));
  for (const m of enabled) {
    const ext = m.apiServer!(spec);
    for (const a of ext.extraArgs ?? []) {
      if (a.name === 'authorization-mode') throw new Error(`add-on ${m.name}: contribute authorizationModes, not --authorization-mode`);
      claim(`apiserver flag --${a.name}`, m.name);
      extraArgs.push(a);
    }
    for (const f of ext.files ?? []) {
      // No '.', '..' or empty segment: a path that climbs out of /etc/kubernetes (or into pki/ by a detour) is refused.
      const climbs = f.path.split('/').slice(1).some((seg) => seg === '' || seg === '.' || seg === '..');
      if (climbs || !/^\/etc\/kubernetes\/[a-z0-9._/-]+$/.test(f.path) || f.path.startsWith('/etc/kubernetes/pki/') || f.path.startsWith('/etc/kubernetes/manifests/')) {
        throw new Error(`add-on ${m.name}: file ${f.path} must live in its own directory under /etc/kubernetes`);
      }
      claim(`file ${f.path}`, m.name);
      files.push(f);
    }
    for (const mode of ext.authorizationModes ?? []) if (!modes.includes(mode)) modes.push(mode);
  }
  if (modes.length > BASE_AUTHORIZATION_MODES.length) extraArgs.push({ name: 'authorization-mode', value: modes.join(',') });
  const dirs = [...new Set(files.map((f) => f.path.slice(0, f.path.lastIndexOf('/'))))];
  const volumes = dirs.map((d) => ({
    name: `addon-${d.replace(/^\/etc\/kubernetes\//, '').replace(/[^a-z0-9]+/g, '-')}`,
    hostPath: d,
    mountPath: d,
    readOnly: true as const,
    pathType: 'DirectoryOrCreate' as const,
  }));
  return { extraArgs, files, volumes };
}
