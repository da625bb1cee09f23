// Label and field selectors of list calls, node selectors and affinity of pod templates, and
// taints against tolerations: the matching rules the scheduler and the list API share.
import { KubeStatus, type Obj } from './store.js';

type Labels = Record<string, string>;
type Requirement = { key: string; op: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values: string[] };

function matches(labels: Labels, r: Requirement): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.op) {
    case 'In':
      return has && r.values.includes(labels[r.key]!);
    case 'NotIn':
      return !has || !r.values.includes(labels[r.key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

function splitOutsideParens(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** `a=b,c!=d,e,!f,g in (x,y),h notin (z)` as requirements; 400 when unreadable. */
export function parseLabelSelector(selector: string): Requirement[] {
  const out: Requirement[] = [];
  for (const raw of splitOutsideParens(selector).map((p) => p.trim()).filter(Boolean)) {
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(raw))) {
      out.push({ key: m[1]!, op: m[2] === 'in' ? 'In' : 'NotIn', values: m[3]!.split(',').map((v) => v.trim()).filter(Boolean) });
    } else if ((m = /^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/.exec(raw))) {
      out.push({ key: m[1]!, op: m[2] === '!=' ? 'NotIn' : 'In', values: [m[3]!] });
    } else if ((m = /^!([\w./-]+)$/.exec(raw))) {
      out.push({ key: m[1]!, op: 'DoesNotExist', values: [] });
    } else if ((m = /^([\w./-]+)$/.exec(raw))) {
      out.push({ key: m[1]!, op: 'Exists', values: [] });
    } else {
      throw new KubeStatus(400, `unable to parse requirement: ${raw}`);
    }
  }
  return out;
}

export const selectorMatches = (labels: Labels | undefined, reqs: Requirement[]): boolean => reqs.every((r) => matches(labels ?? {}, r));

/** `spec.nodeName=x,metadata.namespace!=y`: equality on dotted paths of the object. */
export function fieldSelectorMatches(obj: Obj, selector: string): boolean {
  for (const raw of selector.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([\w.]+)\s*(==|=|!=)\s*(.*)$/.exec(raw);
    if (!m) throw new KubeStatus(400, `invalid field selector: ${raw}`);
    let v: unknown = obj;
    for (const part of m[1]!.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
    const value = v === undefined || v === null ? '' : String(v);
    if ((m[2] === '!=') === (value === m[3])) return false;
  }
  return true;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

export function tolerates(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

/** The pod template's nodeSelector and required node affinity hold for these node labels. */
export function nodeSelected(podSpec: Record<string, unknown>, labels: Labels): boolean {
  const selector = (podSpec.nodeSelector ?? {}) as Labels;
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  type Expression = { key: string; operator: Requirement['op'] | 'Gt' | 'Lt'; values?: string[] };
  const affinity = podSpec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: { matchExpressions?: Expression[] }[] } } } | undefined;
  const terms = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return true;
  const holds = (r: Expression) => {
    if (r.operator === 'Gt' || r.operator === 'Lt') {
      const v = Number(labels[r.key]);
      const bound = Number(r.values?.[0]);
      return Number.isFinite(v) && (r.operator === 'Gt' ? v > bound : v < bound);
    }
    return matches(labels, { key: r.key, op: r.operator, values: r.values ?? [] });
  };
  return terms.some((t) => (t.matchExpressions ?? []).every(holds));
}

/** A LabelSelector object (matchLabels, matchExpressions); `undefined` or `{}` matches every object. */
export interface LabelSelector {
  matchLabels?: Labels;
  matchExpressions?: { key: string; operator: Requirement['op']; values?: string[] }[];
}

export function labelSelectorMatches(selector: LabelSelector | undefined, labels: Labels | undefined): boolean {
  const l = labels ?? {};
  if (!Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => l[k] === v)) return false;
  return (selector?.matchExpressions ?? []).every((e) => matches(l, { key: e.key, op: e.operator, values: e.values ?? [] }));
}
