// The Kubernetes release a template runs, as the API decides it: its kube_tag label, else the
// service's default (the spec parser's `kube_tag ?? resolveKubeTag(undefined)`, built into the
// bundle). The image's own release (Glance property kube_version) must agree with it, or every
// create from the template is refused: the portal says so wherever the version is shown.
import registry from 'virtual:labels';
import type { Choices } from './choices';

export const DEFAULT_KUBE_VERSION: string = registry.defaultKubeVersion;

export interface KubeVersion {
  /** What the cluster runs. */
  version: string;
  /** Where it comes from. */
  source: 'kube_tag' | 'default';
  /** The image's release when it disagrees with `version` (creates are refused). */
  imageVersion?: string;
}

/** `1.36.1`, `v1.36.1-1.1` → `v1.36.1` (as the API compares them). */
const norm = (v: string) => {
  const m = /^v?(\d+\.\d+\.\d+)/.exec(v.trim());
  return m ? `v${m[1]}` : v.trim();
};

export function kubeVersionOf(t: { labels?: Record<string, string> | null; image_id?: string | null }, images: Choices['images'] | undefined): KubeVersion {
  const tag = t.labels?.kube_tag;
  const version = tag ? tag : DEFAULT_KUBE_VERSION;
  const image = images?.find((i) => i.name === t.image_id || i.id === t.image_id);
  const carried = image?.kube_version ? norm(image.kube_version) : undefined;
  return { version, source: tag ? 'kube_tag' : 'default', ...(carried && carried !== norm(version) ? { imageVersion: carried } : {}) };
}

/** One line: `v1.35.5 (the service's default)`. */
export const versionText = (k: KubeVersion) => `${k.version}${k.source === 'default' ? ' (the service’s default)' : ''}`;

/** Why creates from the template are refused, or undefined. */
export const mismatchText = (k: KubeVersion, image: string | null | undefined) =>
  k.imageVersion
    ? `Image ${image ?? ''} carries Kubernetes ${k.imageVersion} but the template runs ${k.version}${k.source === 'default' ? ' (no kube_tag: the default)' : ''}: clusters from it are refused. Set kube_tag=${k.imageVersion} or choose an image of ${k.version}.`
    : undefined;
