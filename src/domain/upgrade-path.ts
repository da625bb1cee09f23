// Whether a cluster at one Kubernetes version may move to a template's: never down, never past the
// next minor, only between supported minors, and only to a template that names its version
// (kube_tag, ostree_remote or ostree_commit). The upgrade planner lists targets with it and the upgrade
// action (src/api/routes/v1/clusters/upgrade.ts) decides with it, so the two cannot disagree.
import { resolveKubeTag, SUPPORTED_MINORS, type ResolvedVersion } from '../cluster-spec/versions.js';

export type UpgradeVerdict =
  | { ok: true; from: string; to: string; kind: 'patch' | 'minor' }
  | { ok: false; from: string | null; to: string | null; reason: string; refusal: UpgradeRefusal };

/** Why a target is refused: each has its own error at the upgrade action. */
export type UpgradeRefusal = 'no_version' | 'bad_tag' | 'down' | 'same' | 'skip';

export function compareKubeVersions(a: string, b: string): number {
  const pa = a.replace(/^v/, '').split('.').map(Number);
  const pb = b.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** The version a cluster runs: its coe_version, or before it has one its kube_tag label (what the upgrade path reads). */
export const clusterVersion = (c: { coe_version: string | null; labels: Record<string, string> }): string | undefined => c.coe_version ?? c.labels.kube_tag;

const minorIndex = (v: ResolvedVersion): number => SUPPORTED_MINORS.indexOf(v.minor);

/** `current`: the cluster's running version (coe_version) or, before it has one, its kube_tag label. */
export function upgradeVerdict(current: string | undefined, target: Record<string, string>): UpgradeVerdict {
  if (!['kube_tag', 'ostree_remote', 'ostree_commit'].some((k) => k in target)) {
    return { ok: false, from: current ?? null, to: null, reason: 'The template sets none of the labels kube_tag, ostree_remote, ostree_commit.', refusal: 'no_version' };
  }
  let from: ResolvedVersion;
  let to: ResolvedVersion;
  try {
    from = resolveKubeTag(current);
    to = resolveKubeTag(target.kube_tag);
  } catch (e) {
    return { ok: false, from: current ?? null, to: target.kube_tag ?? null, reason: (e as Error).message, refusal: 'bad_tag' };
  }
  const cmp = compareKubeVersions(to.kubernetes, from.kubernetes);
  const refused = (refusal: UpgradeRefusal, reason: string): UpgradeVerdict => ({ ok: false, from: from.kubernetes, to: to.kubernetes, reason, refusal });
  if (cmp < 0) return refused('down', `Kubernetes never goes down: ${to.kubernetes} is older than ${from.kubernetes}.`);
  if (cmp === 0) return refused('same', `The cluster already runs ${from.kubernetes}.`);
  if (minorIndex(to) > minorIndex(from) + 1) {
    const next = SUPPORTED_MINORS[minorIndex(from) + 1];
    const allowed = SUPPORTED_MINORS.slice(minorIndex(from), minorIndex(from) + 2).map((m) => `${m}.x`);
    return refused('skip', `kube_tag ${to.kubernetes} skips a minor version: upgrade to ${next}.x first (from ${from.kubernetes} a cluster can upgrade to ${allowed.join(' or ')}).`);
  }
  return { ok: true, from: from.kubernetes, to: to.kubernetes, kind: to.minor === from.minor ? 'patch' : 'minor' };
}

/** What a template needs to be weighed as a target. */
export interface TargetTemplate {
  name: string;
  coe: string;
  labels: Record<string, string>;
  created_at: Date;
}

/**
 * "The latest patch of its minor": among `templates`, the Kubernetes ones of the running minor newer than
 * `current` that the upgrade path accepts, the newest (ties: the newest template, then by name); undefined when
 * none is newer.
 */
export function latestPatch<T extends TargetTemplate>(current: string | undefined, templates: readonly T[]): { template: T; from: string; to: string } | undefined {
  const fits = templates.flatMap((template) => {
    if (template.coe !== 'kubernetes') return [];
    const v = upgradeVerdict(current, template.labels);
    return v.ok && v.kind === 'patch' ? [{ template, from: v.from, to: v.to }] : [];
  });
  fits.sort((a, b) => compareKubeVersions(b.to, a.to) || b.template.created_at.getTime() - a.template.created_at.getTime() || a.template.name.localeCompare(b.template.name));
  return fits[0];
}

/** The running minor ("1.35") of `current` (undefined: the default's); undefined when it is no version we know. */
export function runningMinor(current: string | undefined): string | undefined {
  try {
    return resolveKubeTag(current).minor;
  } catch {
    return undefined;
  }
}
