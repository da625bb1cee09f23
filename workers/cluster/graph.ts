// An operation's steps assembled from the core's and the features' (src/features/registry.ts): a feature's
// step says where it goes with `after` (what it needs) and `before` (what needs it), so the core names no
// feature. The result is ordered so that every step comes after what it needs, the core's own order kept
// wherever nothing says otherwise; a sequential operation also keeps each core step after the one before it.
import type { Step } from '../../src/steps/step.js';

/** `core` then `extra`, ordered by their dependencies (stable: the given order where they allow it). */
export function assemble(core: readonly Step[], extra: readonly Step[], opts: { sequential?: boolean } = {}): Step[] {
  const all = [...core, ...extra];
  const index = new Map(all.map((s, i) => [s.name, i]));
  const needs = all.map((s) => new Set((s.after ?? []).map((n) => index.get(n)).filter((i): i is number => i !== undefined)));
  all.forEach((s, i) => {
    for (const n of s.before ?? []) {
      const j = index.get(n);
      if (j === undefined) throw new Error(`step ${s.name} comes before ${n}, which the operation does not have`);
      needs[j]!.add(i);
    }
  });
  if (opts.sequential) for (let i = 1; i < core.length; i++) needs[i]!.add(i - 1);
  const done = new Set<number>();
  const out: Step[] = [];
  while (out.length < all.length) {
    const next = all.findIndex((_, i) => !done.has(i) && [...needs[i]!].every((d) => done.has(d)));
    if (next < 0) throw new Error(`the steps ${all.filter((_, i) => !done.has(i)).map((s) => s.name).join(', ')} wait on each other`);
    done.add(next);
    out.push(all[next]!);
  }
  // Steps run in this order: what `before` added is now a plain `after`, which the runner checks.
  return out.map((s, i) => {
    const extraAfter = [...needs[all.indexOf(s)]!].map((d) => all[d]!.name).filter((n) => !(s.after ?? []).includes(n) && out.slice(0, i).some((o) => o.name === n));
    return extraAfter.length > 0 && !opts.sequential ? { ...s, after: [...(s.after ?? []), ...extraAfter] } : s;
  });
}
